/** The export's contract: its query, the exported record and each format's answer. */
import * as z from "zod";
import { EXPORT_FORMATS, type ExportFormat } from "../../export/formats/names.ts";
import {
  MAX_LIMIT,
  MAX_TIMESTAMP,
  PAGE_ROWS_HEADER,
  SNAPSHOT_HEADER,
  SNAPSHOT_ROWS_HEADER,
} from "../../export/paging.ts";
import type { ExportParams } from "../../export/params.ts";
import { COLUMN_NAMES, type ColumnName, type ExportRecord } from "../../record/columns.ts";
import { COLUMN_DESCRIPTIONS } from "../../record/descriptions.ts";
import { exportRecordSchema } from "../../record/schema.ts";
import { INTERNAL, JSON_MEDIA_TYPE, type RouteContract, tiedTo, unauthorized } from "./shared.ts";

/**
 * What the export handler accepts. The handler parses the query strings with
 * `exportParamsSchema`, whose string pipes would be documented as bare strings; this states
 * the parsed form, the spec's integers, and is tied to the same type.
 */
export const exportQuerySchema = tiedTo<ExportParams>()(
  z.object({
    timestamp: z
      .int()
      .max(MAX_TIMESTAMP)
      .meta({
        description:
          "Start of the window in Unix seconds (plain base-10 digits): events with `event_time` " +
          "at or after it; a start before 1970 is 0. The window runs to the present. Keep it " +
          "fixed while paging.",
        example: 1793491200,
      }),
    format: z
      .enum(EXPORT_FORMATS)
      .default("json")
      .meta({ description: "The answer's format; see the 200 answer for each." }),
    limit: z
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .default(MAX_LIMIT)
      .meta({ description: `Page size: 1 to ${MAX_LIMIT}.`, example: 500 }),
    offset: z
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .default(0)
      .meta({
        description:
          "Events to skip. Advance it by `limit` for the next page; a page shorter than `limit` " +
          "is the last.",
        example: 0,
      }),
    snapshot: z
      .uuid()
      .optional()
      .meta({
        description:
          `The snapshot to page through: the \`${SNAPSHOT_HEADER}\` header of an earlier page of ` +
          "this window. Without it, a first page (offset 0) takes a new snapshot of the window " +
          "as it is now, and a later page slices the window's newest snapshot, which another " +
          "client exporting the same window may have replaced. Unknown, expired (by default 15 " +
          "minutes after it was taken on the embedded runtime, 2 hours on AWS) or withdrawn by a " +
          "later deletion request: 422.",
        example: "8d0f7c4e-2b1a-4c3d-9e8f-7a6b5c4d3e2f",
      }),
  }),
);

/** A field of `exportRecordSchema` (an object schema built from the column list). */
const recordField = (name: ColumnName): z.ZodType => {
  const field: unknown =
    exportRecordSchema instanceof z.ZodObject ? exportRecordSchema.shape[name] : undefined;
  if (!(field instanceof z.ZodType)) throw new Error(`exportRecordSchema has no field ${name}`);
  return field;
};

/** The exported record: `exportRecordSchema` with each field described. */
export const exportRecordContractSchema = z
  .strictObject(
    Object.fromEntries(
      COLUMN_NAMES.map((name) => [
        name,
        recordField(name).meta({ description: COLUMN_DESCRIPTIONS[name] }),
      ]),
    ),
  )
  .meta({
    id: "ExportRecord",
    description:
      "One exported event: every field in this order, any of them may be null. The tabular " +
      "formats use the same names as column headers.",
  }) as unknown as z.ZodType<ExportRecord>;

export const exportPageSchema = z
  .strictObject({
    data: z.array(exportRecordContractSchema).meta({ description: "The events of this page." }),
    total_count: z.int().min(0).meta({
      description: "The number of events in this page (not in the whole window).",
      example: 1,
    }),
  })
  .meta({ id: "ExportPage", description: "A page of the export in the `json` format." });

/** Each format's media type (its Content-Type without parameters); held to the writers by a test. */
export const EXPORT_MEDIA_TYPES = {
  json: JSON_MEDIA_TYPE,
  ndjson: "application/x-ndjson",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  xml: "application/xml",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  parquet: "application/vnd.apache.parquet",
} as const satisfies Record<ExportFormat, string>;

/** The formats sent as a download, with Content-Disposition. */
export const EXPORT_DOWNLOADS: readonly ExportFormat[] = ["csv", "tsv", "xml", "xlsx", "parquet"];

const binary = (what: string) => z.string().meta({ format: "binary", description: what });

