import { describe, expect, it } from "vitest";
import { DEEPLINK_ID_PATTERN, newClickId, newDeeplinkId } from "./ids.ts";

describe("touch ids", () => {
  it("makes URL-safe deep link ids of at least 64 random bits, never the same twice", () => {
    const ids = Array.from({ length: 10_000 }, newDeeplinkId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 100)) {
      expect(id).toMatch(DEEPLINK_ID_PATTERN);
      expect(encodeURIComponent(id)).toBe(id);
    }
    expect(DEEPLINK_ID_PATTERN.source).toContain("{11}");
    expect(11 * Math.log2(62)).toBeGreaterThan(64);
  });

  it("makes click ids of 22 URL-safe characters", () => {
    const id = newClickId();
    expect(id).toMatch(/^[0-9A-Za-z]{22}$/);
    expect(newClickId()).not.toBe(id);
  });
});
