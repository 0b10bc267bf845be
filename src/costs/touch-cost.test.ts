/**
 * What a CPC click and a CPM impression cost in USD, and what a report's total of many of them
 * comes to: the price of them all converted at once, not a sum of rounded shares.
 */
import { describe, expect, it } from "vitest";
import type { TouchCost, TouchType } from "../domain/touch.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import type { CohortRow } from "../ports/reports.ts";
import { cohortReport } from "../reports/cohorts.ts";
import { costFields, touchCostUsd } from "./touch-cost.ts";

const DAY = "2025-05-02";
/** Units per EUR of that day, as the ECB's table gives them. */
const fx = parseEcbRates(`Date,USD,JPY,\n${DAY},1.1343,163.93,\n`);

/** The cohorts report's total cost of `count` touches of one price on DAY. */
const reportedCost = (cost: TouchCost, type: TouchType, count: number): number | null => {
  const each = touchCostUsd(cost, type, DAY, fx);
  if (each === null) throw new Error("no rate");
  // The lake's rows added up one by one, as the query's sum does.
  let sum = 0;
  for (let n = 0; n < count; n++) sum += each;
  const row: CohortRow = {
    part: "touches",
    cohort_day: DAY,
    media_source: "examplenet",
    group_key: "Winter",
    day_n: null,
    installs: 0,
    active: 0,
    revenue_usd: 0,
    clicks: type === "click" ? count : 0,
    impressions: type === "impression" ? count : 0,
    cost_usd: sum,
  };
  return cohortReport({
    from: DAY,
    to: DAY,
    today: "2025-06-01",
    groupBy: "campaign",
    filters: {},
    rows: [row],
    costs: [],
  }).totals.cost_usd;
};

describe("a touch's cost in USD", () => {
  it("of a million CPM impressions is the price of their thousands converted at once", () => {
    // 0.40 EUR a thousand is 0.45372 USD: an impression's 0.00045372 rounded to a millionth
    // would be 0.000454, and a million of them 454 USD.
    expect(reportedCost({ model: "CPM", value: 0.4, currency: "EUR" }, "impression", 1e6)).toBe(
      453.72,
    );
    // 50 JPY a thousand: 50,000 JPY is 345.97084121… USD; 0.000346 an impression would be 346.
    expect(reportedCost({ model: "CPM", value: 50, currency: "JPY" }, "impression", 1e6)).toBe(
      345.970841,
    );
  });

  it("of ten thousand CPC clicks is their price converted at once", () => {
    // 5 JPY is 0.0345970841… USD: 50,000 JPY is 345.97084121… USD, where 0.034597 a click
    // would make 345.97.
    expect(reportedCost({ model: "CPC", value: 5, currency: "JPY" }, "click", 1e4)).toBe(
      345.970841,
    );
  });

  it("is the price in dollars as it is, whatever the count", () => {
    expect(touchCostUsd({ model: "CPM", value: 4, currency: "USD" }, "impression", DAY, fx)).toBe(
      0.004,
    );
    expect(touchCostUsd({ model: "CPC", value: 0.3, currency: "USD" }, "click", DAY, fx)).toBe(0.3);
  });

  it("is none for a touch its model does not charge, and for a currency no rate converts", () => {
    expect(touchCostUsd({ model: "CPM", value: 4, currency: "EUR" }, "click", DAY, fx)).toBeNull();
    expect(touchCostUsd({ model: "CPI", value: 4, currency: "EUR" }, "click", DAY, fx)).toBeNull();
    expect(touchCostUsd({ model: "CPC", value: 4, currency: "TWD" }, "click", DAY, fx)).toBeNull();
  });
});

describe("a touch's cost fields", () => {
  it("refuses a cost too small to store in the costs' own bounds, not the stores'", () => {
    const value = costFields("a click").cost_value;
    const refused = value.safeParse(1e-7);
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe(
      "must be 0 or of a magnitude from 0.000001 to 1000000000",
    );
    expect(value.safeParse(1e-6).success).toBe(true);
    expect(value.safeParse(1_000_000_000).success).toBe(true);
  });
});
