/**
 * Reading an engine's csv page (src/export/formats/csv.ts, DuckDB's page alike) into another
 * markup, as xml and xlsx do on DuckDB: each line is handed to the format's byte writer, which
 * copies the line's own bytes between fixed tags when it can; a record it declines (a quoted
 * field, a character to escape) is read into fields and written as a string instead.
 */

import { Readable, type Writable } from "node:stream";
import type { BufferReadableBody, SelfSendingBody } from "../../ports/lake.ts";
import { sendParts } from "./send-parts.ts";

/** How a format writes the records of a csv page. */
export interface CsvPageMarkup {
  readonly head: string;
  readonly tail: string;
  /** The most bytes a record's markup adds to its line's. */
  readonly tagBytes: number;
  /**
   * The record on the line from `start` to `end` (its line feed) written into `out` from `at`,
   * which has room for the line and `tagBytes`: the end of what it wrote, or -1 to have the
   * record read into fields and given to `record`. `index` counts records from 0.
   */
  line(csv: Buffer, start: number, end: number, index: number, out: Buffer, at: number): number;
  /** A record the line writer declined: null for an unquoted empty field. */
  record(fields: readonly (string | null)[], index: number): string;
}

const QUOTE = 0x22;
export const COMMA = 0x2c;
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

// The output leaves in parts of about this size; a body read into buffers is read this much
// at a time.
const PART_BYTES = 256 * 1024;

/**
 * The bytes of a page a window at a time: each is what was left of the last (`rest`, the start
 * of a record not yet whole) and the bytes after it; undefined at the end.
 */
type Windows = (rest: Buffer | undefined) => Promise<Buffer | undefined>;

/** A stream's windows: each chunk, after the rest of the last copied before it. */
const streamWindows = (csv: AsyncIterable<Buffer>): Windows => {
  const chunks = csv[Symbol.asyncIterator]();
  return async (rest) => {
    const next = await chunks.next();
    if (next.done) return undefined;
    return rest ? Buffer.concat([rest, next.value]) : next.value;
  };
};

/**
 * A body's windows read into one buffer, the rest moved to its start: a page's bytes in fresh
 * buffers outside V8's heap made it mark the whole heap again every few pages.
 */
const readWindows = (body: BufferReadableBody): Windows => {
  let buffer = Buffer.allocUnsafeSlow(PART_BYTES);
  return async (rest) => {
    const kept = rest?.length ?? 0;
    if (rest && kept === buffer.length) {
      // A record longer than the buffer: a larger one.
      const larger = Buffer.allocUnsafeSlow(2 * buffer.length);
      rest.copy(larger);
      buffer = larger;
    } else if (rest) buffer.copyWithin(0, rest.byteOffset - buffer.byteOffset, buffer.length);
    const read = await body.readInto(buffer, kept, buffer.length - kept);
    return read === 0 ? undefined : buffer.subarray(0, kept + read);
  };
};

const readsIntoBuffers = (body: object): body is BufferReadableBody =>
  typeof (body as Partial<BufferReadableBody>).readInto === "function";

/**
 * The markup of a csv page, from its bytes (the header line first, skipped: the head holds the
 * columns), read as they are read: into a buffer of its own from a body that can
 * (BufferReadableBody), else as a stream. With `buffers`, the parts are written into that many
 * buffers in turn: each part is only good until as many more are asked for.
 */
export async function* fromCsvPage(
  csv: AsyncIterable<Buffer>,
  markup: CsvPageMarkup,
  { buffers = 0 } = {},
): AsyncGenerator<Buffer> {
  const fresh = (bytes: number) => Buffer.allocUnsafe(Math.max(2 * PART_BYTES, bytes));
  const ring: Buffer[] = [];
  let turn = 0;
  /** The buffer for the next part, with room for `bytes`. */
  const nextBuffer = (bytes: number): Buffer => {
    if (buffers === 0) return fresh(bytes);
    turn = (turn + 1) % buffers;
    const buffer = ring[turn];
    if (buffer && buffer.length >= bytes) return buffer;
    const larger = fresh(bytes);
    ring[turn] = larger;
    return larger;
  };
  const windows = readsIntoBuffers(csv) ? readWindows(csv) : streamWindows(csv);
  let out = nextBuffer(0);
  let at = out.write(markup.head, "utf8");
  let rest: Buffer | undefined;
  let header = true;
  let index = 0;
  try {
    for (let bytes = await windows(rest); bytes; bytes = await windows(rest)) {
      let start = 0;
      for (let end = bytes.indexOf(LINE_FEED); end !== -1; end = bytes.indexOf(LINE_FEED, start)) {
        if (header) {
          header = false;
          start = end + 1;
          continue;
        }
        // A line longer than the room left is rare, and takes the strings' way.
        let written =
          out.length - at >= end - start + markup.tagBytes
            ? markup.line(bytes, start, end, index, out, at)
            : -1;
        if (written < 0) {
          // A quoted field may hold line feeds: the record may end after this line, or after
          // this window.
          const record = csvRecord(bytes, start);
          if (!record) break;
          const text = Buffer.from(markup.record(record.fields, index), "utf8");
          if (out.length - at < text.length) {
            yield out.subarray(0, at);
            out = nextBuffer(text.length);
            at = 0;
          }
          written = at + text.copy(out, at);
          start = record.next;
        } else start = end + 1;
        at = written;
        index++;
        if (at >= PART_BYTES) {
          yield out.subarray(0, at);
          out = nextBuffer(0);
          at = 0;
        }
      }
      rest = start < bytes.length ? bytes.subarray(start) : undefined;
    }
  } finally {
    // Read to its end, a stream or a body lets go of its file itself; not so when the reader
    // of the markup stops early.
    if (csv instanceof Readable) csv.destroy();
  }
  if (rest) throw new Error("the csv page ends inside a record");
  yield Buffer.concat([out.subarray(0, at), Buffer.from(markup.tail, "utf8")]);
}

