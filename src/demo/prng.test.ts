import { describe, expect, it } from "vitest";
import { createRandom, hashString } from "./prng.ts";

describe("createRandom", () => {
  it("repeats its sequence for a seed and changes with the seed", () => {
    const draw = (seed: number) => {
      const random = createRandom(seed);
      return Array.from({ length: 5 }, () => random.next());
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(2)).not.toEqual(draw(1));
    expect(draw(1).every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it("draws UUID-shaped ids", () => {
    const random = createRandom(3);
    for (let i = 0; i < 100; i++) {
      expect(random.uuid()).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
  });

  it("keeps draws in range and follows weights", () => {
    const random = createRandom(4);
    const ints = Array.from({ length: 1000 }, () => random.int(2, 4));
    expect(new Set(ints)).toEqual(new Set([2, 3, 4]));
    const picks = Array.from({ length: 10_000 }, () =>
      random.weighted([
        ["a", 9],
        ["b", 1],
        ["never", 0],
      ] as const),
    );
    const share = picks.filter((p) => p === "a").length / picks.length;
    expect(share).toBeGreaterThan(0.87);
    expect(share).toBeLessThan(0.93);
    expect(picks).not.toContain("never");
    expect(() => random.pick([])).toThrow(RangeError);
  });

  it("hashes names stably", () => {
    expect(hashString("com.example.game")).toBe(hashString("com.example.game"));
    expect(hashString("com.example.game")).not.toBe(hashString("com.example.shop"));
  });
});
