/**
 * How DuckDB's COPY writes a page in each encoding it shares with the service's own writers
 * (src/export/formats), so both read back as the same values.
 */

import { ROW_GROUP_SIZE } from "../../export/formats/parquet.ts";
import type { EngineEncoding } from "../../export/formats/writer.ts";
import { XLSX_COLUMN_LETTERS } from "../../export/formats/xlsx.ts";
import { XML_ELEMENTS } from "../../export/formats/xml.ts";
import { sqlString } from "../../lake/export-query.ts";
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

/** Characters XML 1.0 cannot carry, CR aside: escapeXmlText drops them. */
const XML_DROPPED = "[\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x{FFFE}\\x{FFFF}]";
/** What escapeXmlText changes: & < > " ' and the C0 controls other than tab and LF. */
const XML_SPECIAL = `[&<>"'\\x00-\\x08\\x0B-\\x1F\\x{FFFE}\\x{FFFF}]`;

/**
 * A text column as escapeXmlText writes it (src/export/formats/xml.ts): & < > " ' as entities,
 * CR as a character reference, the characters XML cannot carry dropped.
 */
const xmlText = (expr: string): string =>
  `regexp_replace(replace(replace(replace(replace(replace(replace(${expr},
    '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&apos;'),
    chr(13), '&#13;'), ${sqlString(XML_DROPPED)}, '', 'g')`;

/** An `<event>` with an element per column, its text columns' values through `text`. */
const xmlRecord = (text: (expr: string) => string): string =>
  `concat('<event>', ${EXPORT_COLUMNS.map((column, i) => {
    const element = XML_ELEMENTS[i];
    if (element?.name !== column.name) throw new Error(`no XML element for ${column.name}`);
    const value =
      column.type === "string"
        ? text(column.name)
        : column.type === "number"
          ? jsNumberText(column.name)
          : `CAST(${column.name} AS VARCHAR)`;
    return `CASE WHEN ${column.name} IS NULL THEN ${sqlString(element.nil)}
      ELSE concat(${sqlString(element.open)}, ${value}, ${sqlString(element.close)}) END`;
  }).join(",\n  ")}, '</event>')`;

const TEXT_COLUMN_NAMES = EXPORT_COLUMNS.filter((column) => column.type === "string").map(
  (column) => column.name,
);

/** Whether any text of the row holds a character that XML escapes or drops. */
const HAS_XML_SPECIAL = `regexp_matches(concat(${TEXT_COLUMN_NAMES.join(", ")}), ${sqlString(XML_SPECIAL)})`;

/**
 * A record as the xml writer writes it, a line. Most rows hold nothing to escape: one search
 * of the row's text finds those that do, and costs far less than replacing in every value.
 */
const XML_RECORD = `CASE WHEN ${HAS_XML_SPECIAL}
  THEN ${xmlRecord(xmlText)}
  ELSE ${xmlRecord((expr) => expr)} END`;

/** A sheet row's number: the header is row 1, a page's first record row 2. */
const SHEET_ROW = "CAST(page_row + 2 AS VARCHAR)";

/** Whitespace readers trim from a cell's ends unless told to keep it. */
const EDGE_SPACE = "[ \\t\\n]";

/**
 * Whether any text of the row starts or ends with whitespace (its values joined by a control
 * character, which sends a row that holds one to the careful branch anyway).
 */
const HAS_EDGE_SPACE = `regexp_matches(concat_ws(chr(1), ${TEXT_COLUMN_NAMES.join(", ")}),
  ${sqlString(`(^|\\x01)${EDGE_SPACE}|${EDGE_SPACE}(\\x01|$)`)})`;

/**
 * An inline string cell as the xlsx writer writes it (src/export/formats/xlsx.ts), with
 * xml:space="preserve" where `edges` says readers would trim the text's ends.
 */
const xlsxTextCell = (ref: string, text: string, edges: boolean): string => {
  const open = edges
    ? `CASE WHEN regexp_matches(${text}, ${sqlString(`^(${EDGE_SPACE}|&#13;)|(${EDGE_SPACE}|&#13;)$`)})
        THEN '<t xml:space="preserve">' ELSE '<t>' END`
    : "'<t>'";
  return `concat('<c r="', ${ref}, '" t="inlineStr"><is>', ${open}, ${text}, '</t></is></c>')`;
};

/** A `<row>` of the xlsx writer: a cell per column that is not null. */
const xlsxRow = (text: (expr: string) => string, edges: boolean): string =>
  `concat('<row r="', ${SHEET_ROW}, '">', ${EXPORT_COLUMNS.map((column, i) => {
    const ref = `${sqlString(XLSX_COLUMN_LETTERS[i] ?? "")}, ${SHEET_ROW}`;
    const cell =
      column.type === "string"
        ? xlsxTextCell(ref, text(column.name), edges)
        : `concat('<c r="', ${ref}, '"><v>', ${
            column.type === "number" ? jsNumberText(column.name) : `CAST(${column.name} AS VARCHAR)`
          }, '</v></c>')`;
    return `CASE WHEN ${column.name} IS NULL THEN '' ELSE ${cell} END`;
  }).join(",\n  ")}, '</row>')`;

/**
 * The sheet's row of a record, a line. Rows with nothing to escape and no whitespace at a
 * text's ends, nearly all, take the short branch.
 */
const XLSX_ROW = `CASE WHEN ${HAS_XML_SPECIAL} OR ${HAS_EDGE_SPACE}
  THEN ${xlsxRow(xmlText, true)}
  ELSE ${xlsxRow((expr) => expr, false)} END`;

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
  // A record a line, written as it is: no delimiter, quote or escape applies.
  xml: {
    select: `${XML_RECORD} AS record`,
    options: "FORMAT csv, HEADER false, QUOTE '', ESCAPE ''",
  },
  xlsx: {
    select: `${XLSX_ROW} AS sheet_row`,
    options: "FORMAT csv, HEADER false, QUOTE '', ESCAPE ''",
  },
  parquet: {
    select: COLUMNS,
    options: `FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${ROW_GROUP_SIZE}`,
  },
};
