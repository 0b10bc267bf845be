import { jsonRecord } from "./json.ts";
import { type FormatWriter, textStream } from "./writer.ts";

export const ndjson: FormatWriter = {
  contentType: "application/x-ndjson",
  extension: "ndjson",
  attachment: false,
  write: (rows) =>
    textStream(rows, {
      head: "",
      record: (row) => `${jsonRecord(row)}\n`,
      tail: () => "",
    }),
  engineEncoding: { encoding: "ndjson" },
};
