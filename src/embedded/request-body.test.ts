import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createBodyBudget, lambdaBody, readBody } from "./request-body.ts";

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
    const goneBefore = new Readable({ read() {} });
    goneBefore.destroy();
    await expect(readBody(goneBefore, 10, unbounded())).rejects.toThrow("the client went away");

    const goneDuring = new Readable({ read() {} });
    goneDuring.push("12");
    const reading = readBody(goneDuring, 10, unbounded());
    setImmediate(() => goneDuring.destroy());
    await expect(reading).rejects.toThrow("the client went away");
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
  });

  it("is handed on as text when it is UTF-8, and base64-encoded when it is not", () => {
    expect(lambdaBody(Buffer.from('{"a":"ü"}'))).toEqual({
      body: '{"a":"ü"}',
      isBase64Encoded: false,
    });
    const latin1 = Buffer.from('{"a":"\xfc"}', "latin1");
    expect(lambdaBody(latin1)).toEqual({ body: latin1.toString("base64"), isBase64Encoded: true });
    expect(lambdaBody(null)).toEqual({ body: null, isBase64Encoded: false });
  });
});
