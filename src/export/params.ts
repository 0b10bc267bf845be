/** The export's query parameters (docs/export.md#request), parsed once with zod. */
import * as z from "zod";
import { EXPORT_FORMATS } from "./formats/names.ts";
import { MAX_LIMIT, MAX_TIMESTAMP, SNAPSHOT_HEADER } from "./paging.ts";

// Query values are strings; only plain base-10 integers are accepted ("1e3", "5.0" are not),
// of any length: one too large is told its bound, not that it is no integer. Messages are the
// rule alone: the formatter puts the parameter's name before each.
const integer = (rule: string) =>
  z
    .string({ error: `must be ${rule}` })
    .regex(/^-?\d+$/, { error: `must be ${rule}` })
    .transform(Number);

export const exportParamsSchema = z.object({
  timestamp: z
    .string({ error: "is required: the window's start in Unix seconds" })
    .pipe(integer("an integer number of Unix seconds"))
    .pipe(
      z
        .number()
        .max(MAX_TIMESTAMP, { error: `must be at most ${MAX_TIMESTAMP} (year 9999)` })
        // A start before 1970 is a valid Unix time, and its window holds what 0's does: one
        // window, one snapshot.
        .transform((seconds) => Math.max(0, seconds)),
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
        .max(Number.MAX_SAFE_INTEGER, {
          error: `must be at most ${Number.MAX_SAFE_INTEGER}`,
        }),
    )
    .default(0),
  snapshot: z
    .uuid({
      error: `must be the ${SNAPSHOT_HEADER} of an earlier page of this window: start the export again without it, at offset 0`,
    })
    .optional(),
});

export type ExportParams = z.infer<typeof exportParamsSchema>;
