/**
 * A page's bytes from the file DuckDB wrote them to. Read as a stream, it is any file stream;
 * sent by the embedded gateway (`sendTo`), it goes through buffers taken from a pool and
 * reused once the socket has taken their bytes, so a page of megabytes allocates nothing; read
 * into its reader's buffers (`readInto`, as the xml and xlsx made from it are), neither. The
 * megabytes a stream allocates per page live outside V8's heap, and each page's made V8 start
 * marking the whole heap again: that, not the bytes, was most of a page's cost in the service.
 */
import type { FileHandle } from "node:fs/promises";
import { Readable, type Writable } from "node:stream";
import { sendParts } from "../../export/formats/send-parts.ts";
import type { BufferReadableBody, SelfSendingBody } from "../../ports/lake.ts";

const READ_BYTES = 256 * 1024;
/** Buffers kept for reuse: as many as pages are sent at once, within reason. */
const POOLED = 8;
const pool: Buffer[] = [];

const take = (): Buffer => pool.pop() ?? Buffer.allocUnsafeSlow(READ_BYTES);
const give = (buffer: Buffer) => {
  if (pool.length < POOLED) pool.push(buffer);
};

export class PageBody extends Readable implements SelfSendingBody, BufferReadableBody {
  readonly #file: FileHandle;

  constructor(file: FileHandle) {
    super({ highWaterMark: READ_BYTES });
    this.#file = file;
  }

  override _read(size: number): void {
    this.#file.read(Buffer.allocUnsafe(size), 0, size, null).then(
      ({ bytesRead, buffer }) => this.push(bytesRead > 0 ? buffer.subarray(0, bytesRead) : null),
      (error: Error) => this.destroy(error),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#file.close().then(
      () => callback(error),
      (closeError: Error) => callback(error ?? closeError),
    );
  }

  /** Reads the next bytes into `buffer`; the file is closed at its end. */
  async readInto(buffer: Buffer, offset: number, length: number): Promise<number> {
    try {
      const { bytesRead } = await this.#file.read(buffer, offset, length, null);
      if (bytesRead === 0) this.destroy();
      return bytesRead;
    } catch (error) {
      this.destroy();
      throw error;
    }
  }

  /** Writes the page to `destination` and ends it; the file is closed either way. */
  async sendTo(destination: Writable): Promise<void> {
    const file = this.#file;
    const buffer = take();
    async function* parts() {
      for (;;) {
        const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) return;
        yield buffer.subarray(0, bytesRead);
      }
    }
    // A write that failed may never be called back, and may still hold the buffer.
    let reusable = false;
    try {
      await sendParts(parts(), destination);
      reusable = true;
    } finally {
      if (reusable) give(buffer);
      this.destroy();
    }
  }
}
