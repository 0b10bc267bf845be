/** A request body read whole by the embedded gateway, as API Gateway hands it to a Lambda. */
import type { Readable } from "node:stream";

/** A body as a Lambda gets it: text, or base64 where the bytes are not text. */
export interface LambdaBody {
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Bytes as API Gateway passes them on: valid UTF-8 as its text, anything else base64-encoded
 * (as it does a binary body), so that no handler reads bytes that are not text as if they were.
 */
export const lambdaBody = (bytes: Buffer | null): LambdaBody => {
  if (bytes === null) return { body: null, isBase64Encoded: false };
  try {
    return { body: utf8.decode(bytes), isBase64Encoded: false };
  } catch {
    return { body: bytes.toString("base64"), isBase64Encoded: true };
  }
};

/**
 * The whole body, or null when there is none. Past `maxBytes` it stops reading and rejects
 * with a RangeError; a client gone before the end rejects it too (even one gone already).
 */
export const readBody = (req: Readable, maxBytes: number): Promise<Buffer | null> =>
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
      resolve(size === 0 ? null : Buffer.concat(chunks, size));
    });
    req.once("error", reject);
  });
