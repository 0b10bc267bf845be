import { Readable } from "node:stream";
import type { EngineEncoding } from "../../ports/lake.ts";
import type { ExportRecord } from "../../record/columns.ts";

export interface FormatWriter {
  readonly contentType: string;
  readonly extension: string;
  /** Sent as a download (Content-Disposition: attachment) rather than shown inline. */
  readonly attachment: boolean;
  /** Encodes the rows as they arrive; never holds the whole output (or all rows) in memory. */
  write(rows: AsyncIterable<ExportRecord>): Readable;
  /**
   * Set when a lake engine that writes `encoding` itself can produce this format: the engine's
   * bytes, framed, read back the same values as `write` gives.
   */
  readonly engineEncoding?: {
    readonly encoding: EngineEncoding;
    /** Wraps the engine's bytes of `rowCount` records, when the format adds to them. */
    frame?(body: Readable, rowCount: number): Readable;
  };
}

/** Encodings a lake engine may write from inside itself: see the lake port (src/ports/lake.ts). */
export type { EngineEncoding };

/** How a text format wraps its records. */
export interface TextFraming {
  readonly head: string;
  /** Encodes one record; `index` is its 0-based position, for separators. */
  record(row: ExportRecord, index: number): string;
  tail(count: number): string;
}

// One push per record would cost more in stream bookkeeping than the encoding itself, and
// a consumer such as an HTTP response would issue a write per push; a few KB per chunk keeps
// both cheap while the first bytes still leave after a handful of records.
const CHUNK_CHARS = 8 * 1024;

/**
 * A byte stream of a text format. Readable.from pulls the generator only while the
 * consumer wants data, and an error thrown by the source destroys the stream with it.
 */
export function textStream(rows: AsyncIterable<ExportRecord>, framing: TextFraming): Readable {
  return Readable.from(encodeText(rows, framing), { objectMode: false });
}

/**
 * The text of a format as UTF-8 chunks of about `chunkChars` characters, pulling rows only as
 * it is read.
 */
export async function* encodeText(
  rows: AsyncIterable<ExportRecord>,
  framing: TextFraming,
  chunkChars = CHUNK_CHARS,
): AsyncGenerator<Buffer> {
  let pending = framing.head;
  let count = 0;
  for await (const row of rows) {
    pending += framing.record(row, count++);
    if (pending.length >= chunkChars) {
      yield Buffer.from(pending, "utf8");
      pending = "";
    }
  }
  yield Buffer.from(pending + framing.tail(count), "utf8");
}
