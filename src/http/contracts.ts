/**
 * The wire contract of every route, as zod schemas: what it takes, what it answers and which
 * errors it can answer. Requests are the schemas the handlers parse (or, where a handler
 * parses strings, a description of what it accepts, tied to its type); answers are described
 * here and tied to the handlers' own types, so a change on either side fails to compile.
 * `src/http/openapi.ts` turns this into the OpenAPI document, and
 * test/integration/contract.test.ts holds real answers to it.
 */
import * as z from "zod";
import { SEALED_VERSION } from "../crypto/envelope.ts";
import type { DeletionAnswer } from "../deletion/deletions.ts";
import {
  CLEAR_PARAMETER_KEYS,
  CONFIG_REFRESH_SECONDS,
  type RemoteConfig,
  SEALING_ALGORITHM,
} from "../domain/app-config.ts";
import { KEY_KINDS, type Scope } from "../domain/keys.ts";
import { EXPORT_FORMATS, type ExportFormat } from "../export/formats/names.ts";
import { type ExportParams, MAX_LIMIT, MAX_TIMESTAMP } from "../export/params.ts";
import { eventsRequestSchema, s2sEventsRequestSchema } from "../ingest/event-schema.ts";
import { installRequestSchema } from "../ingest/install.ts";
import { INGEST_LIMITS } from "../ingest/limits.ts";
import type { createIngestion, EventsAnswer } from "../ingest/service.ts";
import { DELETION_STATUSES } from "../ports/deletions.ts";
import { COLUMN_NAMES, type ColumnName, type ExportRecord } from "../record/columns.ts";
import { exportRecordSchema } from "../record/schema.ts";
import type { ErrorBody } from "./errors.ts";
import { requestIdParam, serviceIdParam } from "./handlers/deletions.ts";
import type { RouteId } from "./routes.ts";

/** The error statuses a route may document; every one answers with `errorBodySchema`. */
export const ERROR_STATUSES = [400, 401, 404, 413, 422, 500] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

export const JSON_MEDIA_TYPE = "application/json";

