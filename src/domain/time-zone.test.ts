import { describe, expect, it } from "vitest";
import { dayIn, isReportTimeZone, startOfDayIn } from "./time-zone.ts";

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
