/** The export's query parameters (spec, "Export endpoint"), parsed once with zod. */
import * as z from "zod";
import { EXPORT_FORMATS } from "./formats/names.ts";

export const MAX_LIMIT = 10_000;

/** 9999-12-31T23:59:59Z: the last second a timestamp can name as an ISO 8601 date. */
export const MAX_TIMESTAMP = 253_402_300_799;

// Query values are strings; only plain base-10 integers are accepted ("1e3", "5.0" are not).
const integer = (name: string, rule: string) =>
  z
    .string({ error: `${name} must be ${rule}.` })
    .regex(/^-?\d{1,16}$/, { error: `${name} must be ${rule}.` })
    .transform(Number);

export const exportParamsSchema = z.object({
  timestamp: z
    .string({ error: "timestamp is required: the window's start in Unix seconds." })
    .pipe(integer("timestamp", "an integer number of Unix seconds, 0 or more"))
    .pipe(
      z
        .number()
        .min(0, { error: "timestamp must be an integer number of Unix seconds, 0 or more." })
        .max(MAX_TIMESTAMP, { error: `timestamp must be at most ${MAX_TIMESTAMP} (year 9999).` }),
    ),
  format: z
    .enum(EXPORT_FORMATS, { error: `format must be one of ${EXPORT_FORMATS.join(", ")}.` })
    .default("json"),
  limit: integer("limit", `an integer from 1 to ${MAX_LIMIT}`)
    .pipe(
      z
        .number()
        .min(1, { error: `limit must be an integer from 1 to ${MAX_LIMIT}.` })
        .max(MAX_LIMIT, { error: `limit must be an integer from 1 to ${MAX_LIMIT}.` }),
    )
    .default(MAX_LIMIT),
  offset: integer("offset", "an integer of 0 or more")
    .pipe(
      z
        .number()
        .min(0, { error: "offset must be an integer of 0 or more." })
        .max(Number.MAX_SAFE_INTEGER, { error: "offset must be an integer of 0 or more." }),
    )
    .default(0),
});

export type ExportParams = z.infer<typeof exportParamsSchema>;
