import { describe, expect, it } from "vitest";
import { RecentMap } from "./recent-map.ts";

describe("RecentMap", () => {
  it("forgets the least recently used entry when full, a read counting as a use", () => {
    const map = new RecentMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    expect(map.get("a")).toBe(1);
    map.set("c", 3);
    expect(map.has("b")).toBe(false);
    expect([map.get("a"), map.get("c")]).toEqual([1, 3]);
  });

  it("tells a stored undefined from no entry", () => {
    const map = new RecentMap<string, number | undefined>(2);
    map.set("known-absent", undefined);
    expect(map.has("known-absent")).toBe(true);
    expect(map.has("unknown")).toBe(false);
  });

  it("deletes the entries a test holds for, and only those", () => {
    const map = new RecentMap<string, number>(5);
    for (const [key, value] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ] as const)
      map.set(key, value);
    map.deleteWhere((key, value) => key === "a" || value === 3);
    expect([map.has("a"), map.has("b"), map.has("c")]).toEqual([false, true, false]);
  });
});
