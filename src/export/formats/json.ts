import { EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import { type FormatWriter, textStream } from "./writer.ts";

// The keys are fixed, so their JSON text is built once; per record only values are encoded.
const FIELDS = EXPORT_COLUMNS.map((column, i) => ({
  name: column.name,
  prefix: `${i === 0 ? "{" : ","}${JSON.stringify(column.name)}:`,
}));

/**
 * One record as a JSON object: every column, in column order (JSON.stringify would follow
 * the object's own key order and drop undefined fields).
 */
export function jsonRecord(row: ExportRecord): string {
  let out = "";
  for (const field of FIELDS) out += field.prefix + JSON.stringify(row[field.name] ?? null);
  return `${out}}`;
}

export const json: FormatWriter = {
  contentType: "application/json; charset=utf-8",
  extension: "json",
  attachment: false,
  write: (rows) =>
    textStream(rows, {
      head: '{"data":[',
      record: (row, index) => (index === 0 ? "" : ",") + jsonRecord(row),
      // The count is only known at the end, which is why it follows the data.
      tail: (count) => `],"total_count":${count}}`,
    }),
};
