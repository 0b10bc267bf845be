/**
 * Athena's SELECT result: one CSV file with a header, every value quoted, NULL written as an
 * unquoted empty field (so `,,` is NULL and `,"",` is the empty string). Rows are parsed as a
 * stream and typed from EXPORT_COLUMNS, the only list of export columns.
 */
import { pipeline, type Readable } from "node:stream";
import { type CastingFunction, parse } from "csv-parse";
import { COLUMN_NAMES, EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";

export interface CsvRow {
  readonly fields: readonly (string | null)[];
  /** Bytes from the start of the stream to the end of this row: where the next row starts. */
  readonly end: number;
}

// The quoting flag is the only thing telling NULL from the empty string.
const nullAware: CastingFunction = (value, context) =>
  value === "" && !context.quoting ? null : value;

const toRow = (chunk: unknown): CsvRow => {
  // With `info: true` csv-parse emits { record, info }; its stream is typed `any`, so check.
  if (typeof chunk === "object" && chunk !== null && "record" in chunk && "info" in chunk) {
    const { record, info } = chunk;
    if (
      Array.isArray(record) &&
      typeof info === "object" &&
      info !== null &&
      "bytes" in info &&
      typeof info.bytes === "number"
    ) {
      return {
        fields: record.map((field: unknown) => (field === null ? null : String(field))),
        end: info.bytes,
      };
    }
  }
  throw new Error("Unexpected csv-parse output");
};

/**
 * Parses a CSV stream row by row. Stopping the iteration destroys the source, so a caller that
 * has what it needs stops the S3 download there.
 */
export async function* csvRows(source: Readable): AsyncGenerator<CsvRow> {
  // `info.bytes` at each record is the byte offset just past its row delimiter.
  const parser = parse({ cast: nullAware, info: true });
  // Errors of either stream reach the loop below through the parser; the callback has nothing
  // left to do (it also sees the premature close of an early stop, which is intended).
  pipeline(source, parser, () => {});
  try {
    for await (const chunk of parser) yield toRow(chunk);
  } finally {
    source.destroy();
  }
}

/** Throws unless the header names the export columns, in order. */
export const assertHeader = (fields: readonly (string | null)[]): void => {
  const matches =
    fields.length === COLUMN_NAMES.length && fields.every((name, i) => name === COLUMN_NAMES[i]);
  if (!matches) {
    throw new Error(
      `Athena result header does not match the export columns: got ${JSON.stringify(fields)}`,
    );
  }
};

const INTEGER = /^-?\d+$/;
// Trino writes doubles either plainly or in scientific notation ("1.0E-4").
const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

const numberFrom = (name: string, value: string, integer: boolean): number => {
  const parsed = Number(value);
  const valid = integer
    ? INTEGER.test(value) && Number.isSafeInteger(parsed)
    : DECIMAL.test(value) && Number.isFinite(parsed);
  if (!valid) throw new Error(`Athena result column ${name} is not a number: ${value}`);
  return parsed;
};

/** One data row as a typed export record. */
export const toExportRecord = (fields: readonly (string | null)[]): ExportRecord => {
  if (fields.length !== EXPORT_COLUMNS.length) {
    throw new Error(
      `Athena result row has ${fields.length} fields, expected ${EXPORT_COLUMNS.length}`,
    );
  }
  const record: Record<string, string | number | null> = {};
  EXPORT_COLUMNS.forEach((column, i) => {
    const value = fields[i] ?? null;
    record[column.name] =
      value === null || column.type === "string"
        ? value
        : numberFrom(column.name, value, column.type === "integer");
  });
  // Keys and value types come from EXPORT_COLUMNS above, which ExportRecord is derived from;
  // TypeScript cannot follow that through a loop.
  return record as ExportRecord;
};
