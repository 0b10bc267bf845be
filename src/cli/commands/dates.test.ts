/** The days and times the command line takes, refused when they are no real day. */
import { describe, expect, it } from "vitest";
import { parseSince } from "./export.ts";
import { rangeOf } from "./skadnetwork.ts";

describe("the command line's days", () => {
  it("takes --since as a day, an ISO 8601 time or Unix seconds, and no day Date would roll over", () => {
    expect(parseSince("2026-11-01")).toBe(Date.UTC(2026, 10, 1) / 1000);
    expect(parseSince("2026-11-01T12:00:00Z")).toBe(Date.UTC(2026, 10, 1, 12) / 1000);
    expect(parseSince("1790000000")).toBe(1_790_000_000);
    for (const value of ["2026-02-30", "2026-02-30T10:00:00Z", "2026-13-01", "yesterday"]) {
      expect(() => parseSince(value), value).toThrow(/--since must be a date/);
    }
  });

  it("takes a --from and --to range of real days, --to not before --from", () => {
    expect(rangeOf("2026-11-01", "2026-11-01")).toEqual({
      from: new Date("2026-11-01T00:00:00.000Z"),
      to: new Date("2026-11-02T00:00:00.000Z"),
    });
    expect(() => rangeOf("2026-02-30", "2026-03-01")).toThrow("--from: must be a UTC day");
    expect(() => rangeOf("2026-11-29", "2026-11-01")).toThrow("--to: must be on or after --from");
  });
});
