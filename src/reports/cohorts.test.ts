/**
 * The cohorts fold's cost: the cost rows of POST /v1/costs with the service's own (installs a
 * CPI touch won, CPC clicks, CPM impressions: the query's `cost_usd`), a cost row winning the
 * day, media source and campaign it names. The query itself, on DuckDB: src/adapters/duckdb/
 * cohorts.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { CostRow } from "../ports/costs.ts";
import type { CohortFilters, CohortGroup, CohortRow } from "../ports/reports.ts";
import { cohortReport } from "./cohorts.ts";

const DAY = "2026-11-02";
const NEXT = "2026-11-03";
const TODAY = "2026-11-20";

const row = (overrides: Partial<CohortRow>): CohortRow => ({
  part: "installs",
  cohort_day: DAY,
  media_source: "meta_ads",
  group_key: "Winter",
  day_n: null,
  installs: 0,
  active: 0,
  revenue_usd: 0,
  clicks: 0,
  impressions: 0,
  cost_usd: 0,
  ...overrides,
});

/** `installs` installs of a day and group, `cost_usd` of them won by CPI touches. */
const installs = (n: number, cost_usd: number, overrides: Partial<CohortRow> = {}) =>
  row({ part: "installs", installs: n, cost_usd, ...overrides });

/** A day's clicks of a group, `cost_usd` of them CPC clicks' cost. */
const clicks = (n: number, cost_usd: number, overrides: Partial<CohortRow> = {}) =>
  row({ part: "touches", clicks: n, cost_usd, ...overrides });

/** Revenue on day `day_n` since install. */
const revenue = (usd: number, day_n: number, overrides: Partial<CohortRow> = {}) =>
  row({ part: "days", day_n, active: 1, revenue_usd: usd, ...overrides });

const costRow = (overrides: Partial<CostRow> = {}): CostRow => ({
  appId: "com.example.game",
  day: DAY,
  mediaSource: "meta_ads",
  campaignId: "w-1",
  campaignName: "Winter",
  adsetId: null,
  adsetName: null,
  adId: null,
  adName: null,
  country: null,
  amount: 100,
  currency: "USD",
  amountUsd: 100,
  impressions: null,
  clicks: null,
  receivedAt: "2026-11-03T00:00:00.000Z",
  ...overrides,
});

const report = (
  rows: CohortRow[],
  options: { costs?: CostRow[]; groupBy?: CohortGroup; filters?: CohortFilters } = {},
) =>
  cohortReport({
    from: DAY,
    to: NEXT,
    today: TODAY,
    groupBy: options.groupBy ?? "campaign",
    filters: options.filters ?? {},
    rows,
    costs: options.costs ?? [],
  });

const groupOf = (answer: ReturnType<typeof report>, group: string | null) =>
  answer.groups.find((found) => found.group === group);

