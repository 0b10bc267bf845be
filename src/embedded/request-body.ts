/** A request body read whole by the embedded gateway, as API Gateway hands it to a Lambda. */
import type { Readable } from "node:stream";
import { UnavailableError } from "../domain/errors.ts";

/**
 * The most request-body bytes the process holds at once, over every request of both
 * listeners: 64 times the largest body a route takes (1 MiB), where a request's body is a few
 * KiB (an SDK's batch of events). Node holds a body in Buffers, outside V8's heap, which
 * `--max-old-space-size` does not bound: without a total, connections each sending a body
 * just under its limit made resident memory grow with their number.
 */
export const MAX_BUFFERED_BODY_BYTES = 64 * 1024 * 1024;

/** How long a client refused for the total is asked to wait: bodies are held for a request's length. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** What one request holds of a budget; released once, when the request is answered. */
export interface BodyLease {
  /** Takes `bytes` more, or answers false (taking nothing) when the total would pass. */
  take(bytes: number): boolean;
  release(): void;
}

/** The bytes of body held across requests, against a total. */
export interface BodyBudget {
  lease(): BodyLease;
  used(): number;
}

export const createBodyBudget = (total: number): BodyBudget => {
  let used = 0;
  return {
    used: () => used,
    lease: () => {
      let held = 0;
      return {
        take: (bytes) => {
          if (used + bytes > total) return false;
          used += bytes;
          held += bytes;
          return true;
        },
        release: () => {
          used -= held;
          held = 0;
        },
      };
    },
  };
};

/** The process's one budget, which every gateway shares unless given another (a test's). */
export const PROCESS_BODY_BUDGET = createBodyBudget(MAX_BUFFERED_BODY_BYTES);

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
 * API Gateway's payload limit. A body longer than its route takes, up to this, is still read
 * through and dropped as it comes before the 413: a client still sending it would otherwise
 * have its connection reset under it and never read the answer (an SDK reads a 413 to split
 * its batch), as on AWS, where API Gateway reads a body before a function refuses it. Past
 * this, the answer comes at once and the connection closes.
 */
export const DRAINED_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Reads the rest of a body and drops it, until its end or `upTo` bytes in all, or the client
 * goes; true when it ended (the answer may then keep the connection).
 */
export const drainBody = (req: Readable, upTo: number, already = 0): Promise<boolean> =>
  new Promise((resolve) => {
    if (req.destroyed || req.readableEnded) {
      resolve(req.readableEnded);
      return;
    }
    let size = already;
    const done = (ended: boolean) => {
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      req.removeListener("close", onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > upTo) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(false);
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("close", onClose);
  });

/**
 * The whole body, or null when there is none. Past `maxBytes` it keeps none of it and rejects
 * with a RangeError once the rest is read through (up to DRAINED_BODY_BYTES); past what
 * `lease` may take of the process's total, with an UnavailableError (a 503) at once; a client
 * gone before the end rejects it too (even one gone already). What the lease took stays taken
 * until its holder releases it.
 */
export const readBody = (
  req: Readable,
  maxBytes: number,
  lease: BodyLease,
): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    if (req.destroyed) {
      reject(new Error("the client went away"));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = (error: Error) => {
      // Nothing more is kept: the chunks go, and the rest of the body is dropped as it comes
      // (the answer closes the connection).
      req.removeAllListeners("data");
      chunks.length = 0;
      reject(error);
    };
    // Every request closes, most after their end: the error is made only for one gone first.
    const gone = () => reject(new Error("the client went away"));
    const ended = () => {
      req.off("close", gone);
      resolve(size === 0 ? null : Buffer.concat(chunks, size));
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        // None of it is kept; the rest is read through before the answer (DRAINED_BODY_BYTES).
        req.removeAllListeners("data");
        req.off("end", ended);
        req.off("close", gone);
        chunks.length = 0;
        void drainBody(req, DRAINED_BODY_BYTES, size).then(() =>
          reject(new RangeError("body too large")),
        );
        return;
      }
      if (!lease.take(chunk.length)) {
        refuse(
          new UnavailableError(
            "The service is receiving too many request bodies at once. Retry later.",
            BUSY_RETRY_AFTER_SECONDS,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    req.once("close", gone);
    req.once("end", ended);
    req.once("error", reject);
  });
