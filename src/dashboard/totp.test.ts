/** The dashboard's TOTP codes: which steps a code is taken at, and how a typed code is read. */
import { describe, expect, it } from "vitest";
import { normalCode, TOTP_PERIOD_SECONDS, totpCode, totpStepOf } from "./totp.ts";

const STEP_MS = TOTP_PERIOD_SECONDS * 1000;

describe("the dashboard's TOTP codes", () => {
  it("takes a code of the step now or either next to it, a phone's clock a little off, and no further", () => {
    // A fixed secret and time, whose five codes around it all differ: nothing left to chance.
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const step = 59_666_666;
    const now = step * STEP_MS + STEP_MS / 2;
    const codes = [-2, -1, 0, 1, 2].map((offset) => totpCode(secret, now + offset * STEP_MS));
    expect(new Set(codes).size).toBe(5);
    expect(codes.map((code) => totpStepOf(secret, code, now))).toEqual([
      undefined,
      step - 1,
      step,
      step + 1,
      undefined,
    ]);
  });

  it("reads a code typed with spaces anywhere in it", () => {
    expect(normalCode(" 12 34\t56 ")).toBe("123456");
  });
});