/**
 * A csv page's markup as a body. Read as a stream, its parts are fresh buffers; sent by the
 * embedded gateway (`sendTo`), they are written into one buffer again once the socket has
 * taken each, and the page is read into one buffer too: a page then allocates next to nothing.
 */
export class CsvPageMarkupBody extends Readable implements SelfSendingBody {
  #parts: AsyncGenerator<Buffer> | undefined;

  constructor(
    private readonly csv: Readable,
    private readonly markup: CsvPageMarkup,
  ) {
    super({ highWaterMark: PART_BYTES });
  }

  override _read(): void {
    this.#parts ??= fromCsvPage(this.csv, this.markup);
    this.#parts.next().then(
      ({ done, value }) => this.push(done ? null : value),
      (error: Error) => this.destroy(error),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Stopping the parts closes the page; a body never read closes it here.
    this.csv.destroy();
    if (!this.#parts) {
      callback(error);
      return;
    }
    this.#parts.return(undefined).then(
      () => callback(error),
      (stopError: Error) => callback(error ?? stopError),
    );
  }

  /** Writes the markup to `destination` and ends it; the page is closed either way. */
  async sendTo(destination: Writable): Promise<void> {
    try {
      await sendParts(fromCsvPage(this.csv, this.markup, { buffers: 1 }), destination);
    } finally {
      this.destroy();
    }
  }
}

/** The length of the longest of `runs` (a format's tags): room a record's markup may need. */
export const longest = (runs: readonly Uint8Array[]): number =>
  Math.max(...runs.map((run) => run.length));

/** `bytes` (a tag) copied into `out` at `at`: the end. */
export const putBytes = (out: Buffer, at: number, bytes: Uint8Array): number => {
  out.set(bytes, at);
  return at + bytes.length;
};

/** In a table of declined bytes: the byte declines its field wherever it is. */
const DECLINES = 1;
/**
 * In a table of declined bytes: the underscore declines its field only where it begins text
 * shaped like the sheet format's escapes, `_xHHHH_` (ECMA-376's ST_Xstring), which a
 * spreadsheet would read as another character: xlsx writes that text escaped in turn.
 */
const BEGINS_SHEET_ESCAPE = 2;
const UNDERSCORE = 0x5f;

/**
 * The bytes of a csv line that make the formats decline it: the quote (a quoted field), C0
 * controls, the characters XML escapes, and 0xEF, the first byte of U+FFFE and U+FFFF (and of
 * the rest of U+F000 to U+FFFF: rare). A line without any is a record of unquoted fields whose
 * text needs no escaping: DuckDB's text is well-formed UTF-8.
 */
export const XML_DECLINED = new Uint8Array(256);
for (let byte = 0; byte < 0x20; byte++) XML_DECLINED[byte] = DECLINES;
for (const character of `"&'<>`) XML_DECLINED[character.charCodeAt(0)] = DECLINES;
XML_DECLINED[0xef] = DECLINES;

/**
 * xlsx's: XML's, and text shaped like the sheet's escapes. Underscores themselves are common
 * (event names, identifiers), so only the rare one that begins `_xHHHH_` declines the line.
 */
export const SHEET_DECLINED = Uint8Array.from(XML_DECLINED);
SHEET_DECLINED[UNDERSCORE] = BEGINS_SHEET_ESCAPE;

const isHexDigit = (byte: number) =>
  (byte >= 0x30 && byte <= 0x39) ||
  (byte >= 0x41 && byte <= 0x46) ||
  (byte >= 0x61 && byte <= 0x66);

/** Whether `_xHHHH_` begins at `k` (an underscore) before `end`; a comma is no part of it. */
const beginsSheetEscape = (csv: Buffer, k: number, end: number): boolean =>
  k + 6 < end &&
  csv[k + 1] === 0x78 &&
  isHexDigit(csv[k + 2] as number) &&
  isHexDigit(csv[k + 3] as number) &&
  isHexDigit(csv[k + 4] as number) &&
  isHexDigit(csv[k + 5] as number) &&
  csv[k + 6] === UNDERSCORE;

/**
 * Copies the unquoted csv field at `from` (up to its comma, or `end`) into `out` at `to`: where
 * the copy ends, or -1 for a field with a byte the format's table (`declined`) declines. A
 * field is its bytes as they are, so it ends at `from` plus what was copied. A loop: most
 * fields are a few bytes, and a native copy of each cost more in calls than it saved.
 */
export function copyField(
  csv: Buffer,
  from: number,
  end: number,
  out: Buffer,
  to: number,
  declined: Uint8Array,
) {
  let at = to;
  for (let k = from; k < end; k++) {
    const byte = csv[k] as number;
    if (byte === COMMA) break;
    const mark = declined[byte];
    if (mark && (mark === DECLINES || beginsSheetEscape(csv, k, end))) return -1;
    out[at++] = byte;
  }
  return at;
}
