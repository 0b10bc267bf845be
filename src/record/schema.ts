import * as z from "zod";
import { EXPORT_COLUMNS, type ExportRecord, type ExportType } from "./columns.ts";

const zodFor: Record<ExportType, () => z.ZodType> = {
  string: () => z.string().nullable(),
  integer: () => z.int().nullable(),
  number: () => z.number().nullable(),
};

/** Strict zod schema of one exported record, derived from the column list. */
export const exportRecordSchema = z.strictObject(
  Object.fromEntries(EXPORT_COLUMNS.map((c) => [c.name, zodFor[c.type]()])),
) as unknown as z.ZodType<ExportRecord>;
