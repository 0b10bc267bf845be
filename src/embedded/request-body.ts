/** A request body read whole by the embedded gateway, as API Gateway hands it to a Lambda. */
import type { Readable } from "node:stream";

/**
 * The whole body, or null when there is none. Past `maxBytes` it stops reading and rejects
 * with a RangeError; a client gone before the end rejects it too (even one gone already).
 */
export const readBody = (req: Readable, maxBytes: number): Promise<string | null> =>
  new Promise((resolve, reject) => {
    if (req.destroyed) {
      reject(new Error("the client went away"));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners("data");
        reject(new RangeError("body too large"));
        return;
      }
      chunks.push(chunk);
    });
    // Every request closes, most after their end: the error is made only for one gone first.
    const gone = () => reject(new Error("the client went away"));
    req.once("close", gone);
    req.once("end", () => {
      req.off("close", gone);
      resolve(size === 0 ? null : Buffer.concat(chunks, size).toString());
    });
    req.once("error", reject);
  });
