import { describe, expect, it } from "vitest";
import { dayIn, isReportTimeZone, offsetsIn, startOfDayIn } from "./time-zone.ts";

describe("the reports' time zone", () => {
  it("takes the IANA names of a place the runtime knows, and UTC", () => {
    for (const zone of ["UTC", "America/Los_Angeles", "Europe/Paris", "Asia/Kolkata"]) {
      expect(isReportTimeZone(zone)).toBe(true);
    }
    for (const zone of ["", "utc ", "EST", "Mars/Olympus", "+01:00", "America/Los_Angeles'"]) {
      expect(isReportTimeZone(zone)).toBe(false);
    }
  });

  it("names the day a moment falls on there", () => {
    const moment = new Date("2026-12-02T03:00:00Z");
    expect(dayIn(moment, "UTC")).toBe("2026-12-02");
    expect(dayIn(moment, "America/Los_Angeles")).toBe("2026-12-01");
    expect(dayIn(new Date("2026-12-01T16:00:00Z"), "Asia/Tokyo")).toBe("2026-12-02");
  });

  it("finds a day's first moment there, also where a clock change skips midnight", () => {
    expect(startOfDayIn("2026-12-01", "UTC").toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(startOfDayIn("2026-12-01", "America/Los_Angeles").toISOString()).toBe(
      "2026-12-01T08:00:00.000Z",
    );
    expect(startOfDayIn("2026-07-01", "America/Los_Angeles").toISOString()).toBe(
      "2026-07-01T07:00:00.000Z",
    );
    expect(startOfDayIn("2026-12-01", "Asia/Tokyo").toISOString()).toBe("2026-11-30T15:00:00.000Z");
    expect(startOfDayIn("2026-12-01", "Pacific/Kiritimati").toISOString()).toBe(
      "2026-11-30T10:00:00.000Z",
    );
    // Chile's clocks go from 00:00 to 01:00 on 6 September 2026: that day begins at 01:00.
    expect(startOfDayIn("2026-09-06", "America/Santiago").toISOString()).toBe(
      "2026-09-06T04:00:00.000Z",
    );
  });
});

describe("a zone's offsets over a stretch of time", () => {
  it("is one offset where the clocks never change", () => {
    expect(
      offsetsIn("Asia/Tokyo", new Date("2026-01-01T00:00:00Z"), new Date("2026-12-31T00:00:00Z")),
    ).toEqual([{ from: null, offsetSeconds: 9 * 3600 }]);
  });

  it("names the second each change of the clocks takes effect", () => {
    expect(
      offsetsIn(
        "America/Los_Angeles",
        new Date("2026-01-01T00:00:00Z"),
        new Date("2026-12-31T00:00:00Z"),
      ),
    ).toEqual([
      { from: null, offsetSeconds: -8 * 3600 },
      // 02:00 PST on 8 March and 02:00 PDT on 1 November 2026.
      { from: new Date("2026-03-08T10:00:00Z"), offsetSeconds: -7 * 3600 },
      { from: new Date("2026-11-01T09:00:00Z"), offsetSeconds: -8 * 3600 },
    ]);
  });
});
