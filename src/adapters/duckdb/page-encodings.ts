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
 * The tsv page's rows as one text column, each a whole line: its 25 fields escaped as the tsv
 * writer escapes them (src/export/formats/tsv.ts: the backslash first, then tab, line feed and
 * carriage return as `\t`, `\n`, `\r`; DuckDB's string literals take a backslash as itself),
 * null as an empty field, joined by tabs. The column's name is the header line.
 *
 * Why one line rather than 25 columns each escaped: the engine's page query repeats the select
 * list for each day part a page spans (seven on the bench's page), and DuckDB took longer to
 * bind and optimise 25 escaped columns per part than to run them; four `replace` calls on
 * every value also cost more than testing it, and a value with none of the four characters
 * (nearly all) is left as it is. In a lambda, the test and the escaping are bound once.
 */
const tsvText = (column: ExportColumn): string =>
  column.type === "number"
    ? jsNumberText(column.name)
    : column.type === "integer"
      ? `CAST(${column.name} AS VARCHAR)`
      : column.name;

const TSV_FIELD = `CASE WHEN contains(x, '\\') OR contains(x, chr(9)) OR contains(x, chr(10))
    OR contains(x, chr(13))
  THEN replace(replace(replace(replace(x, '\\', '\\\\'), chr(9), '\\t'), chr(10), '\\n'),
    chr(13), '\\r')
  ELSE coalesce(x, '') END`;

const TSV_LINE = `array_to_string(list_transform([${EXPORT_COLUMNS.map(tsvText).join(", ")}],
  lambda x: ${TSV_FIELD}), chr(9)) AS "${EXPORT_COLUMNS.map((column) => column.name).join("\t")}"`;

/**
 * The ndjson page's columns: a DOUBLE as a JSON value made from JavaScript's text of it
 * (jsNumberText), which DuckDB's JSON writer writes without a fraction when it has none, as
 * JSON.stringify does; its own text of a DOUBLE gives 5 as 5.0, and readers that type a number
 * by its text (Python's json: 5 an int, 5.0 a float) would type a column by the runtime. A
 * number that is not finite is null, as JSON.stringify writes it.
 */
const JSON_COLUMNS = EXPORT_COLUMNS.map((column) =>
  column.type === "number"
    ? `CASE WHEN isfinite(${column.name}) THEN CAST(${jsNumberText(column.name)} AS JSON) END AS ${column.name}`
    : column.name,
).join(", ");

const COLUMNS = EXPORT_COLUMNS.map((column) => column.name).join(", ");
const TEXT_COLUMNS = EXPORT_COLUMNS.map(textCell).join(", ");

/** The select list over a snapshot's typed columns, and COPY's options. */
export const PAGE_ENCODINGS: Record<EngineEncoding, { select: string; options: string }> = {
  // DuckDB already writes null as an empty cell, an empty string as "", and "\n" line ends;
  // xml is made from this page too (it tells null from "", which tsv does not).
  csv: { select: TEXT_COLUMNS, options: "FORMAT csv, HEADER true, DELIMITER ','" },
  // One column, the line, never quoted: its only tabs are the separators, and no field holds a
  // line break once escaped.
  tsv: { select: TSV_LINE, options: "FORMAT csv, HEADER true, DELIMITER '\t', QUOTE ''" },
  ndjson: { select: JSON_COLUMNS, options: "FORMAT json" },
  parquet: {
    select: COLUMNS,
    options: `FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${ROW_GROUP_SIZE}`,
  },
};
