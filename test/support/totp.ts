/**
 * A code that is not the secret's: a fixed "000000" is, about once in 300,000 tries, the code of
 * one of the three time steps a check takes.
 */
import { totpStepOf } from "../../src/dashboard/totp.ts";

export const wrongTotpCode = (secret: string, now = Date.now()): string => {
  for (let digit = 0; digit <= 9; digit += 1) {
    const code = String(digit).repeat(6);
    // Half a minute either side too: the check may come a step later than the code is made.
    if (
      [now - 30_000, now, now + 30_000].every((at) => totpStepOf(secret, code, at) === undefined)
    ) {
      return code;
    }
  }
  throw new Error("every code tried is the secret's");
};
