import { describe, expect, it } from "vitest";
import { DAY_MS } from "../domain/time.ts";
import {
  deviceTag,
  installTag,
  maidMatchKey,
  sightingExpirySeconds,
  sightingHour,
  touchExpirySeconds,
  touchSortKey,
  windowEndKey,
} from "./lookup-keys.ts";
import { TOUCH_LIMITS } from "./touch-request.ts";

describe("touch lookup keys", () => {
  it("keeps a touch past the longest click window, for an install reported late", () => {
    const touchTime = "2026-03-01T10:00:00.250Z";
    const windowEnd = Date.parse(touchTime) + TOUCH_LIMITS.maxTouchAgeDays * DAY_MS;
    // A first open on the window's last day, reported or retried a day later, still finds it.
    expect(touchExpirySeconds(touchTime) * 1000).toBeGreaterThanOrEqual(windowEnd + DAY_MS);
    expect(touchExpirySeconds(touchTime) * 1000).toBeLessThanOrEqual(windowEnd + 3 * DAY_MS);
  });

  it("keeps a sighting through the day after its hour, and a day more", () => {
    const hour = sightingHour(Date.parse("2026-03-01T10:59:59.999Z"));
    expect(hour).toBe("2026-03-01T10:00:00.000Z");
    expect(sightingExpirySeconds(hour) * 1000).toBe(Date.parse(hour) + 2 * DAY_MS);
  });

  it("sorts every touch of a window's last millisecond inside it, and none after", () => {
    const end = new Date("2026-03-01T10:00:00.000Z");
    const last = touchSortKey({ touchTime: end.toISOString(), clickId: "zzzz-~click" });
    const after = touchSortKey({ touchTime: "2026-03-01T10:00:00.001Z", clickId: "a" });
    expect(last < windowEndKey(end)).toBe(true);
    expect(after > windowEndKey(end)).toBe(true);
  });

  it("keys an advertising id and a device the same whatever their case", () => {
    const idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC";
    expect(maidMatchKey(idfa)).toBe(maidMatchKey(idfa.toLowerCase()));
    expect(deviceTag("app", idfa)).toBe(deviceTag("app", idfa.toLowerCase()));
  });

  it("tags a device and an install by a short hash that tells apps and ids apart", () => {
    const tags = [
      deviceTag("app", "device-1"),
      deviceTag("app", "device-2"),
      deviceTag("other-app", "device-1"),
      installTag("app", "install-1"),
      installTag("app", "install-2"),
      installTag("other-app", "install-1"),
    ];
    expect(new Set(tags).size).toBe(tags.length);
    for (const tag of tags) expect(tag).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(tags.join()).not.toContain("device");
  });
});
