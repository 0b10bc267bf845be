/** The Cost page's table of stored rows: its total row says a figure no row reports as "—". */
import { describe, expect, it } from "vitest";
import type { CostRow } from "../../dashboard/src/api.ts";
import { costRowsUnconverted, costTable } from "../../dashboard/src/cost-table.ts";

const row = (campaign: string, figures: Partial<CostRow> = {}): CostRow => ({
  day: "2026-11-27",
  media_source: "examplenet",
  campaign_id: campaign,
  campaign_name: null,
  adset_id: null,
  adset_name: null,
  ad_id: null,
  ad_name: null,
  country: null,
  amount: 10,
  currency: "USD",
  amount_usd: 10,
  impressions: null,
  clicks: null,
  received_at: "2026-11-28T08:00:00.000Z",
  ...figures,
});

/** The total row's cells by the header's names. */
const totalOf = (rows: CostRow[]) => {
  const table = costTable(rows);
  return Object.fromEntries(table.head.map((name, at) => [name, table.foot[at]]));
};

describe("costTable's total", () => {
  it("shows — for impressions and clicks when no row reports them, as for an amount no rate converts", () => {
    const total = totalOf([row("c1"), row("c2", { amount_usd: null })]);
    expect(total).toMatchObject({ Impressions: "—", Clicks: "—", "Amount USD": "$10.00" });
  });

  it("adds up the impressions and clicks of the rows that report them", () => {
    const total = totalOf([
      row("c1", { impressions: 1200, clicks: 30 }),
      row("c2"),
      row("c3", { impressions: 0, clicks: 5 }),
    ]);
    expect(total).toMatchObject({ Impressions: "1,200", Clicks: "35" });
  });

  it("shows a reported 0 as 0", () => {
    expect(totalOf([row("c1", { impressions: 0, clicks: 0 })])).toMatchObject({
      Impressions: "0",
      Clicks: "0",
    });
  });
});

describe("costTable and the rows the reports count", () => {
  /** Rows of one day and campaign: an ad set's, received on the day given. */
  const adset = (name: string, amount: number, received: string, figures: Partial<CostRow> = {}) =>
    row("w-1", {
      day: "2026-11-02",
      adset_name: name,
      amount,
      amount_usd: amount,
      received_at: `${received}T08:00:00.000Z`,
      ...figures,
    });

  it("totals the latest row of a spend sent under two spellings of its names, as the reports do", () => {
    const rows = [
      adset("Set A", 100, "2026-11-03", { impressions: 1000, clicks: 10 }),
      adset("SET A", 120, "2026-11-04", { impressions: 1500, clicks: 20 }),
      // Sent with amount 0: the spend taken back.
      adset("Set B", 0, "2026-11-04"),
    ];
    expect(totalOf(rows)).toMatchObject({
      "Amount USD": "$120.00",
      Impressions: "1,500",
      Clicks: "20",
      "Media source": "3 rows, 1 counted",
    });
    const received = costTable(rows).body.map((body) => body.cells.at(-1));
    expect(received).toEqual([
      "2026-11-03 08:00:00 UTC (replaced)",
      "2026-11-04 08:00:00 UTC",
      "2026-11-04 08:00:00 UTC (taken back)",
    ]);
  });

  it("counts a row a later one replaced among neither the total nor the rows no rate converts", () => {
    const rows = [
      adset("Set A", 100, "2026-11-03", { currency: "TWD", amount_usd: null }),
      adset("set a", 90, "2026-11-04"),
      adset("Set C", 7, "2026-11-04", { currency: "TWD", amount_usd: null }),
    ];
    expect(costRowsUnconverted(rows)).toBe(1);
    expect(totalOf(rows)).toMatchObject({
      "Amount USD": "$90.00",
      "Media source": "3 rows, 2 counted",
    });
  });

  it("says only the rows when every one counts", () => {
    expect(totalOf([row("c1"), row("c2")])).toMatchObject({ "Media source": "2 rows" });
    expect(costRowsUnconverted([row("c1", { amount_usd: null }), row("c2")])).toBe(1);
  });
});
