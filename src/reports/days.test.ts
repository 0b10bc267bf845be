import { describe, expect, it } from "vitest";
import { addDays, dayOf, daysSpanned, isUtcDay, startOfDay } from "./days.ts";

describe("report days", () => {
  it("are UTC days, counted across months, leap days and years", () => {
    expect(dayOf(new Date("2026-11-01T23:59:59.999Z"))).toBe("2026-11-01");
    expect(startOfDay("2026-11-01").toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2026-01-01", -1)).toBe("2025-12-31");
    expect(addDays("2026-11-01", -31)).toBe("2026-10-01");
    expect(daysSpanned("2026-11-01", "2026-11-01")).toBe(1);
    expect(daysSpanned("2024-01-01", "2024-12-31")).toBe(366);
    expect(daysSpanned("2026-11-02", "2026-11-01")).toBe(0);
  });

  it("are never a day past 9999-12-31 or before 0000-01-01: such a result is an error", () => {
    expect(addDays("9999-12-30", 1)).toBe("9999-12-31");
    // As text, +010000-01-01 sorts before 9999-12-31: a loop to that day would never end.
    expect(() => addDays("9999-12-31", 1)).toThrow(RangeError);
    expect(() => addDays("0000-01-01", -1)).toThrow(RangeError);
    expect(() => addDays("2026-11-01", Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it("are real calendar days: one Date would roll over is none", () => {
    for (const day of ["2026-02-28", "2024-02-29", "2026-12-31", "0001-01-01"]) {
      expect(isUtcDay(day), day).toBe(true);
    }
    for (const day of ["2026-02-29", "2026-02-30", "2026-04-31", "2026-13-01", "2026-1-01", ""]) {
      expect(isUtcDay(day), day).toBe(false);
    }
  });
});
