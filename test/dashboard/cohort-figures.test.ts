/** The Cohorts page's decisions from the report's figures. */
import { describe, expect, it } from "vitest";
import type { CohortRow } from "../../dashboard/src/api.ts";
import { noSessionsSeen } from "../../dashboard/src/cohort-figures.ts";

/** An install day's row: retention by day since install, 0 to 30, null for a day not over. */
const cohort = (day: string, known: (number | null)[]): CohortRow => {
  const retention = Array.from({ length: 31 }, (_, n) => known[n] ?? null);
  return { day, installs: 4, retention, revenue_per_user: retention.map(() => null) };
};

describe("noSessionsSeen", () => {
  it("is false for today's installs alone, none of whose days is over yet", () => {
    expect(noSessionsSeen([cohort("2026-11-29", [])])).toBe(false);
  });

  it("is false for no install day at all", () => {
    expect(noSessionsSeen([])).toBe(false);
  });

  it("is true when every day that is over shows no session, today's null days aside", () => {
    expect(noSessionsSeen([cohort("2026-11-27", [0, 0]), cohort("2026-11-29", [])])).toBe(true);
  });

  it("is false as soon as one known share is above 0", () => {
    expect(noSessionsSeen([cohort("2026-11-27", [1, 0]), cohort("2026-11-28", [0])])).toBe(false);
    expect(noSessionsSeen([cohort("2026-11-27", [0, 0.25])])).toBe(false);
  });
});
