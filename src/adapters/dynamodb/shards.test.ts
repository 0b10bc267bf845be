import { describe, expect, it } from "vitest";
import { shards } from "./shards.ts";

describe("write shards of a shared index key", () => {
  it("spreads items over every shard, each item always to the same one, and reads them all", () => {
    const four = shards(4);
    const keys = Array.from({ length: 200 }, (_, i) => four.keyOf("app#1.2.3.4", `click-${i}`));
    expect(new Set(keys)).toEqual(new Set(four.all("app#1.2.3.4")));
    expect(four.all("app#1.2.3.4")).toEqual([
      "app#1.2.3.4#0",
      "app#1.2.3.4#1",
      "app#1.2.3.4#2",
      "app#1.2.3.4#3",
    ]);
    expect(four.keyOf("app#1.2.3.4", "click-7")).toBe(keys[7]);
  });
});
