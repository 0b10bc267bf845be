/**
 * Tab-separated values as the format's convention has them (IANA's text/tab-separated-values,
 * and the text format of PostgreSQL's and MySQL's COPY): no tab, line feed or carriage return
 * inside a field, and no quoting, so a reader that splits lines on `\n` and fields on `\t`
 * reads every cell. Those three characters and the backslash are escaped with a backslash:
 * `\t`, `\n`, `\r`, `\\`. Null and the empty string are both an empty field; csv, json and
 * parquet tell them apart.
 */
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import { type FormatWriter, textStream } from "./writer.ts";

const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
};

const NEEDS_ESCAPE = /[\\\t\n\r]/g;

/** One field: an empty one for null, a number as JavaScript writes it, text escaped. */
export const tsvField = (value: string | number | null | undefined): string => {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return text.replace(NEEDS_ESCAPE, (character) => ESCAPES[character] ?? character);
};

/** What a reader does with a field: the escapes undone. */
export const unescapeTsvField = (field: string): string =>
  field.replace(/\\([\\tnr])/g, (_, code: string) =>
    code === "t" ? "\t" : code === "n" ? "\n" : code === "r" ? "\r" : "\\",
  );

const line = (row: ExportRecord) =>
  `${COLUMN_NAMES.map((name) => tsvField(row[name])).join("\t")}\n`;

export const tsv: FormatWriter = {
  contentType: "text/tab-separated-values; charset=utf-8",
  extension: "tsv",
  attachment: true,
  write: (rows) =>
    textStream(rows, { head: `${COLUMN_NAMES.join("\t")}\n`, record: line, tail: () => "" }),
  engineEncoding: { encoding: "tsv" },
};
