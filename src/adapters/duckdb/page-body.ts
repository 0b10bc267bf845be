/**
 * A page's bytes from the file DuckDB wrote them to. Read as a stream, it is any file stream;
 * sent by the embedded gateway (`sendTo`), it goes through buffers taken from a pool and
 * reused once the socket has taken their bytes, so a page of megabytes allocates nothing. The
 * megabytes a stream allocates per page live outside V8's heap, and each page's made V8 start
 * marking the whole heap again: that, not the bytes, was most of a page's cost in the service.
 */
import type { FileHandle } from "node:fs/promises";
import { Readable, type Writable } from "node:stream";
import type { SelfSendingBody } from "../../ports/lake.ts";

const READ_BYTES = 256 * 1024;
/** Buffers kept for reuse: as many as pages are sent at once, within reason. */
const POOLED = 8;
const pool: Buffer[] = [];

const take = (): Buffer => pool.pop() ?? Buffer.allocUnsafeSlow(READ_BYTES);
const give = (buffer: Buffer) => {
  if (pool.length < POOLED) pool.push(buffer);
};

export class PageBody extends Readable implements SelfSendingBody {
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

  /** Writes the page to `destination` and ends it; the file is closed either way. */
  async sendTo(destination: Writable): Promise<void> {
    const buffer = take();
    let reusable = true;
    try {
      for (;;) {
        const { bytesRead } = await this.#file.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        // A destination closed already emits no "close" for the wait below to hear.
        if (destination.destroyed)
          throw new Error("the destination closed before the page was sent");
        await new Promise<void>((resolve, reject) => {
          // A destination closed under a write may never call it back.
          const closed = () => reject(new Error("the destination closed before the page was sent"));
          destination.once("close", closed);
          destination.write(buffer.subarray(0, bytesRead), (error) => {
            destination.off("close", closed);
            if (error) reject(error);
            else resolve();
          });
        });
      }
      await new Promise<void>((resolve) => {
        // Ended, or closed before it could be (a client gone): either way nothing is left.
        if (destination.destroyed) return resolve();
        destination.once("close", () => resolve());
        destination.end(() => resolve());
      });
    } catch (error) {
      // A write not called back may still hold the buffer.
      reusable = false;
      destination.destroy(error instanceof Error ? error : undefined);
      throw error;
    } finally {
      if (reusable) give(buffer);
      this.destroy();
    }
  }
}