const EXPORT_BODIES: Record<ExportFormat, z.ZodType> = {
  json: exportPageSchema,
  ndjson: z.string().meta({
    description: "UTF-8, one ExportRecord as a JSON object per line; no envelope.",
  }),
  csv: z.string().meta({
    description:
      "UTF-8 comma-separated values: a header row of the ExportRecord field names, then one " +
      'row per event. Null is an empty cell; an empty string is quoted (`""`).',
  }),
  tsv: z.string().meta({
    description:
      "UTF-8 tab-separated values (the text format of PostgreSQL's `COPY`): a header row of " +
      'the ExportRecord field names, then one row per event. Nothing is quoted, and a `"` is ' +
      "an ordinary character: read it with quoting off. A tab, line feed, carriage return and " +
      "backslash inside a value are written `\\t`, `\\n`, `\\r` and `\\\\`. Null and the " +
      "empty string are both an empty field.",
  }),
  xml: z.string().meta({
    description:
      "UTF-8 XML: an `<events>` root, one `<event>` per event with one element per field; " +
      'null is `xsi:nil="true"`.',
  }),
  xlsx: binary("An Excel workbook: a header row of the field names, then one row per event."),
  parquet: binary(
    "An Apache Parquet file: strings as UTF-8 byte arrays, click_to_first_open_hours as " +
      "INT32, the revenue columns as DOUBLE; nulls as Parquet nulls.",
  ),
};

const exportHeaders = z.object({
  "Content-Disposition": z
    .string()
    .optional()
    .meta({
      description:
        `Only for the downloads (${EXPORT_DOWNLOADS.join(", ")}): the file name names the app, ` +
        "the window and the page's rows.",
      example:
        'attachment; filename="com.example.game_events_20261101T000000Z-20261121T180000Z_rows-1-500.csv"',
    }),
  "Cache-Control": z.literal("no-store").meta({ description: "Pages are never cached." }),
  [SNAPSHOT_HEADER]: z.uuid().meta({
    description:
      "The snapshot this page was sliced from. Send it back as `snapshot` with the next pages " +
      "to page through the same snapshot.",
    example: "8d0f7c4e-2b1a-4c3d-9e8f-7a6b5c4d3e2f",
  }),
  [SNAPSHOT_ROWS_HEADER]: z
    .string()
    .regex(/^\d+$/)
    .optional()
    .meta({
      description:
        "The number of events in the snapshot, i.e. in the whole window, when the service " +
        "knows it: a client can request the pages ahead, and knows the last one without " +
        "reading it. The embedded runtime knows it once the snapshot is made; a large " +
        "window's first page is answered while the snapshot is still being made, without it.",
      example: "2481337",
    }),
  [PAGE_ROWS_HEADER]: z
    .string()
    .regex(/^\d+$/)
    .optional()
    .meta({
      description:
        "The number of events in this page, when the service knows it before sending the " +
        "page (the embedded runtime's csv, tsv, ndjson and parquet pages): a page holding " +
        "fewer than `limit` is the last.",
      example: "10000",
    }),
});

export const EXPORT_CONTRACTS = {
  export: {
    summary: "Export a page of the app's attributed events",
    description:
      "One page of the key's app's events with `event_time` at or after `timestamp`, ordered " +
      "by `event_time`, then `event_id`; each `event_id` appears once per install. The first page of an " +
      "export (offset 0) takes a snapshot of the window as it is now, named in the " +
      `\`${SNAPSHOT_HEADER}\` header; the pages that name it in \`snapshot\` slice it for a ` +
      "while (by default 15 minutes embedded, 2 hours on AWS), so they neither repeat nor skip " +
      "events while new ones " +
      "arrive. The answer is streamed in the format `format` asks for; the " +
      "tabular formats have one column per ExportRecord field, in its order.",
    request: { query: exportQuerySchema },
    success: {
      status: 200,
      description:
        "The page, in the asked format (UTF-8 for the text formats). json and ndjson are shown " +
        `inline; ${EXPORT_DOWNLOADS.join(", ")} are downloads with Content-Disposition.`,
      content: Object.fromEntries(
        EXPORT_FORMATS.map((format) => [EXPORT_MEDIA_TYPES[format], EXPORT_BODIES[format]]),
      ),
      headers: exportHeaders,
    },
    errors: {
      401: unauthorized("export"),
      422:
        "A parameter is missing or out of range: `timestamp` missing or not a whole number of " +
        `seconds, \`format\` not one of ${EXPORT_FORMATS.join(", ")}, \`limit\` not 1 to ` +
        `${MAX_LIMIT}, \`offset\` negative, or \`snapshot\` not a snapshot of this window that ` +
        "is still good (unknown, expired, or withdrawn by a later deletion request); or one of " +
        "these given more than once (`limit=0&limit=5`), which is not read as its last value. " +
        "The detail names it.",
      500: INTERNAL,
      503:
        "A first page's snapshot cannot be made now: the snapshots take their disk budget, or " +
        "the disk is short of space (embedded runtime). Nothing was half-written; retry after " +
        "`Retry-After` seconds, when expired snapshots have been removed.",
    },
  },
} as const satisfies Record<string, RouteContract>;
