import { pipeline, type Readable, Transform } from "node:stream";
import { EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import { type FormatWriter, textStream } from "./writer.ts";

// The keys are fixed, so their JSON text is built once; per record only values are encoded.
const FIELDS = EXPORT_COLUMNS.map((column, i) => ({
  name: column.name,
  prefix: `${i === 0 ? "{" : ","}${JSON.stringify(column.name)}:`,
}));

/**
 * One record as a JSON object: every column, in column order (JSON.stringify would follow
 * the object's own key order and drop undefined fields).
 */
export function jsonRecord(row: ExportRecord): string {
  let out = "";
  for (const field of FIELDS) out += field.prefix + JSON.stringify(row[field.name] ?? null);
  return `${out}}`;
}

const HEAD = '{"data":[';
// The count is only known at the end, which is why it follows the data.
const tail = (count: number) => `],"total_count":${count}}`;

const NEWLINE = 0x0a;
const COMMA = 0x2c;

/**
 * The envelope around newline-delimited JSON records: every line end becomes the comma between
 * two records (JSON text never holds a raw line feed, so each one ends a record), and the last
 * one, held back until the end, is dropped.
 */
export function jsonFromNdjson(ndjson: Readable, rowCount: number): Readable {
  let held: Buffer | undefined;
  const envelope = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (held === undefined) this.push(HEAD);
      else this.push(held);
      const body = Buffer.from(chunk);
      for (let i = body.indexOf(NEWLINE); i !== -1; i = body.indexOf(NEWLINE, i + 1)) {
        body[i] = COMMA;
      }
      held = body.subarray(body.length - 1);
      done(null, body.subarray(0, body.length - 1));
    },
    flush(done) {
      if (held === undefined) this.push(HEAD);
      else if (held[0] !== COMMA) this.push(held);
      done(null, tail(rowCount));
    },
  });
  // Either side failing or closing early destroys the other: a failed read never ends the
  // envelope as if it were complete, and a consumer gone releases the source.
  return pipeline(ndjson, envelope, () => undefined);
}

export const json: FormatWriter = {
  contentType: "application/json; charset=utf-8",
  extension: "json",
  attachment: false,
  write: (rows) =>
    textStream(rows, {
      head: HEAD,
      record: (row, index) => (index === 0 ? "" : ",") + jsonRecord(row),
      tail,
    }),
  engineEncoding: { encoding: "ndjson", frame: jsonFromNdjson },
};
