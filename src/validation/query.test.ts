import { describe, expect, it } from "vitest";
import { wholeNumberParam } from "./query.ts";

describe("a whole number given in a query", () => {
  const limit = wholeNumberParam({ min: 1, max: 200, fallback: 50 });
  const refusal = (value: unknown) => limit.safeParse(value).error?.issues[0]?.message;

  it("reads plain digits within its bounds, and its fallback when absent", () => {
    expect(limit.parse("5")).toBe(5);
    expect(limit.parse("007")).toBe(7);
    expect(limit.parse("200")).toBe(200);
    expect(limit.parse(undefined)).toBe(50);
  });

  it("refuses a number's other spellings rather than reading them as another number", () => {
    for (const value of [
      "0x5",
      "1e1",
      " 5",
      "5 ",
      "5.0",
      "+5",
      "-1",
      "",
      "５",
      "Infinity",
      "NaN",
    ]) {
      expect(refusal(value), value).toBe("must be a whole number from 1 to 200");
    }
  });

  it("refuses a number out of its bounds, naming them", () => {
    expect(refusal("0")).toBe("must be a whole number from 1 to 200");
    expect(refusal("201")).toBe("must be a whole number from 1 to 200");
    expect(refusal("9".repeat(400))).toBe("must be a whole number from 1 to 200");
    const wait = wholeNumberParam({ min: 0, max: 20, fallback: 0, unit: "of seconds" });
    expect(wait.safeParse("21").error?.issues[0]?.message).toBe(
      "must be a whole number of seconds from 0 to 20",
    );
    expect(wait.parse("0")).toBe(0);
  });
});
