/** The Cost page's table of stored rows: its total row says a figure no row reports as "—". */
import { describe, expect, it } from "vitest";
import type { CostRow } from "../../dashboard/src/api.ts";
import { costTable } from "../../dashboard/src/cost-table.ts";

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
