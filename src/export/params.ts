/** The export's query parameters (docs/export.md#request), parsed once with zod. */
import * as z from "zod";
import { EXPORT_FORMATS } from "./formats/names.ts";
import { MAX_LIMIT, MAX_TIMESTAMP, SNAPSHOT_HEADER } from "./paging.ts";

// Query values are strings; only plain base-10 integers are accepted ("1e3", "5.0" are not).
// Messages are the rule alone: the formatter puts the parameter's name before each.
const integer = (rule: string) =>
  z
    .string({ error: `must be ${rule}` })
    .regex(/^-?\d{1,16}$/, { error: `must be ${rule}` })
    .transform(Number);

export const exportParamsSchema = z.object({
  timestamp: z
    .string({ error: "is required: the window's start in Unix seconds" })
    .pipe(integer("an integer number of Unix seconds, 0 or more"))
    .pipe(
      z
        .number()
        .min(0, { error: "must be an integer number of Unix seconds, 0 or more" })
        .max(MAX_TIMESTAMP, { error: `must be at most ${MAX_TIMESTAMP} (year 9999)` }),
    ),
  format: z
    .enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(", ")}` })
    .default("json"),
  limit: integer(`an integer from 1 to ${MAX_LIMIT}`)
    .pipe(
      z
        .number()
        .min(1, { error: `must be an integer from 1 to ${MAX_LIMIT}` })
        .max(MAX_LIMIT, { error: `must be an integer from 1 to ${MAX_LIMIT}` }),
    )
    .default(MAX_LIMIT),
  offset: integer("an integer of 0 or more")
    .pipe(
      z
        .number()
        .min(0, { error: "must be an integer of 0 or more" })
        .max(Number.MAX_SAFE_INTEGER, { error: "must be an integer of 0 or more" }),
    )
    .default(0),
  snapshot: z
    .uuid({
      error: `must be the ${SNAPSHOT_HEADER} of an earlier page of this window: start the export again without it, at offset 0`,
    })
    .optional(),
});

export type ExportParams = z.infer<typeof exportParamsSchema>;
