/**
 * xml: an <events> document, an <event> a record, an element a column in column order; null as
 * an empty element with xsi:nil="true", text escaped as XML 1.0 character data, numbers as
 * JavaScript writes them. On DuckDB it is made from the engine's csv page (XML_FROM_CSV).
 */
import { EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import {
  COMMA,
  type CsvPageMarkup,
  CsvPageMarkupBody,
  copyField,
  longest,
  putBytes,
  XML_DECLINED,
} from "./csv-page.ts";
import { type FormatWriter, textStream } from "./writer.ts";

const HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<events xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n';

// Column names are valid XML names, so the tags are built once rather than per value.
const ELEMENTS = EXPORT_COLUMNS.map((column) => ({
  name: column.name,
  open: `<${column.name}>`,
  close: `</${column.name}>`,
  nil: `<${column.name} xsi:nil="true"/>`,
}));

/**
 * Escapes a string as XML 1.0 character data: drops the characters XML 1.0 cannot carry at all
 * (C0 controls other than tab, newline and CR; lone surrogates; U+FFFE and U+FFFF) and escapes
 * & < > " ' and CR. CR is written as a character reference because parsers normalise a
 * literal CR (and CRLF) to LF, which would change the value.
 */
export function escapeXmlText(text: string): string {
  let out = "";
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Fast path: the common printable characters need no work.
    if (code >= 0x3f && code < 0xd800) continue;
    let replacement: string | undefined;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      replacement = "";
    } else if ((code >= 0xdc00 && code <= 0xdfff) || code === 0xfffe || code === 0xffff) {
      replacement = "";
    } else if (code < 0x20) {
      if (code === 0x0d) replacement = "&#13;";
      else if (code !== 0x09 && code !== 0x0a) replacement = "";
    } else {
      if (code === 0x26) replacement = "&amp;";
      else if (code === 0x3c) replacement = "&lt;";
      else if (code === 0x3e) replacement = "&gt;";
      else if (code === 0x22) replacement = "&quot;";
      else if (code === 0x27) replacement = "&apos;";
    }
    if (replacement !== undefined) {
      out += text.slice(start, i) + replacement;
      start = i + 1;
    }
  }
  return start === 0 ? text : out + text.slice(start);
}

function xmlRecord(row: ExportRecord): string {
  let out = "<event>";
  for (const element of ELEMENTS) {
    const value = row[element.name];
    if (value === null || value === undefined) out += element.nil;
    else {
      const text = typeof value === "string" ? escapeXmlText(value) : String(value);
      out += element.open + text + element.close;
    }
  }
  return `${out}</event>\n`;
}

const TAIL = "</events>\n";

const COLUMN_COUNT = EXPORT_COLUMNS.length;
const IS_TEXT = EXPORT_COLUMNS.map((column) => column.type === "string");

/**
 * The event of one record of the csv page, as xmlRecord writes the record: an unquoted empty
 * field is null, a quoted one the empty string (src/export/formats/csv.ts and DuckDB's page
 * both write them so), and a number is in JavaScript's text already (page-encodings.ts).
 */
function xmlFromFields(fields: readonly (string | null)[]): string {
  if (fields.length !== COLUMN_COUNT) throw new Error("a csv page record of the wrong width");
  let out = "<event>";
  for (let i = 0; i < COLUMN_COUNT; i++) {
    const element = ELEMENTS[i] as (typeof ELEMENTS)[number];
    const field = fields[i];
    if (field === null || field === undefined) out += element.nil;
    else out += element.open + (IS_TEXT[i] ? escapeXmlText(field) : field) + element.close;
  }
  return `${out}</event>\n`;
}

const ascii = (text: string) => Buffer.from(text, "latin1");
const NIL = 0;
const VALUE = 1;
/**
 * The bytes between two fields' values, as one run: the element before closed (when it holds
 * a value), then this one's opening tag or its nil element; `<event>` before the first. A copy
 * of a few bytes costs a call whatever its length, and two a field were most of the calls.
 * [the field before: NIL or VALUE][column][this field: NIL or VALUE].
 */
const BETWEEN = [NIL, VALUE].map((before) =>
  ELEMENTS.map((element, i) => {
    const opened = i === 0 ? "<event>" : before === VALUE ? (ELEMENTS[i - 1]?.close ?? "") : "";
    return [ascii(opened + element.nil), ascii(opened + element.open)];
  }),
);
/** [the last field: NIL or VALUE]: the record's end. */
const EVENT_END = [ascii("</event>\n"), ascii(`${ELEMENTS.at(-1)?.close ?? ""}</event>\n`)];

/**
 * The document from a csv page: the same bytes as the writer makes from the page's records.
 * A line whose text needs no escaping is written from its own bytes; strings per field and
 * per tag would be most of the work.
 */
const XML_FROM_CSV: CsvPageMarkup = {
  head: HEAD,
  tail: TAIL,
  tagBytes:
    longest(EVENT_END) +
    ELEMENTS.reduce(
      (sum, _, i) => sum + longest([NIL, VALUE].flatMap((before) => BETWEEN[before]?.[i] ?? [])),
      0,
    ),
  line(csv, start, end, _index, out, at) {
    let to = at;
    let before = NIL;
    let k = start;
    for (let i = 0; i < COLUMN_COUNT; i++) {
      // Past the field before's comma; a line of fewer fields is declined.
      if (i > 0 && k++ >= end) return -1;
      const runs = (BETWEEN[before] as Buffer[][])[i] as Buffer[];
      if (k === end || csv[k] === COMMA) {
        to = putBytes(out, to, runs[NIL] as Buffer);
        before = NIL;
        continue;
      }
      const text = putBytes(out, to, runs[VALUE] as Buffer);
      to = copyField(csv, k, end, out, text, XML_DECLINED);
      if (to < 0) return -1;
      k += to - text;
      before = VALUE;
    }
    // A line of more fields is declined.
    return k === end ? putBytes(out, to, EVENT_END[before] as Buffer) : -1;
  },
  record: xmlFromFields,
};

export const xml: FormatWriter = {
  contentType: "application/xml; charset=utf-8",
  extension: "xml",
  attachment: true,
  write: (rows) => textStream(rows, { head: HEAD, record: xmlRecord, tail: () => TAIL }),
  /**
   * On an engine that writes pages itself (DuckDB), the document is made from its csv page:
   * the rows arrive as lines split on commas, numbers already in JavaScript's text, rather
   * than as one JSON text each parsed into a record. Not its tsv page: tsv writes null and the
   * empty string alike, which xml tells apart (xsi:nil).
   */
  engineEncoding: {
    encoding: "csv",
    frame: (body) => new CsvPageMarkupBody(body, XML_FROM_CSV),
  },
};
