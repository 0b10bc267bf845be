/** The line the Overview and Cohorts pages say under revenue no rate converted. */
import { describe, expect, it } from "vitest";
import { leftOutColumn, unconvertedRevenueLine } from "../../dashboard/src/revenue-left-out.ts";

const leftOut = (events: number, ...amounts: [string, number, number][]) => ({
  revenue_events_unconverted: events,
  revenue_unconverted: amounts.map(([currency, count, amount]) => ({
    currency,
    events: count,
    amount,
  })),
});

describe("unconvertedRevenueLine", () => {
  it("says nothing when every revenue event converted", () => {
    expect(unconvertedRevenueLine(leftOut(0), "overview")).toBeNull();
    expect(unconvertedRevenueLine(leftOut(0), "cohorts")).toBeNull();
  });

  it("says on the Overview how many of the range's events its revenue lacks, and how much in each currency", () => {
    expect(
      unconvertedRevenueLine(leftOut(3, ["VND", 2, 350_000], ["TWD", 1, 300.5]), "overview"),
    ).toBe(
      "3 revenue events of this range are left out of its revenue: no rate of their day converts their currency to US dollars (350,000 VND; 300.5 TWD).",
    );
    expect(unconvertedRevenueLine(leftOut(1, ["KWD", 1, 7.5]), "overview")).toBe(
      "1 revenue event of this range is left out of its revenue: no rate of its day converts its currency to US dollars (7.5 KWD).",
    );
  });

  it("says on the Cohorts page what of the installs' revenue, ARPU and ROAS lack, as before", () => {
    expect(unconvertedRevenueLine(leftOut(2, ["KWD", 1, 7.5], ["XAU", 1, 0.25]), "cohorts")).toBe(
      "2 revenue events of these installs are left out of revenue, ARPU and ROAS: no rate of their day converts their currency to US dollars (7.5 KWD; 0.25 XAU).",
    );
  });
});

describe("leftOutColumn", () => {
  it("adds no column to the Cohorts table when every row's revenue converted", () => {
    expect(leftOutColumn([{ revenue_events_unconverted: 0 }, {}])).toBeNull();
  });

  it("adds a column of each row's revenue events left out when any row lacks some", () => {
    const column = leftOutColumn([
      { revenue_events_unconverted: 0 },
      { revenue_events_unconverted: 1_200 },
    ]);
    expect(column?.head).toBe("Revenue events left out");
    expect(column?.cell({ revenue_events_unconverted: 1_200 })).toBe("1,200");
    expect(column?.cell({ revenue_events_unconverted: 0 })).toBe("0");
  });
});
