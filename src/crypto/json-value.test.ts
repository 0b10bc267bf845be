import { describe, expect, it } from "vitest";
import { assertJsonValue } from "./json-value.ts";

describe("a value a sealed envelope can carry", () => {
  it("is any JSON value, a map without a prototype too", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: [1, "x"] });
    for (const value of [null, "", 0, -1.5, true, [], {}, { a: [null, { b: false }] }, bare]) {
      expect(() => assertJsonValue(value)).not.toThrow();
    }
  });

  it.each([
    [undefined, "value is a undefined, not JSON"],
    [() => 1, "value is a function, not JSON"],
    [1n, "value is a bigint, not JSON"],
    [Number.NaN, "value is not a finite number"],
    [[1, undefined], "value[1] is undefined"],
    // A hole, which JSON.stringify would write as null.
    [new Array(2), "value[0] is undefined"],
    [{ a: { b: undefined } }, "value.a.b is undefined"],
    [{ a: new Date(0) }, "value.a is not a plain object"],
  ])("refuses %s, naming the part JSON cannot carry unchanged", (value, message) => {
    expect(() => assertJsonValue(value)).toThrow(new TypeError(message));
  });
});