export interface RouteContract {
  readonly summary: string;
  readonly description: string;
  readonly request?: {
    readonly query?: z.ZodObject;
    readonly params?: z.ZodObject;
    /** A JSON body. */
    readonly body?: { readonly description: string; readonly schema: z.ZodType };
  };
  readonly success: {
    /** 302 is a redirect: its `Location` header (in `headers`) is the answer, with no body. */
    readonly status: 200 | 201 | 202 | 302;
    readonly description: string;
    /**
     * Each media type the route answers with (without parameters such as charset), and its
     * body; none for a redirect.
     */
    readonly content?: Readonly<Record<string, z.ZodType>>;
    readonly headers?: z.ZodObject;
  };
  /** The error statuses the route can answer, each with when. */
  readonly errors: { readonly [S in ErrorStatus]?: string };
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Ties a schema to the type a handler really produces (or parses into): it compiles only when
 * the two are assignable both ways, so neither can change without the other.
 */
const tiedTo =
  <T>() =>
  <S extends z.ZodType>(
    schema: S,
    ..._mismatch: Same<z.output<S>, T> extends true
      ? []
      : ["the schema and the handler's type differ"]
  ): S =>
    schema;

// ---------------------------------------------------------------------------------------
// Errors

export const errorBodySchema = tiedTo<ErrorBody>()(
  z
    .strictObject({
      error: z.string().meta({
        description: "The name of the HTTP status, e.g. `Unauthorized` or `Unprocessable Entity`.",
        example: "Unprocessable Entity",
      }),
      detail: z.string().meta({
        description:
          "What went wrong, written for a person: it names the field or parameter at fault. " +
          "Not meant to be parsed. A 500 never shows internals.",
        example: "body.events: must be a list of 1 to 100 events",
      }),
    })
    .meta({
      id: "Error",
      description:
        "The body of every error answer, from a handler or from the gateway in front of it.",
    }),
);

const kindsWith = (scope: Scope): string =>
  Object.entries(KEY_KINDS)
    .filter(([, kind]) => (kind.scopes as readonly Scope[]).includes(scope))
    .map(([name]) => (name === "sdk" ? "SDK" : name))
    .join(" and ");

const unauthorized = (scope: Scope) =>
  "The `Authorization` header is missing, or its key is unknown, revoked, or lacks the " +
  `\`${scope}\` scope (${kindsWith(scope)} keys have it).`;

const INTERNAL = "An unexpected failure; the detail never shows internals. Retry later.";
const NOT_JSON = "The body is empty or is not valid JSON.";
const TOO_LARGE = `The body is over ${INGEST_LIMITS.maxBodyBytes} bytes (1 MiB); it was not parsed.`;

// ---------------------------------------------------------------------------------------
// Ingestion

type InstallAnswer = Awaited<ReturnType<ReturnType<typeof createIngestion>["recordInstall"]>>;

export const installAnswerSchema = tiedTo<InstallAnswer>()(
  z
    .strictObject({
      service_id: installRequestSchema.shape.service_id.meta({
        description: "The install's service_id, as sent.",
      }),
    })
    .meta({
      id: "InstallAnswer",
      description:
        "The install is recorded (or was already: a repeat changes nothing), also while the " +
        "app is switched off in its remote configuration, whose events are then not stored. " +
        "The same answer for an install whose data was deleted on request, which is not " +
        "stored again.",
    }),
);

const verdictFields = {
  index: z.int().min(0).meta({
    description: "The event's position in the request's `events` list, from 0.",
    example: 0,
  }),
  event_id: z.string().nullable().meta({
    description: "The event's `event_id`, or null when it did not carry a valid one.",
    example: "01J8Z3K4M5N6P7Q8R9S0T1V2W3",
  }),
};

export const eventsAnswerSchema = tiedTo<EventsAnswer>()(
  z
    .strictObject({
      accepted: z.int().min(0).meta({
        description: "How many events were stored. They reach the export within minutes.",
        example: 1,
      }),
      ignored: z
        .array(
          z.strictObject({
            ...verdictFields,
            detail: z.string().meta({
              description:
                "Why: an INSTALL event (installs are reported through POST /v1/installs), the " +
                "app is switched off in its remote configuration, or the install's data was " +
                "deleted on request (DELETE /v1/installs/{service_id}).",
            }),
          }),
        )
        .meta({ description: "Events dropped without an error: do not send them again." }),
      rejected: z
        .array(
          z.strictObject({
            ...verdictFields,
            error: z.string().meta({
              description:
                "`Unprocessable Entity` for an event that breaks a rule; `Conflict` for an SDK " +
                "event whose install is not recorded yet.",
              example: "Unprocessable Entity",
            }),
            detail: z.string().meta({
              description: "What is wrong with the event, naming the field.",
              example: "event_time: is required",
            }),
            retryable: z.boolean().meta({
              description:
                "True when the same event may succeed later unchanged (its install is not " +
                "recorded yet): keep it and send it again. False: it fails the same way every time.",
            }),
          }),
        )
        .meta({ description: "Events refused, in index order; the others were still stored." }),
      warnings: z
        .array(
          z.strictObject({
            ...verdictFields,
            detail: z.string().meta({
              description:
                "What of the event was not kept as sent, each part separated by `; `: unknown " +
                "keys ignored, revenue without a currency kept as a plain parameter, PII left " +
                "sealed.",
              example:
                "parameters.revenue was not recorded as revenue: parameters.currency (ISO 4217, " +
                "e.g. USD) is missing",
            }),
          }),
        )
        .meta({
          description:
            "Accepted events, in index order, of which something was not kept as sent. They " +
            "are stored and counted in `accepted`: do not send them again.",
        }),
    })
    .meta({
      id: "EventsAnswer",
      description:
        "One verdict per event of the request: counted as accepted, or listed by index as " +
        "ignored or rejected. An accepted event may also be listed under warnings.",
    }),
);

// ---------------------------------------------------------------------------------------
// Remote configuration

const encryptionOff = z.strictObject({ enabled: z.literal(false) }).meta({
  id: "EncryptionOff",
  description: "Sealing is off: the SDK sends every value in clear.",
});

const encryptionOn = z
  .strictObject({
    enabled: z.literal(true),
    key_id: z.string().meta({
      description: "Id of the app's current sealing key; every sealed value names it.",
      example: "k3f9a61c2d8e04b75",
    }),
    public_key: z.string().meta({
      description:
        "The app's P-256 public key: base64url without padding of its SubjectPublicKeyInfo " +
        "DER (91 bytes; the last 65 are the uncompressed point).",
    }),
    algorithm: z.string().meta({
      description: "How values are sealed: ephemeral-static ECDH, HKDF and AES-256-GCM.",
      example: SEALING_ALGORITHM,
    }),
    envelope_version: z.string().meta({
      description: "The version prefix of every sealed value (`<version>.<key_id>.…`).",
      example: SEALED_VERSION,
    }),
    clear_keys: z
      .array(z.string())
      .readonly()
      .meta({
        description: "Parameter keys the SDK never seals: the server needs them in clear.",
        example: [...CLEAR_PARAMETER_KEYS],
      }),
  })
  .meta({
    id: "EncryptionOn",
    description:
      "Sealing is on: the SDK may seal parameter values, except those of `clear_keys`, with " +
      "the app's public key.",
  });

export const remoteConfigSchema = tiedTo<RemoteConfig>()(
  z
    .strictObject({
      enabled: z.boolean().meta({
        description:
          "False when the app's owner switched the SDK off: it should send nothing (events it " +
          "sends anyway are answered 202, counted as ignored and not stored; an install is " +
          "still recorded).",
      }),
      refresh_interval_seconds: z.int().min(1).meta({
        description: "How often the SDK fetches this configuration again, in seconds.",
        example: CONFIG_REFRESH_SECONDS,
      }),
      encryption: z.union([encryptionOff, encryptionOn]).meta({
        description: "Whether and how the SDK seals parameter values on the device.",
      }),
    })
    .meta({ id: "RemoteConfig", description: "The app's remote configuration for its SDKs." }),
);

// ---------------------------------------------------------------------------------------
// Deletion

export const deletionAnswerSchema = tiedTo<DeletionAnswer>()(
  z
    .strictObject({
      request_id: z.uuid().meta({
        description: "The request's id, for GET /v1/deletions/{request_id}.",
        example: "2c8e5a8e-6b6f-4a51-9d1e-0f9a3c7b5d42",
      }),
      service_id: z.string().meta({
        description: "The install whose data is deleted.",
        example: "3f2b9c1e-7a4d-4e8b-9c0a-1d2e3f4a5b6c",
      }),
      status: z.enum(DELETION_STATUSES).meta({
        description:
          "`pending`: recorded, and the install's events already left out of every export; " +
          "`in_progress`: being purged; `completed`: the install, its customer_user_id " +
          "mapping and its events are gone from every store.",
        example: "pending",
      }),
      requested_at: z.iso.datetime().meta({
        description: "When the request was recorded (UTC, ISO 8601).",
        example: "2026-11-21T18:00:00.000Z",
      }),
      completed_at: z.iso.datetime().nullable().meta({
        description: "When the purge completed (UTC, ISO 8601); null until then.",
        example: null,
      }),
    })
    .meta({ id: "DeletionAnswer", description: "A request to delete an install's data." }),
);

// ---------------------------------------------------------------------------------------
// Export

/**
 * What the export handler accepts. The handler parses the query strings with
 * `exportParamsSchema`, whose string pipes would be documented as bare strings; this states
 * the parsed form, the spec's integers, and is tied to the same type.
 */
export const exportQuerySchema = tiedTo<ExportParams>()(
  z.object({
    timestamp: z
      .int()
      .min(0)
      .max(MAX_TIMESTAMP)
      .meta({
        description:
          "Start of the window in Unix seconds (plain base-10 digits): events with `event_time` " +
          "at or after it. The window runs to the present. Keep it fixed while paging.",
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
  }),
);

/** The exported record's fields, as the spec describes them. */
const RECORD_FIELDS: { readonly [C in ColumnName]: string } = {
  event_id: "Unique event identifier, as sent.",
  event_time: "When the event happened, ISO 8601 in UTC.",
  event_name:
    "`service_<event>`: the event type, or a CUSTOM event's own name, in lowercase snake case " +
    "(`service_purchase`, `service_boss_defeated`); letters and digits of every script are " +
    "kept (`service_café_visit`).",
  service_id: "The install's identifier.",
  media_source: "Ad network or source the install is attributed to, or `organic`.",
  campaign_id: "Attributed campaign identifier.",
  campaign_name: "Attributed campaign name.",
  adset_id: "Attributed ad set identifier.",
  adset_name: "Attributed ad set name.",
  ad_id: "Attributed ad identifier.",
  ad_name: "Attributed ad name.",
  matching_type: "Attribution method: `network` or `geo`.",
  click_to_first_open_hours: "Hours from the attributed click to the app's first open.",
  confidence_score: "`low`, `medium` or `high`.",
  country: "ISO 3166-1 alpha-2 code of the user at event time.",
  os: "`ios` or `android`.",
  app_id: "Bundle identifier or package name of the app.",
  app_name: "The app's name.",
  install_type: "iOS only: `new_install` or `reinstall_same_device`.",
  revenue: "Revenue amount of the event, in `currency` (negative for a refund).",
  currency: "ISO 4217 code of `revenue`.",
  idfv: "iOS identifier for vendor, when available.",
  maid: "Mobile advertising identifier (GAID; IDFA when consented), when available.",
  customer_user_id: "The app's own user identifier; null when the user was never identified.",
  revenue_usd: "`revenue` in USD at the ECB reference rate of the event's date.",
};

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
        recordField(name).meta({ description: RECORD_FIELDS[name] }),
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
    description: "As csv, separated by tabs.",
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
});

// ---------------------------------------------------------------------------------------
// The document itself

export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.literal("3.1.0"),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "OpenApiDocument", description: "An OpenAPI 3.1 document: this one." });

