/**
 * xml: an <events> document, an <event> a record, an element a column in column order; null as
 * an empty element with xsi:nil="true", text escaped as XML 1.0 character data, numbers as
 * JavaScript writes them. On DuckDB it is made from the engine's csv page (xmlFromCsv).
 */
import { Readable } from "node:stream";
import { EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
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

const QUOTE = 0x22;
const COMMA = 0x2c;
const LINE_FEED = 0x0a;

/**
 * One record of an RFC 4180 csv page from `start` (quotes doubled inside quoted fields, which may
 * hold commas and line breaks; "\n" ends a record): its fields, null for an unquoted empty one,
 * and where the next record starts; undefined when `bytes` ends before the record does. A quote
 * is never a byte of a longer UTF-8 character, so the text between quotes decodes whole.
 */
function csvRecord(
  bytes: Buffer,
  start: number,
): { fields: (string | null)[]; next: number } | undefined {
  const fields: (string | null)[] = [];
  let k = start;
  for (;;) {
    if (bytes[k] === QUOTE) {
      let value = "";
      let from = k + 1;
      for (;;) {
        const quote = bytes.indexOf(QUOTE, from);
        // Whether a quote closes the field is told by the byte after it.
        if (quote === -1 || quote + 1 >= bytes.length) return undefined;
        value += bytes.toString("utf8", from, quote);
        if (bytes[quote + 1] !== QUOTE) {
          k = quote + 1;
          break;
        }
        value += '"';
        from = quote + 2;
      }
      fields.push(value);
    } else {
      let end = k;
      while (end < bytes.length && bytes[end] !== COMMA && bytes[end] !== LINE_FEED) end++;
      fields.push(end === k ? null : bytes.toString("utf8", k, end));
      k = end;
    }
    if (k >= bytes.length) return undefined;
    if (bytes[k] === LINE_FEED) return { fields, next: k + 1 };
    if (bytes[k] !== COMMA) throw new Error("a csv page field with text after its closing quote");
    k++;
  }
}

const ascii = (text: string) => Buffer.from(text, "latin1");
const OPEN_BYTES = ELEMENTS.map((element) => ascii(element.open));
const CLOSE_BYTES = ELEMENTS.map((element) => ascii(element.close));
const NIL_BYTES = ELEMENTS.map((element) => ascii(element.nil));
const EVENT_OPEN = ascii("<event>");
const EVENT_CLOSE = ascii("</event>\n");
/** The most an event's tags take: the csv line's bytes and these make the event. */
const EVENT_TAGS =
  EVENT_OPEN.length +
  EVENT_CLOSE.length +
  ELEMENTS.reduce(
    (sum, _, i) =>
      sum +
      Math.max(
        (NIL_BYTES[i] as Buffer).length,
        (OPEN_BYTES[i] as Buffer).length + (CLOSE_BYTES[i] as Buffer).length,
      ),
    0,
  );

/**
 * The bytes of a csv line that send it to csvRecord and xmlFromFields: the quote (a quoted
 * field), C0 controls, the characters XML escapes, and 0xEF, the first byte of U+FFFE and
 * U+FFFF (and of the rest of U+F000 to U+FFFF: rare). A line without any is a record of
 * unquoted fields whose text needs no escaping: DuckDB's text is well-formed UTF-8.
 */
const SLOW_PATH = new Uint8Array(256);
for (let byte = 0; byte < 0x20; byte++) SLOW_PATH[byte] = 1;
for (const character of `"&'<>`) SLOW_PATH[character.charCodeAt(0)] = 1;
SLOW_PATH[0xef] = 1;

const put = (out: Buffer, at: number, bytes: Uint8Array): number => {
  for (let k = 0; k < bytes.length; k++) out[at + k] = bytes[k] as number;
  return at + bytes.length;
};
/** Where each field of the line being written ends (its comma, or the line's end). */
const fieldEnds = new Int32Array(COLUMN_COUNT);

/**
 * xmlFromFields's event for the csv line from `start` to `end` (its line feed), written as
 * bytes into `out` from `at` (which has room for the line and EVENT_TAGS): the end of what it
 * wrote, or -1 for a line that needs csvRecord. Strings per field and per tag would be most of
 * the work; the line's own bytes are the elements' text.
 */
function csvLineXml(csv: Buffer, start: number, end: number, out: Buffer, at: number): number {
  let fields = 0;
  for (let k = start; k < end; k++) {
    const byte = csv[k] as number;
    if (SLOW_PATH[byte]) return -1;
    if (byte === COMMA) {
      if (fields === COLUMN_COUNT - 1) return -1;
      fieldEnds[fields++] = k;
    }
  }
  if (fields !== COLUMN_COUNT - 1) return -1;
  fieldEnds[fields] = end;
  let to = put(out, at, EVENT_OPEN);
  for (let i = 0, from = start; i < COLUMN_COUNT; from = (fieldEnds[i++] as number) + 1) {
    const fieldEnd = fieldEnds[i] as number;
    if (fieldEnd === from) {
      to = put(out, to, NIL_BYTES[i] as Buffer);
      continue;
    }
    to = put(out, to, OPEN_BYTES[i] as Buffer);
    if (fieldEnd - from > 32) to += csv.copy(out, to, from, fieldEnd);
    else for (let k = from; k < fieldEnd; k++) out[to++] = csv[k] as number;
    to = put(out, to, CLOSE_BYTES[i] as Buffer);
  }
  return put(out, to, EVENT_CLOSE);
}

// The document leaves in parts of about this size.
const XML_FROM_CSV_BYTES = 256 * 1024;

/**
 * The document from the bytes of a csv page, its header line first, read as it is read: the
 * same bytes as the writer makes from the page's records.
 */
export async function* xmlFromCsv(csv: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let out = Buffer.allocUnsafe(2 * XML_FROM_CSV_BYTES);
  let at = out.write(HEAD, "utf8");
  let partial: Buffer | undefined;
  let header = true;
  for await (const chunk of csv) {
    const bytes = partial ? Buffer.concat([partial, chunk]) : chunk;
    let start = 0;
    for (let end = bytes.indexOf(LINE_FEED); end !== -1; end = bytes.indexOf(LINE_FEED, start)) {
      if (header) {
        // The column names, already the elements' names.
        header = false;
        start = end + 1;
        continue;
      }
      // Room for the event: the line and its tags; a longer line is rare, and takes the
      // strings' way like a line with quotes.
      let written =
        out.length - at >= end - start + EVENT_TAGS ? csvLineXml(bytes, start, end, out, at) : -1;
      if (written < 0) {
        // A quoted field may hold line feeds: the record may end after this line, or after
        // this chunk.
        const record = csvRecord(bytes, start);
        if (!record) break;
        const event = Buffer.from(xmlFromFields(record.fields), "utf8");
        if (out.length - at < event.length) {
          yield out.subarray(0, at);
          out = Buffer.allocUnsafe(Math.max(2 * XML_FROM_CSV_BYTES, event.length));
          at = 0;
        }
        written = at + event.copy(out, at);
        start = record.next;
      } else start = end + 1;
      at = written;
      if (at >= XML_FROM_CSV_BYTES) {
        yield out.subarray(0, at);
        out = Buffer.allocUnsafe(2 * XML_FROM_CSV_BYTES);
        at = 0;
      }
    }
    partial = start < bytes.length ? bytes.subarray(start) : undefined;
  }
  if (partial) throw new Error("the csv page ends inside a record");
  yield Buffer.concat([out.subarray(0, at), ascii(TAIL)]);
}

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
    frame: (body) => Readable.from(xmlFromCsv(body), { objectMode: false }),
  },
};
