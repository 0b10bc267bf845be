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

export const xml: FormatWriter = {
  contentType: "application/xml; charset=utf-8",
  extension: "xml",
  attachment: true,
  write: (rows) => textStream(rows, { head: HEAD, record: xmlRecord, tail: () => "</events>\n" }),
};
