import { pipeline, Readable } from "node:stream";
import { stringify } from "csv-stringify";
import { COLUMN_NAMES } from "../../record/columns.ts";
import type { FormatWriter } from "./writer.ts";

function delimited(delimiter: string, contentType: string, extension: string): FormatWriter {
  return {
    contentType,
    extension,
    attachment: true,
    write(rows) {
      const stringifier = stringify({
        header: true,
        columns: [...COLUMN_NAMES],
        delimiter,
        // Passing record_delimiter turns quote_record_delimiter off by default, which would
        // leave a value holding a lone "\r" unquoted (readers take it as a line end).
        record_delimiter: "unix",
        quote_record_delimiter: true,
        // null and undefined are written as an empty cell; an empty string is quoted ("") so
        // readers that tell the two apart (e.g. DuckDB with allow_quoted_nulls=false) can.
        quoted_match: /^$/,
      });
      // pipeline keeps backpressure from the consumer back to the row source, destroys
      // the stringifier with the source's error, and stops the source if the consumer
      // goes away; both outcomes are observed on the returned stream, so the callback is empty.
      return pipeline(Readable.from(rows), stringifier, () => {});
    },
  };
}

export const csv = delimited(",", "text/csv; charset=utf-8", "csv");
export const tsv = delimited("\t", "text/tab-separated-values; charset=utf-8", "tsv");