// ---------------------------------------------------------------------------------------
// The routes

const SERVICE_ID_EXAMPLE = "3f2b9c1e-7a4d-4e8b-9c0a-1d2e3f4a5b6c";

/** The two event routes share their shape: each event's verdict in a 202 answer. */
const eventsContract = (route: {
  summary: string;
  description: string;
  scope: Scope;
  schema: z.ZodType;
}): RouteContract => ({
  summary: route.summary,
  description: route.description,
  request: { body: { description: "The events.", schema: route.schema } },
  success: {
    status: 202,
    description: "Each event's verdict.",
    content: { [JSON_MEDIA_TYPE]: eventsAnswerSchema },
  },
  errors: {
    400: NOT_JSON,
    401: unauthorized(route.scope),
    413: TOO_LARGE,
    422:
      "The envelope is wrong: the body is not a JSON object, or `events` is not a list of 1 " +
      `to ${INGEST_LIMITS.maxEventsPerRequest} events. A bad event alone does not fail the ` +
      "request: it is rejected in the 202 answer.",
    500: INTERNAL,
  },
});

export const CONTRACTS: { readonly [K in RouteId]: RouteContract } = {
  config: {
    summary: "Get the app's remote configuration",
    description:
      "What the SDK fetches on `configure`, and again every `refresh_interval_seconds`: " +
      "whether it is switched on, and whether and how to seal parameter values.",
    success: {
      status: 200,
      description: "The app's remote configuration.",
      content: { [JSON_MEDIA_TYPE]: remoteConfigSchema },
    },
    errors: { 401: unauthorized("config"), 500: INTERNAL },
  },
  installs: {
    summary: "Record an install's first open",
    description:
      "Sent once by the SDK, on the app's first open on the device. Idempotent on " +
      "`service_id`: a repeat answers the same and changes nothing (the first report wins). " +
      "Send it before the install's events: an event of an install not recorded yet is " +
      "rejected as retryable. Unknown keys are ignored; null is the same as absent.",
    request: {
      body: {
        description: "The install and its device signals.",
        schema: installRequestSchema.meta({ id: "InstallRequest" }),
      },
    },
    success: {
      status: 202,
      description: "Recorded (or already recorded).",
      content: { [JSON_MEDIA_TYPE]: installAnswerSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("ingest"),
      413: TOO_LARGE,
      422:
        "The body breaks a rule; the detail names each field at fault (`body.os: must be one " +
        `of android, ios\`). Also a \`first_open_time\` more than ${INGEST_LIMITS.maxFutureSkewHours} ` +
        "hours ahead of the server's clock.",
      500: INTERNAL,
    },
  },
  events: eventsContract({
    summary: "Send events from the SDK",
    description:
      `A batch of 1 to ${INGEST_LIMITS.maxEventsPerRequest} events of installs recorded ` +
      "through POST /v1/installs. The envelope is checked as a whole (422); then each event " +
      "on its own, and the 202 answer counts the accepted ones and lists the ignored and " +
      "rejected ones by index. A 202 is durable. Delivery is at least once: a request that " +
      "failed can be sent again whole, and the export removes the duplicates a retry makes " +
      "(the same `event_id` of the same install). Unknown keys are ignored; null is the same as " +
      "absent.",
    scope: "ingest",
    schema: eventsRequestSchema.meta({ id: "EventsRequest" }),
  }),
  "s2s-events": eventsContract({
    summary: "Send events from the app's server",
    description:
      "As POST /v1/events, with a server key. Each event names its user by " +
      "`customer_user_id` (the id the app set through the SDK), which the service resolves to " +
      "the install that last sent events under it; `service_id` is not allowed. An event " +
      "whose `customer_user_id` is unknown is rejected, not retryable. The event's country is " +
      "the install's, not the calling server's.",
    scope: "s2s",
    schema: s2sEventsRequestSchema.meta({ id: "S2sEventsRequest" }),
  }),
  "delete-install": {
    summary: "Delete an install's data",
    description:
      "The SDKs' deleteUserData. Records a deletion request and answers at once: from then " +
      "on the install's events are left out of every export, and a background purge removes " +
      "the install, its customer_user_id mapping and its events from the lake within minutes. " +
      "The app's server follows it with GET /v1/deletions/{request_id}. A repeat while a " +
      "request is open answers that request.",
    request: {
      params: z.object({
        service_id: serviceIdParam.meta({
          description: "The install's service_id, as sent to POST /v1/installs.",
          example: SERVICE_ID_EXAMPLE,
        }),
      }),
    },
    success: {
      status: 202,
      description: "The request is recorded; the purge follows.",
      content: { [JSON_MEDIA_TYPE]: deletionAnswerSchema },
    },
    errors: {
      401: unauthorized("ingest"),
      422: `The service_id is not 1 to ${INGEST_LIMITS.maxIdLength} characters of A-Z a-z 0-9 . _ : -.`,
      500: INTERNAL,
    },
  },
  "deletion-status": {
    summary: "Get a deletion request's progress",
    description: "Where a request of DELETE /v1/installs/{service_id} stands.",
    request: {
      params: z.object({
        request_id: requestIdParam.meta({
          description: "The `request_id` that DELETE /v1/installs/{service_id} answered.",
          example: "2c8e5a8e-6b6f-4a51-9d1e-0f9a3c7b5d42",
        }),
      }),
    },
    success: {
      status: 200,
      description: "The request.",
      content: { [JSON_MEDIA_TYPE]: deletionAnswerSchema },
    },
    errors: {
      401: unauthorized("deletions"),
      404: "No deletion request with this id for the key's app (another app's is as unknown).",
      422: "The request_id is not a UUID.",
      500: INTERNAL,
    },
  },
  export: {
    summary: "Export a page of the app's attributed events",
    description:
      "One page of the key's app's events with `event_time` at or after `timestamp`, ordered " +
      "by `event_time`, then `event_id`; each `event_id` appears once. The first request of " +
      "an export takes a snapshot of the window, and every page with the same `timestamp` " +
      "slices it for a while (15 minutes by default), so pages neither repeat nor skip events " +
      "while new ones arrive. The answer is streamed in the format `format` asks for; the " +
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
        `${MAX_LIMIT}, or \`offset\` negative. The detail names it.`,
      500: INTERNAL,
    },
  },
  openapi: {
    summary: "Get this document",
    description:
      "The OpenAPI 3.1 document of this API, generated from the service's own schemas. " +
      "Public: no key needed. The repository holds the same document as spec/openapi.json.",
    success: {
      status: 200,
      description: "The document.",
      content: { [JSON_MEDIA_TYPE]: openApiDocumentSchema },
    },
    errors: { 500: INTERNAL },
  },
};
