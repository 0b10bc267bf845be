/**
 * Writing a body's parts to a socket one at a time, each only once the last is taken, so a
 * body may write its next part into the buffer of the last: a page's megabytes in fresh
 * buffers outside V8's heap made it mark the whole heap again every few pages.
 */
import type { Writable } from "node:stream";

const CLOSED = "the destination closed before the page was sent";

/**
 * Writes each part to `destination` once it has taken the last, then ends it; a destination
 * that closes first fails it, and a failure destroys the destination.
 */
export async function sendParts(parts: AsyncIterable<Buffer>, destination: Writable) {
  try {
    for await (const part of parts) {
      // A destination closed already emits no "close" for the wait below to hear.
      if (destination.destroyed) throw new Error(CLOSED);
      await new Promise<void>((resolve, reject) => {
        // A destination closed under a write may never call it back.
        const closed = () => reject(new Error(CLOSED));
        destination.once("close", closed);
        destination.write(part, (error) => {
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
    destination.destroy(error instanceof Error ? error : undefined);
    throw error;
  }
}
