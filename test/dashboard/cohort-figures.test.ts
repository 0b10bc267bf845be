/** The Cohorts page's decisions from the report's figures, and what it says of them. */
import { describe, expect, it } from "vitest";
import type { CohortRow, ReportFilters } from "../../dashboard/src/api.ts";
import {
  costDaysMissingLine,
  noCostReason,
  noSessionsSeen,
  unconvertedCostLines,
} from "../../dashboard/src/cohort-figures.ts";

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

describe("the Cohorts page's cost left out for want of a rate", () => {
  const counts = (rows: number, touches: number, filters: ReportFilters = {}) => ({
    filters,
    cost_rows_unconverted: rows,
    touch_costs_unconverted: touches,
  });

  it("gives a line for the cost rows and one for the prices links and clicks carried", () => {
    expect(unconvertedCostLines(counts(0, 0))).toEqual([]);
    expect(unconvertedCostLines(counts(2, 1))).toEqual([
      {
        testId: "cost-unconverted",
        text: "2 cost rows of this range are left out of the cost: no rate of their day converts their currency to US dollars.",
      },
      {
        testId: "touch-costs-unconverted",
        text: "1 install, click or impression of this range is left out of the cost: no rate of its day converts the currency of the price its link or click carried to US dollars.",
      },
    ]);
    expect(unconvertedCostLines(counts(0, 1200))[0]?.text).toBe(
      "1,200 installs, clicks and impressions of this range are left out of the cost: no rate of their day converts the currency of the price their link or click carried to US dollars.",
    );
  });

  it("says a cost is unknown for want of a rate, not for want of a cost, when some cost was left out", () => {
    expect(noCostReason(counts(0, 0))).toBe(
      "No cost row, and no cost carried by a link or click, for these installs.",
    );
    expect(noCostReason(counts(0, 2))).toBe(
      "The cost rows, links or clicks that price these installs are in a currency no rate converts to US dollars: the line below says how many.",
    );
    expect(noCostReason(counts(1, 0, { country: "DE" }))).toBe(
      "The cost rows, links or clicks that price these installs are in a currency no rate converts to US dollars (the line below says how many), or a cost row for every country holds no share of one country's.",
    );
    expect(noCostReason(counts(0, 3, { platform: "ios" }))).toBe(
      "Cost rows name no platform, so with any of these installs' media source and campaign in this range one platform's cost is not known; without them, the links and clicks of these installs carried prices in a currency no rate converts to US dollars.",
    );
  });
});

describe("the Cohorts page's days of no cost", () => {
  const missing = (
    media_source: string,
    campaign: string | null,
    days: string[],
    paid: number,
  ) => ({
    media_source,
    campaign,
    days,
    paid_installs: paid,
  });

  it("names each campaign, its days and its paid installs, and counts those past three", () => {
    expect(costDaysMissingLine({ cost_days_missing: [] })).toBeNull();
    expect(
      costDaysMissingLine({
        cost_days_missing: [missing("examplenet", "Winter Sale", ["2026-12-03", "2026-12-04"], 3)],
      }),
    ).toBe(
      "Paid installs on days with no cost count as free in eCPI and ROAS until the network's cost of those days comes, often a day or two late: examplenet Winter Sale on 2026-12-03 and 2026-12-04 (3 paid installs).",
    );
    const days = ["2026-11-01", "2026-11-02", "2026-11-05", "2026-11-09"];
    expect(
      costDaysMissingLine({
        cost_days_missing: [
          missing("examplenet", "Winter Sale", days, 1_500),
          missing("tiktok_ads", null, ["2026-11-09"], 1),
          missing("examplenet", "Spring", ["2026-11-08", "2026-11-09"], 1),
          missing("snap", "Autumn", ["2026-11-09"], 1),
          missing("snap", "Summer", ["2026-11-09"], 1),
        ],
      }),
    ).toBe(
      "Paid installs on days with no cost count as free in eCPI and ROAS until the network's cost of those days comes, often a day or two late: examplenet Winter Sale on 4 days from 2026-11-01 to 2026-11-09 (1,500 paid installs), tiktok_ads (no campaign) on 2026-11-09 (1 paid install), examplenet Spring on 2026-11-08 and 2026-11-09 (1 paid install) and 2 more campaigns.",
    );
  });
});
