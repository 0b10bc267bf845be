import { afterEach, describe, expect, it } from "vitest";
import { handler, ORIGIN_HEADER, originVerified } from "./link-host-origin.ts";

describe("the link host's origin check", () => {
  const saved = process.env.ORIGIN_SECRET;
  afterEach(() => {
    if (saved === undefined) delete process.env.ORIGIN_SECRET;
    else process.env.ORIGIN_SECRET = saved;
  });

  it("lets in a request carrying the distribution's secret", async () => {
    process.env.ORIGIN_SECRET = "s3cretFromTheStack";
    expect(await handler({ headers: { [ORIGIN_HEADER]: "s3cretFromTheStack" } })).toEqual({
      isAuthorized: true,
    });
  });

  it("refuses one without it, with another value, or when the function has no secret", async () => {
    process.env.ORIGIN_SECRET = "s3cretFromTheStack";
    expect(await handler({ headers: {} })).toEqual({ isAuthorized: false });
    expect(await handler({})).toEqual({ isAuthorized: false });
    expect(await handler({ headers: { [ORIGIN_HEADER]: "s3cretFromTheStacK" } })).toEqual({
      isAuthorized: false,
    });
    expect(await handler({ headers: { [ORIGIN_HEADER]: "s3cret" } })).toEqual({
      isAuthorized: false,
    });
    delete process.env.ORIGIN_SECRET;
    expect(originVerified("", undefined)).toBe(false);
    expect(await handler({ headers: { [ORIGIN_HEADER]: "anything" } })).toEqual({
      isAuthorized: false,
    });
  });
});
