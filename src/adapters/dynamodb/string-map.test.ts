import { describe, expect, it } from "vitest";
import { stringMapItem, stringMapText } from "./string-map.ts";

describe("a map of outside keys, stored as text", () => {
  it("reads back every key as the map's own, names an object has included", () => {
    const map = Object.fromEntries([
      ["__proto__", "a"],
      ["constructor", "b"],
      ["utm_source", "c"],
    ]);
    const read = stringMapItem.parse(stringMapText(map));
    expect(Object.entries(read)).toEqual(Object.entries(map));
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
  });

  it("refuses text that is no object, and keeps only a map's text values", () => {
    for (const text of ["[1]", "null", '"x"', "3"]) {
      expect(stringMapItem.safeParse(text).success, text).toBe(false);
    }
    expect(stringMapItem.parse('{"a":"1","b":2,"c":null}')).toEqual({ a: "1" });
  });
});