describe("cohort cost from the service's own touches", () => {
  it("counts what CPI installs and CPC clicks cost, without any cost row", () => {
    const answer = report([
      // 4 installs, 2 of them won by 2.75 USD CPI clicks; 20 clicks, 10 at 0.1 USD (CPC).
      installs(4, 5.5),
      clicks(20, 1),
      revenue(13, 0),
      installs(2, 0, { media_source: "organic", group_key: null }),
    ]);
    expect(groupOf(answer, "Winter")).toMatchObject({
      installs: 4,
      clicks: 20,
      cost_usd: 6.5,
      ecpi_usd: 1.625,
      roas: { d0: 2 },
    });
    expect(groupOf(answer, null)).toMatchObject({ installs: 2, cost_usd: null, ecpi_usd: null });
    // eCPI over the paid installs only: the organic ones cost nothing and would dilute it.
    expect(answer.totals).toMatchObject({ installs: 6, cost_usd: 6.5, ecpi_usd: 1.625 });
    expect(answer.cost_rows_unconverted).toBe(0);
  });

  it("lets a cost row win its day, media source and campaign: the network's figure, once", () => {
    const answer = report(
      [
        installs(4, 5.5),
        clicks(20, 1),
        // The day after: no cost row names it, so the clicks' own cost counts.
        installs(1, 2.75, { cohort_day: NEXT }),
        clicks(5, 0.5, { cohort_day: NEXT }),
        // Another campaign the same day, which the cost row does not name.
        installs(1, 3, { group_key: "Spring" }),
        // Another network the same day and campaign name.
        clicks(10, 2, { media_source: "tiktok_ads" }),
      ],
      { costs: [costRow({ amount: 40, amountUsd: 40 })] },
    );
    expect(groupOf(answer, "Winter")?.media_source).toBe("meta_ads");
    expect(answer.groups.map((group) => [group.media_source, group.group, group.cost_usd])).toEqual(
      [
        // 40 (the cost row, not 6.5) on the 2nd, and 3.25 of its own on the 3rd.
        ["meta_ads", "Winter", 43.25],
        ["meta_ads", "Spring", 3],
        ["tiktok_ads", "Winter", 2],
      ],
    );
    expect(answer.totals.cost_usd).toBe(48.25);
    expect(answer.totals.ecpi_usd).toBe(8.041667);
  });

  it("lets a cost row no rate converts win all the same, its day's cost unknown", () => {
    const answer = report([installs(4, 5.5), clicks(20, 1)], {
      costs: [costRow({ currency: "XAU", amountUsd: null })],
    });
    expect(answer.cost_rows_unconverted).toBe(1);
    expect(groupOf(answer, "Winter")).toMatchObject({ installs: 4, cost_usd: null });
  });

  it("holds the rule per day and media source when the rows do not name the campaign", () => {
    const rows = [
      installs(3, 5.5, { group_key: "DE" }),
      installs(1, 2.75, { group_key: "FR" }),
      clicks(9, 1, { group_key: "DE" }),
      installs(1, 4, { group_key: "DE", cohort_day: NEXT }),
    ];
    const byCountry = report(rows, { groupBy: "country", costs: [costRow({ country: "DE" })] });
    // The cost row (of Germany) is the day's cost of meta_ads: the service's own on the 2nd
    // goes, the 3rd's stays.
    expect(byCountry.groups.map((group) => [group.group, group.installs, group.cost_usd])).toEqual([
      ["DE", 4, 104],
      ["FR", 1, null],
    ]);
    expect(byCountry.totals.cost_usd).toBe(104);
    // A campaign the filter names is every row's: the rule holds for that campaign.
    const spring = report(rows, {
      groupBy: "country",
      filters: { campaign: "Spring" },
      costs: [costRow({ country: "DE" })],
    });
    expect(spring.totals.cost_usd).toBe(13.25);
  });

  it("gives a platform's cost when no cost row is of the window, none when one is", () => {
    const rows = [
      installs(2, 5.5, { group_key: "android" }),
      installs(1, 0, { group_key: "ios" }),
      clicks(9, 1, { group_key: "android" }),
    ];
    const own = report(rows, { groupBy: "platform" });
    expect(own.groups.map((group) => [group.group, group.cost_usd])).toEqual([
      ["android", 6.5],
      ["ios", null],
    ]);
    const withRows = report(rows, { groupBy: "platform", costs: [costRow()] });
    expect(withRows.groups.map((group) => group.cost_usd)).toEqual([null, null]);
    expect(withRows.totals.cost_usd).toBe(100);
    expect(
      report(rows, { filters: { platform: "android" }, costs: [costRow()] }).totals.cost_usd,
    ).toBeNull();
  });
});

describe("the cohorts' days", () => {
  it("are counted from `from` to `to`, so a window ending on 9999-12-31 ends", () => {
    const answer = cohortReport({
      from: "9999-12-29",
      to: "9999-12-31",
      today: TODAY,
      groupBy: "campaign",
      filters: {},
      rows: [],
      costs: [],
    });
    expect(answer.active_users.daily.map(({ day }) => day)).toEqual([
      "9999-12-29",
      "9999-12-30",
      "9999-12-31",
    ]);
  });
});
