import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { lambdaBody, readBody } from "./request-body.ts";

const body = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c)));

describe("request body", () => {
  it("is the chunks joined, or null when there are none", async () => {
    await expect(readBody(body('{"a":', "1}"), 10)).resolves.toEqual(Buffer.from('{"a":1}'));
    await expect(readBody(body(), 10)).resolves.toBeNull();
  });

  it("is refused past the limit with a RangeError", async () => {
    await expect(readBody(body("12345", "678901"), 10)).rejects.toThrow(RangeError);
  });

  // A reader left waiting would hang: the short timeout turns that into a failure.
  it("fails, rather than waiting forever, when the client is gone before or during it", {
    timeout: 2_000,
  }, async () => {
    const goneBefore = new Readable({ read() {} });
    goneBefore.destroy();
    await expect(readBody(goneBefore, 10)).rejects.toThrow("the client went away");

    const goneDuring = new Readable({ read() {} });
    goneDuring.push("12");
    const reading = readBody(goneDuring, 10);
    setImmediate(() => goneDuring.destroy());
    await expect(reading).rejects.toThrow("the client went away");
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
