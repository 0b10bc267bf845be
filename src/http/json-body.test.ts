import { describe, expect, it } from "vitest";
import { BadRequestError, PayloadTooLargeError } from "../domain/errors.ts";
import { apiEvent } from "./api-event.test-support.ts";
import { readJsonBody } from "./json-body.ts";

const base64 = (body: string | Buffer) => ({
  ...apiEvent(),
  body: Buffer.from(body).toString("base64"),
  isBase64Encoded: true,
});

describe("a JSON request body", () => {
  it("is parsed from text or from base64", () => {
    expect(readJsonBody(apiEvent({ body: '{"a":"é"}' }), 100)).toEqual({ a: "é" });
    expect(readJsonBody(base64('{"a":"é"}'), 100)).toEqual({ a: "é" });
  });

  it("may be as large as the limit, counted in UTF-8 bytes, and no larger", () => {
    // 10 bytes: the two-byte é counts twice.
    const body = '{"a":"é"}';
    expect(Buffer.byteLength(body)).toBe(10);
    expect(readJsonBody(apiEvent({ body }), 10)).toEqual({ a: "é" });
    expect(() => readJsonBody(apiEvent({ body }), 9)).toThrow(
      new PayloadTooLargeError("The body is 10 bytes; the limit is 9."),
    );
  });

  it("refuses an empty body, one that is not JSON, and bytes that are not UTF-8, saying which", () => {
    for (const body of [null, "", " \n\t"]) {
      expect(() => readJsonBody(apiEvent({ body }), 100)).toThrow(
        new BadRequestError("The body is empty; a JSON object is expected."),
      );
    }
    expect(() => readJsonBody(apiEvent({ body: '{"a":' }), 100)).toThrow(
      /^The body is not valid JSON: /,
    );
    expect(() => readJsonBody(base64(Buffer.from([0x7b, 0xff, 0x7d])), 100)).toThrow(
      new BadRequestError("The body is not valid UTF-8; JSON text in UTF-8 is expected."),
    );
  });
});
