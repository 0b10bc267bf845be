import { once } from "node:events";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  createBodyBudget,
  DRAINED_BODY_BYTES,
  drainBody,
  lambdaBody,
  readBody,
} from "./request-body.ts";

const body = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c)));
/** A lease of a total no body here reaches. */
const unbounded = () => createBodyBudget(Number.POSITIVE_INFINITY).lease();

describe("request body", () => {
  it("is the chunks joined, or null when there are none", async () => {
    await expect(readBody(body('{"a":', "1}"), 10, unbounded())).resolves.toEqual(
      Buffer.from('{"a":1}'),
    );
    await expect(readBody(body(), 10, unbounded())).resolves.toBeNull();
  });

  it("is refused past the limit with a RangeError", async () => {
    await expect(readBody(body("12345", "678901"), 10, unbounded())).rejects.toThrow(RangeError);
  });

  // A reader left waiting would hang: the short timeout turns that into a failure.
  it("fails, rather than waiting forever, when the client is gone before or during it", {
    timeout: 2_000,
  }, async () => {
    // Gone, and its close already told, before the reading begins.
    const goneBefore = new Readable({ read() {} });
    goneBefore.destroy();
    await once(goneBefore, "close");
    await expect(readBody(goneBefore, 10, unbounded())).rejects.toThrow("the client went away");

    const goneDuring = new Readable({ read() {} });
    goneDuring.push("12");
    const reading = readBody(goneDuring, 10, unbounded());
    setImmediate(() => goneDuring.destroy());
    await expect(reading).rejects.toThrow("the client went away");
  });

  it("fails with the stream's own error", async () => {
    const failing = new Readable({ read() {} });
    failing.push("12");
    const reading = readBody(failing, 10, unbounded());
    setImmediate(() => failing.destroy(new Error("socket hang up")));
    await expect(reading).rejects.toThrow("socket hang up");
  });

  // The client of a body too large is still sending it: its limit counts what was read before
  // the refusal, so the reading stops at API Gateway's limit, not past it.
  it("past its limit, is read through up to the drained limit in all, then refused", {
    timeout: 5_000,
  }, async () => {
    const large = new Readable({ read() {} });
    const reading = readBody(large, 1024, unbounded());
    large.push(Buffer.alloc(2 * 1024 * 1024));
    large.push(Buffer.alloc(DRAINED_BODY_BYTES - 2 * 1024 * 1024 + 1));
    await expect(reading).rejects.toThrow(RangeError);
    large.destroy();
  });

  it("takes its bytes from a total shared by every request, and gives them back once released", async () => {
    const budget = createBodyBudget(10);
    const first = budget.lease();
    await expect(readBody(body("123", "456"), 10, first)).resolves.toEqual(Buffer.from("123456"));
    expect(budget.used()).toBe(6);
    // Past the total: refused as a 503 saying when to come back, and nothing more is taken.
    const second = budget.lease();
    await expect(readBody(body("12", "345"), 10, second)).rejects.toMatchObject({
      statusCode: 503,
      retryAfterSeconds: expect.any(Number),
    });
    second.release();
    expect(budget.used()).toBe(6);
    first.release();
    expect(budget.used()).toBe(0);
    const third = budget.lease();
    await expect(readBody(body("12345", "67890"), 10, third)).resolves.toHaveLength(10);
    third.release();
    expect(budget.used()).toBe(0);
    // A lease released twice gives its bytes back once: another's are still held.
    const fourth = budget.lease();
    expect(fourth.take(4)).toBe(true);
    third.release();
    expect(budget.used()).toBe(4);
  });

  it("refused for the total, takes nothing of what its client still sends", async () => {
    const budget = createBodyBudget(10);
    const sending = new Readable({ read() {} });
    const reading = readBody(sending, 100, budget.lease());
    sending.push("12345678");
    sending.push("12345");
    await expect(reading).rejects.toMatchObject({ statusCode: 503, retryAfterSeconds: 1 });
    sending.push("1");
    sending.push(null);
    await once(sending, "end").catch(() => undefined);
    expect(budget.used()).toBe(8);
  });

  it("is handed on as text when it is UTF-8, and base64-encoded when it is not", () => {
    expect(lambdaBody(Buffer.from('{"a":"ü"}'))).toEqual({
      body: '{"a":"ü"}',
      isBase64Encoded: false,
    });
    const latin1 = Buffer.from('{"a":"\xfc"}', "latin1");
    expect(lambdaBody(latin1)).toEqual({ body: latin1.toString("base64"), isBase64Encoded: true });
    expect(lambdaBody(null)).toEqual({ body: null, isBase64Encoded: false });
    // A byte-order mark is the body's, as API Gateway hands it on.
    expect(lambdaBody(Buffer.from("\ufeff{}"))).toEqual({
      body: "\ufeff{}",
      isBase64Encoded: false,
    });
  });
});

describe("a body's rest, dropped", () => {
  it("ended already: done, and the connection may be kept", async () => {
    const ended = body();
    ended.resume();
    await once(ended, "end");
    await expect(drainBody(ended, 10)).resolves.toBe(true);
  });

  it("read to its end under the limit: true; cut by its client, or past the limit: false", async () => {
    await expect(drainBody(body("12345", "678"), 10)).resolves.toBe(true);
    await expect(drainBody(body("12345", "678901"), 10)).resolves.toBe(false);
    await expect(drainBody(body("12345", "6"), 10, 5)).resolves.toBe(false);
    const cut = new Readable({ read() {} });
    cut.push("12");
    const draining = drainBody(cut, 10);
    setImmediate(() => cut.destroy());
    await expect(draining).resolves.toBe(false);
  });

  // A drain left waiting for events a closed stream no longer emits would hang.
  it("gone already, its close past: not ended, at once", { timeout: 2_000 }, async () => {
    const gone = new Readable({ read() {} });
    gone.destroy();
    await once(gone, "close");
    await expect(drainBody(gone, 10)).resolves.toBe(false);
  });
});
