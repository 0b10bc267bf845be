/**
 * How DuckDB's COPY writes a page in each encoding it shares with the service's own writers
 * (src/export/formats), so both read back as the same values.
 */

import { ROW_GROUP_SIZE } from "../../export/formats/parquet.ts";
import type { EngineEncoding } from "../../export/formats/writer.ts";
import { EXPORT_COLUMNS, type ExportColumn } from "../../record/columns.ts";

/**
 * A DOUBLE as JavaScript's String(number) writes it, as the service's csv writer does, where
 * DuckDB's csv writer gives 5 as "5.0" and 1e-7 as "1e-07". DuckDB's JSON text of a double is
 * JavaScript's (shortest round trip, plain notation from 1e-6 up to 1e21) but for a ".0" on
 * whole numbers and no "+" in a positive exponent; -0 is "0" in JavaScript.
 */
export const jsNumberText = (expr: string): string =>
  `CASE WHEN ${expr} = 0 THEN '0' ELSE regexp_replace(regexp_replace(
    CAST(to_json(${expr}) AS VARCHAR), '\\.0$', ''), 'e(\\d)', 'e+\\1') END`;

const textCell = (column: ExportColumn): string =>
  column.type === "number" ? `${jsNumberText(column.name)} AS ${column.name}` : column.name;

/**
 * A text column as the tsv writer escapes it (src/export/formats/tsv.ts): the backslash first,
 * then tab, line feed and carriage return as `\t`, `\n`, `\r`. DuckDB's string literals take a
 * backslash as itself.
 */
const tsvCell = (column: ExportColumn): string =>
  column.type === "string"
    ? `replace(replace(replace(replace(${column.name}, '\\', '\\\\'), chr(9), '\\t'),
        chr(10), '\\n'), chr(13), '\\r') AS ${column.name}`
    : textCell(column);

const COLUMNS = EXPORT_COLUMNS.map((column) => column.name).join(", ");
const TEXT_COLUMNS = EXPORT_COLUMNS.map(textCell).join(", ");
const TSV_COLUMNS = EXPORT_COLUMNS.map(tsvCell).join(", ");

/** The select list over a snapshot's typed columns, and COPY's options. */
export const PAGE_ENCODINGS: Record<EngineEncoding, { select: string; options: string }> = {
  // DuckDB already writes null as an empty cell, an empty string as "", and "\n" line ends.
  csv: { select: TEXT_COLUMNS, options: "FORMAT csv, HEADER true, DELIMITER ','" },
  // Nothing quoted: no field holds a tab or a line break once escaped.
  tsv: { select: TSV_COLUMNS, options: "FORMAT csv, HEADER true, DELIMITER '\t', QUOTE ''" },
  // Numbers stay typed: JSON reads 5.0 and 5 as the same number.
  ndjson: { select: COLUMNS, options: "FORMAT json" },
  parquet: {
    select: COLUMNS,
    options: `FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${ROW_GROUP_SIZE}`,
  },
};
