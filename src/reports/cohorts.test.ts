/**
 * The cohorts fold's cost: the cost rows of POST /v1/costs with the service's own (installs a
 * CPI touch won, CPC clicks, CPM impressions: the query's `cost_usd`), a cost row replacing the
 * service's own cost of what it names, whatever the grouping; clicks from touches, else the cost
 * rows'; ROAS over every cost day. The query itself, on DuckDB: src/adapters/duckdb/
 * cohorts.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { CostRow } from "../ports/costs.ts";
import type { CohortFilters, CohortGroup, CohortRow } from "../ports/reports.ts";
import { SUMMARY_DAY_NS, SUMMARY_DAYS } from "./cohort-query.ts";
import { cohortReport, cohortRowOf, costKeysNamedBy } from "./cohorts.ts";

const DAY = "2026-11-02";
const NEXT = "2026-11-03";
const TODAY = "2026-11-20";

/**
 * A row of the query: by default of the campaign Winter (id w-1), grouped by campaign; its
 * campaign key, as the query spells it, that of its campaign unless given.
 */
const row = (overrides: Partial<CohortRow>): CohortRow => {
  const made = rowOf(overrides);
  return { campaign_key: made.campaign_name ?? made.campaign_id ?? null, ...made };
};
const rowOf = (overrides: Partial<CohortRow>): CohortRow => ({
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
  campaign_id: "w-1",
  campaign_name: "Winter",
  cost_adset_id: null,
  cost_adset_name: null,
  cost_ad_id: null,
  cost_ad_name: null,
  cost_country: null,
  ...overrides,
});

/** A row's campaign, and its group when grouped by campaign (its name, else its id). */
const campaign = (id: string | null, name: string | null) => ({
  campaign_id: id,
  campaign_name: name,
  group_key: name ?? id,
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

/**
 * A test's rows as the query gives them. A test writes a group's day since install as one `days`
 * row of its campaign; the query gives it as the cohort's (`days`, of no group), the group's on
 * each summary day (`group_days`: active that day, revenue up to it), and a paid install's
 * campaign's revenue up to each of ROAS's days (`campaign_revenue`).
 */
const asQueried = (rows: readonly CohortRow[]): CohortRow[] =>
  rows.flatMap((row) => {
    if (row.part !== "days" || row.day_n === null) return [row];
    const dayN = row.day_n;
    const paid = row.media_source !== null && row.media_source !== "organic";
    const ofCohort: CohortRow = { ...row, media_source: null, group_key: null, campaign_key: null };
    const ofGroup = SUMMARY_DAY_NS.filter((n) => n >= dayN).map(
      (n): CohortRow => ({
        ...row,
        part: "group_days",
        campaign_key: null,
        day_n: n,
        active: n === dayN ? row.active : 0,
      }),
    );
    const ofCampaign = SUMMARY_DAYS.roas
      .filter((n) => paid && n >= dayN)
      .map((n): CohortRow => ({ ...row, part: "campaign_revenue", day_n: n, active: 0 }));
    return [ofCohort, ...ofGroup, ...ofCampaign];
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
    rows: asQueried(rows),
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
      // Not attributed yet: no paid install either.
      installs(3, 0, {
        media_source: null,
        group_key: null,
        campaign_id: null,
        campaign_name: null,
      }),
    ]);
    expect(answer.totals).toMatchObject({ installs: 9, paid_installs: 4 });
    expect(groupOf(answer, "Winter")).toMatchObject({
      installs: 4,
      clicks: 20,
      cost_usd: 6.5,
      ecpi_usd: 1.625,
      roas: { d0: 2 },
    });
    const organic = answer.groups.find((group) => group.media_source === "organic");
    expect(organic).toMatchObject({ installs: 2, cost_usd: null, ecpi_usd: null });
    // eCPI over the paid installs only: the organic ones cost nothing and would dilute it.
    expect(answer.totals).toMatchObject({ installs: 9, cost_usd: 6.5, ecpi_usd: 1.625 });
    expect(answer.cost_rows_unconverted).toBe(0);
  });

  it("orders groups of as many installs and as much cost by media source, then group, those of none last", () => {
    const none = { campaign_id: null, campaign_name: null, group_key: null };
    const answer = report([
      installs(2, 0, none),
      installs(2, 0, { media_source: null, ...none }),
      installs(2, 0),
      installs(2, 0, { media_source: "apple_search_ads", ...campaign("s-1", "Spring") }),
    ]);
    expect(answer.groups.map((group) => [group.media_source, group.group])).toEqual([
      ["apple_search_ads", "Spring"],
      ["meta_ads", "Winter"],
      ["meta_ads", null],
      [null, null],
    ]);
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
        installs(1, 3, campaign("s-1", "Spring")),
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

  it("replaces only what the cost row names: its campaign, and its country when it has one", () => {
    const de = { group_key: "DE", cost_country: "DE" };
    const rows = [
      installs(3, 5.5, de),
      installs(1, 2.75, { group_key: "FR", cost_country: "FR" }),
      clicks(9, 1, de),
      installs(1, 4, { ...de, cohort_day: NEXT }),
      // Another campaign of the same day, source and country: the cost row is not its cost.
      installs(1, 3, { ...de, ...campaign("s-1", "Spring"), group_key: "DE" }),
    ];
    const byCountry = report(rows, { groupBy: "country", costs: [costRow({ country: "DE" })] });
    // On the 2nd the cost row is Winter's cost in Germany: its 6.50 there goes, France's 2.75
    // and Spring's 3 stay, and so does the 3rd's 4.
    expect(byCountry.groups.map((group) => [group.group, group.installs, group.cost_usd])).toEqual([
      ["DE", 5, 107],
      ["FR", 1, 2.75],
    ]);
    expect(byCountry.totals.cost_usd).toBe(109.75);
    const spring = report(
      rows.filter((found) => found.campaign_id === "s-1"),
      { groupBy: "country", filters: { campaign: "Spring" }, costs: [costRow({ country: "DE" })] },
    );
    expect(spring.totals.cost_usd).toBe(3);
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

  it("gives a platform's cost of a media source or campaign no cost row names", () => {
    const tiktok = { media_source: "tiktok_ads", group_key: "android" };
    const rows = [installs(2, 5.5, tiktok), clicks(9, 1, tiktok)];
    // The cost row is meta_ads': no cost of tiktok_ads' installs, whatever their platform.
    const android = { media_source: "tiktok_ads", platform: "android" };
    const answer = report(rows, { filters: android, costs: [costRow()] });
    expect(answer.totals.cost_usd).toBe(6.5);
    expect(answer.totals.ecpi_usd).toBe(3.25);
    // Another campaign of the same media source likewise.
    const spring = { campaign: "Spring", platform: "android" };
    expect(report([], { filters: spring, costs: [costRow()] }).totals.cost_usd).toBeNull();
    const springRows = [installs(1, 3, { ...campaign("s-1", "Spring"), group_key: "android" })];
    expect(report(springRows, { filters: spring, costs: [costRow()] }).totals.cost_usd).toBe(3);
    // Of the media source the cost row names, one platform's share of it is not known.
    const meta = { media_source: "meta_ads", platform: "android" };
    expect(report(rows, { filters: meta, costs: [costRow()] }).totals.cost_usd).toBeNull();
  });

  it("gives a country's cost from its own cost rows, none when a row of every country names it", () => {
    const de = { group_key: "DE", cost_country: "DE" };
    const rows = [installs(2, 5.5, de), clicks(9, 1, de)];
    const germany = { filters: { country: "DE" } };
    expect(report(rows, germany).totals.cost_usd).toBe(6.5);
    expect(report(rows, { ...germany, costs: [costRow({ country: "DE" })] }).totals.cost_usd).toBe(
      100,
    );
    // Not the touch costs the row replaces, nor the row's whole amount: unknown.
    expect(report(rows, { ...germany, costs: [costRow()] }).totals.cost_usd).toBeNull();
    expect(report(rows, { costs: [costRow()] }).totals.cost_usd).toBe(100);
    // Another country's row is none of Germany's, whatever the platform asked.
    const germanAndroid = { filters: { country: "DE", platform: "android" } };
    expect(
      report(rows, { ...germanAndroid, costs: [costRow({ country: "FR" })] }).totals.cost_usd,
    ).toBe(6.5);
    expect(
      report(rows, { ...germanAndroid, costs: [costRow({ country: "DE" })] }).totals.cost_usd,
    ).toBeNull();
  });
});

describe("cohort cost rows against the service's own cost and touches", () => {
  it("match a campaign by its id when both name one, else by its name", () => {
    // 3 installs of campaign 123, named Winter Sale on its clicks, each won by a 2 USD CPI click.
    const rows = [installs(3, 6, campaign("123", "Winter Sale"))];
    const byId = report(rows, { costs: [costRow({ campaignId: "123", campaignName: null })] });
    expect(byId.groups.map((group) => [group.group, group.installs, group.cost_usd])).toEqual([
      ["Winter Sale", 3, 100],
    ]);
    expect(byId.totals.cost_usd).toBe(100);
    // Renamed since: the id says it is the same campaign.
    const renamed = report(rows, {
      costs: [costRow({ campaignId: "123", campaignName: "Winter Sale 2" })],
    });
    expect(renamed.groups.map((group) => [group.group, group.cost_usd])).toEqual([
      ["Winter Sale", 100],
    ]);
    // Clicks that name it by its name alone: the name says it.
    const byName = report([installs(3, 6, campaign(null, "Winter Sale"))], {
      costs: [costRow({ campaignId: "123", campaignName: "Winter Sale" })],
    });
    expect(byName.totals.cost_usd).toBe(100);
    // Another id of the same name is another campaign: both costs count.
    const other = report(rows, {
      costs: [costRow({ campaignId: "456", campaignName: "Winter Sale" })],
    });
    expect(other.totals.cost_usd).toBe(106);
    // A filter on the campaign's name keeps the cost row that names it by its id.
    const filtered = report(rows, {
      filters: { campaign: "Winter Sale" },
      costs: [costRow({ campaignId: "123", campaignName: null })],
    });
    expect(filtered.totals.cost_usd).toBe(100);
    // A filter spelt apart from the installs' finds none of them (the query matches the name as
    // spelt): nor does it find their campaign's cost.
    const apart = report([], { filters: { campaign: "winter" }, costs: [costRow()] });
    expect(apart.totals).toMatchObject({ installs: 0, cost_usd: null });
    // Spelt as the cost row names it, by its name or its id, it finds it, installs or none.
    for (const campaign of ["Winter", "w-1"]) {
      expect(report([], { filters: { campaign }, costs: [costRow()] }).totals.cost_usd).toBe(100);
    }
  });

  it("give the same totals whatever the grouping, each group's cost replaced on its own keys", () => {
    // Campaigns A and B, one install each on DAY; B's 50 clicks cost 5 USD (CPC); a cost row of
    // 30 USD for A.
    const keyOf: Record<CohortGroup, (name: string) => string> = {
      campaign: (name) => name,
      adset: (name) => `${name}-adset`,
      ad: (name) => `${name}-ad`,
      country: () => "DE",
      platform: () => "android",
    };
    const costs = [costRow({ campaignId: "A", campaignName: "A", amountUsd: 30, clicks: 900 })];
    const answers = (Object.keys(keyOf) as CohortGroup[]).map((groupBy) => {
      const of = (name: string) => ({ ...campaign(name, name), group_key: keyOf[groupBy](name) });
      return report([installs(1, 0, of("A")), installs(1, 0, of("B")), clicks(50, 5, of("B"))], {
        groupBy,
        costs,
      });
    });
    for (const answer of answers) {
      expect(answer.totals).toMatchObject({
        installs: 2,
        clicks: 950,
        cost_usd: 35,
        ecpi_usd: 17.5,
      });
    }
    // By country: B's clicks in Germany; the cost row, of every country, a row of its own.
    const byCountry = answers[3];
    expect(byCountry?.groups.map((group) => [group.group, group.cost_usd])).toEqual([
      ["DE", 5],
      [null, 30],
    ]);
  });

  it("count the touches of a campaign that has them, and the cost rows' clicks of one that has none", () => {
    const search = { media_source: "google_ads", ...campaign("g-1", "Search") };
    const answer = report([installs(10, 0), clicks(100, 0), installs(10, 0, search)], {
      costs: [
        costRow({
          mediaSource: "google_ads",
          campaignId: "g-1",
          campaignName: "Search",
          amountUsd: 50,
          impressions: 20_000,
          clicks: 1_000,
        }),
        // Winter's network says 400 clicks: the service counted 100 of its own.
        costRow({ clicks: 400, impressions: 8_000 }),
      ],
    });
    expect(
      answer.groups.map((group) => [group.media_source, group.clicks, group.impressions]),
    ).toEqual([
      // Its touches are clicks: the impressions are the network's.
      ["meta_ads", 100, 8_000],
      ["google_ads", 1_000, 20_000],
    ]);
    // The totals are the groups' sum.
    expect(answer.totals).toMatchObject({
      clicks: 1_100,
      impressions: 28_000,
      conversion_rate: 0.0182,
    });
  });

  it("count the service's own impressions of a campaign that has them, not the network's beside them", () => {
    const answer = report(
      [
        installs(10, 0),
        clicks(100, 0),
        clicks(0, 0, { impressions: 5_000 }),
        clicks(0, 0, { impressions: 2_000 }),
      ],
      { costs: [costRow({ clicks: 400, impressions: 8_000 })] },
    );
    expect(answer.groups.map((group) => [group.group, group.clicks, group.impressions])).toEqual([
      ["Winter", 100, 7_000],
    ]);
    expect(answer.totals).toMatchObject({ clicks: 100, impressions: 7_000 });
  });

  it("count the cost rows' clicks of the days the service has no touch of the campaign, and its touches of the others", () => {
    // The campaign's link went live on the 3rd: the network's clicks of the 2nd are the only
    // ones known of that day; of the 3rd, the service's own.
    const answer = report([installs(10, 0), clicks(100, 0, { cohort_day: NEXT })], {
      costs: [
        costRow({ day: DAY, clicks: 400, impressions: 8_000 }),
        costRow({ day: NEXT, clicks: 300, impressions: 6_000 }),
      ],
    });
    expect(answer.groups.map((group) => [group.group, group.clicks, group.impressions])).toEqual([
      ["Winter", 500, 14_000],
    ]);
    expect(answer.totals).toMatchObject({
      clicks: 500,
      impressions: 14_000,
      conversion_rate: 0.02,
    });
  });

  it("weigh ROAS against the spend of every cost day that reached day N, with installs or not", () => {
    const answer = report(
      [installs(2, 0, { cohort_day: NEXT }), revenue(10, 0, { cohort_day: NEXT, active: 2 })],
      { costs: [costRow({ day: DAY, amountUsd: 30 }), costRow({ day: NEXT, amountUsd: 10 })] },
    );
    expect(answer.totals).toMatchObject({ cost_usd: 40, ecpi_usd: 20, revenue_usd: 10 });
    expect(answer.totals.roas).toEqual({ d0: 0.25, d7: 0.25, d30: null });
    // On the 10th the 2nd's day 7 is over and the 3rd's is not: no revenue yet against 30 USD
    // spent, not "no cost".
    const tenth = cohortReport({
      from: DAY,
      to: NEXT,
      today: "2026-11-10",
      groupBy: "campaign",
      filters: {},
      rows: asQueried([
        installs(2, 0, { cohort_day: NEXT }),
        revenue(10, 0, { cohort_day: NEXT, active: 2 }),
      ]),
      costs: [costRow({ day: DAY, amountUsd: 30 }), costRow({ day: NEXT, amountUsd: 10 })],
    });
    expect(tenth.totals.roas).toEqual({ d0: 0.25, d7: 0, d30: null });
  });

  it("leave today out of every figure: a day under way is not yet the cohort's day N", () => {
    // 10 installs on the 2nd; 4 of them back on the 3rd by noon of the 3rd, 8 by its end.
    const rows = [installs(10, 0), revenue(5, 0, { active: 10 })];
    const on = (today: string, backOnTheThird: number) =>
      cohortReport({
        from: DAY,
        to: NEXT,
        today,
        groupBy: "campaign",
        filters: {},
        rows: asQueried([...rows, revenue(0, 1, { active: backOnTheThird })]),
        costs: [costRow({ day: DAY, amountUsd: 10 })],
      });
    const during = on(NEXT, 4);
    expect(during.totals.retention.d1).toBeNull();
    expect(during.cohorts[0]?.retention.slice(0, 3)).toEqual([1, null, null]);
    // The 2nd itself was over: its day 0 counts.
    expect(during.totals.roas.d0).toBe(0.5);
    const after = on("2026-11-04", 8);
    expect(after.totals.retention.d1).toBe(0.8);
    expect(after.cohorts[0]?.retention.slice(0, 3)).toEqual([1, 0.8, null]);
    // Today's installs have no day over yet: no ROAS D0 of them, not a zero.
    expect(on(DAY, 0).totals.roas.d0).toBeNull();
  });

  it("counts the spend of touches of no ad set, ad or country once, when the network's rows name them", () => {
    // A link with no ad set: 200 CPC taps at 0.50 on the 2nd; the network's cost of that day
    // comes by ad set, 70 and 40. Its taps' spend is in those rows, whichever: 110, not 210.
    const bySet = [
      costRow({ adsetId: "a1", amount: 70, amountUsd: 70 }),
      costRow({ adsetId: "a2", amount: 40, amountUsd: 40 }),
    ];
    const rows = [installs(20, 0), clicks(200, 100)];
    expect(report(rows, { costs: bySet }).totals.cost_usd).toBe(110);
    expect(report(rows, { costs: bySet }).totals.ecpi_usd).toBe(5.5);
    // As a row of the whole campaign would give.
    expect(
      report(rows, { costs: [costRow({ amount: 110, amountUsd: 110 })] }).totals.cost_usd,
    ).toBe(110);
    // Taps of an ad set of their own are still that ad set's alone: a2's row is not a1's cost.
    const ofA1 = { cost_adset_id: "a1", cost_adset_name: null };
    expect(
      report([installs(20, 0), clicks(100, 50, ofA1)], { costs: [bySet[1] as CostRow] }).totals
        .cost_usd,
    ).toBe(90);
    // Installs won by CPI touches of no known country, under rows by country: 30, not 36.
    const byCountry = [
      costRow({ country: "DE", amount: 20, amountUsd: 20 }),
      costRow({ country: "FR", amount: 10, amountUsd: 10 }),
    ];
    expect(report([installs(3, 6)], { costs: byCountry }).totals.cost_usd).toBe(30);
    // A row of the whole campaign holds every ad set's spend, a1's taps' among it, while another
    // campaign's row names ad sets (so the rows carry theirs): 110 and Spring's 5, not 160 more.
    const wholeBeside = [
      costRow({ amount: 110, amountUsd: 110 }),
      costRow({
        campaignId: "s-1",
        campaignName: "Spring",
        adsetId: "s1",
        amount: 5,
        amountUsd: 5,
      }),
    ];
    expect(
      report([installs(20, 0), clicks(100, 50, ofA1)], { costs: wholeBeside }).totals.cost_usd,
    ).toBe(115);
  });

  it("put an ad set's or ad's cost row in the group of its installs, named by id or by name", () => {
    // Grouped by ad set with cost rows naming ad sets, the rows carry their ad set's own id and
    // name; those that cost something, their cost keys too.
    const ofSet = { group_key: "Winter-A1", group_id: "a1", group_name: "Winter-A1" };
    const inSet = { ...ofSet, cost_adset_id: "a1", cost_adset_name: "Winter-A1" };
    const answer = report([installs(10, 0, ofSet), clicks(40, 4, inSet)], {
      groupBy: "adset",
      costs: [costRow({ adsetId: "a1", amount: 50, amountUsd: 50 })],
    });
    expect(answer.groups.map((group) => [group.group, group.installs, group.cost_usd])).toEqual([
      ["Winter-A1", 10, 50],
    ]);
    expect(answer.groups[0]?.ecpi_usd).toBe(5);
    // By ad likewise: the row names the ad by its name, the clicks by id and name.
    const inAd = { group_key: "Snow", group_id: "ad-7", group_name: "Snow" };
    const byAd = report([installs(4, 0, inAd)], {
      groupBy: "ad",
      costs: [costRow({ adName: "Snow", amount: 8, amountUsd: 8 })],
    });
    expect(byAd.groups.map((group) => [group.group, group.installs, group.cost_usd])).toEqual([
      ["Snow", 4, 8],
    ]);
  });

  it("put an ad set's cost row in one group of a renamed ad set, whatever order the rows come in", () => {
    const before = { group_key: "Set A", group_id: "a1", group_name: "Set A" };
    const after = { group_key: "Set A (EU)", group_id: "a1", group_name: "Set A (EU)" };
    const rows = [installs(10, 0, before), installs(10, 0, { ...after, cohort_day: NEXT })];
    const costs = [costRow({ adsetId: "a1", amount: 50, amountUsd: 50 })];
    const costed = (given: CohortRow[]) =>
      report(given, { groupBy: "adset", costs }).groups.map((group) => [
        group.group,
        group.cost_usd,
      ]);
    expect(costed(rows)).toEqual(costed([...rows].reverse()));
  });

  it("put a cost row naming an ad set by its id in the group of its installs that cost nothing", () => {
    // Installs of ad set a1, named "Set A", won by clicks of no cost: no cost key of theirs.
    const ofSet = { group_key: "Set A", group_id: "a1", group_name: "Set A" };
    const answer = report([installs(10, 0, ofSet), clicks(40, 0, ofSet)], {
      groupBy: "adset",
      costs: [costRow({ adsetId: "a1", amount: 50, amountUsd: 50 })],
    });
    expect(answer.groups.map((group) => [group.group, group.installs, group.cost_usd])).toEqual([
      ["Set A", 10, 50],
    ]);
    expect(answer.groups[0]?.ecpi_usd).toBe(5);
    // Its ad by its id likewise.
    const ofAd = { group_key: "Snow", group_id: "ad-7", group_name: "Snow" };
    const byAd = report([installs(4, 0, ofAd)], {
      groupBy: "ad",
      costs: [costRow({ adId: "ad-7", amount: 8, amountUsd: 8 })],
    });
    expect(byAd.groups.map((group) => [group.group, group.installs, group.cost_usd])).toEqual([
      ["Snow", 4, 8],
    ]);
  });

  it("match a name whatever its case, the spaces around it and its Unicode form, the group as the touches spell it", () => {
    // Clicks that name their campaign by its name alone (composed é), 6 USD of CPC.
    const rows = [
      installs(3, 0, campaign(null, "Soldes d'\u00e9t\u00e9")),
      clicks(60, 6, campaign(null, "Soldes d'\u00e9t\u00e9")),
    ];
    // The network's report: upper case, a space around it, é as e and a combining accent.
    const answer = report(rows, {
      costs: [costRow({ campaignId: "123", campaignName: " SOLDES D'E\u0301TE\u0301 " })],
    });
    expect(answer.groups.map((group) => [group.group, group.installs, group.cost_usd])).toEqual([
      ["Soldes d'\u00e9t\u00e9", 3, 100],
    ]);
    // The network's figure replaces the clicks' own: 100, not 106.
    expect(answer.totals.cost_usd).toBe(100);
    // The clicks the service counted, not the cost row's.
    expect(answer.totals.clicks).toBe(60);
    // An id with a space around it is the same id; a filter on the name keeps the row.
    const byId = report([installs(3, 6, campaign(" 123", "Winter"))], {
      filters: { campaign: "winter" },
      costs: [costRow({ campaignId: "123", campaignName: null })],
    });
    expect(byId.totals.cost_usd).toBe(100);
    // An ad set's name likewise.
    const ofSet = { group_key: "Set A", group_id: null, group_name: "Set A" };
    const bySet = report(
      [installs(2, 0, ofSet), clicks(10, 1, { ...ofSet, cost_adset_name: "Set A" })],
      { groupBy: "adset", costs: [costRow({ adsetName: "set a\u00a0" })] },
    );
    expect(bySet.groups.map((group) => [group.group, group.cost_usd])).toEqual([["Set A", 100]]);
  });

  it("weigh the totals' eCPI and ROAS against the paid installs of the media sources with a cost", () => {
    const tiktok = { media_source: "tiktok_ads", ...campaign("t-1", "Reach") };
    const answer = report(
      [
        installs(4, 0),
        revenue(50, 0, { active: 4 }),
        // A network of no cost row and no cost carried: what its installs cost is not known.
        installs(6, 0, tiktok),
        revenue(30, 0, { ...tiktok, active: 6 }),
        installs(2, 0, { media_source: "organic", group_key: null }),
      ],
      { costs: [costRow()] },
    );
    expect(answer.totals).toMatchObject({
      installs: 12,
      cost_usd: 100,
      paid_installs: 10,
      paid_installs_with_cost: 4,
      // 100 over meta_ads' 4 installs, not over 10.
      ecpi_usd: 25,
      // meta_ads' 50 of revenue, not 80.
      roas: { d0: 0.5 },
    });
    const reach = answer.groups.find((group) => group.media_source === "tiktok_ads");
    expect(reach).toMatchObject({
      cost_usd: null,
      ecpi_usd: null,
      paid_installs: 6,
      paid_installs_with_cost: 0,
    });
    expect(groupOf(answer, "Winter")).toMatchObject({ paid_installs_with_cost: 4, ecpi_usd: 25 });
    // The same whatever the grouping.
    const byCountry = report(
      [
        installs(4, 0, { group_key: "DE" }),
        revenue(50, 0, { group_key: "DE", active: 4 }),
        installs(6, 0, { ...tiktok, group_key: "DE" }),
        revenue(30, 0, { ...tiktok, group_key: "DE", active: 6 }),
      ],
      { groupBy: "country", costs: [costRow()] },
    );
    expect(byCountry.totals).toMatchObject({ ecpi_usd: 25, paid_installs_with_cost: 4 });
  });

  it("weigh eCPI and ROAS by campaign: a campaign of no cost is left out beside its media source's costed ones", () => {
    // meta_ads' Winter costs 100 (a cost row); its Spring has no cost row and no carried cost.
    const spring = campaign("s-1", "Spring");
    const rows = (groupKey: (name: string) => string) => [
      installs(10, 0, { group_key: groupKey("Winter") }),
      revenue(50, 0, { group_key: groupKey("Winter"), active: 10 }),
      installs(10, 0, { ...spring, group_key: groupKey("Spring") }),
      revenue(50, 0, { ...spring, group_key: groupKey("Spring"), active: 10 }),
    ];
    const weighed = {
      cost_usd: 100,
      paid_installs: 20,
      paid_installs_with_cost: 10,
      // 100 over Winter's 10 installs, not over 20; Winter's 50 of revenue, not 100.
      ecpi_usd: 10,
      roas: { d0: 0.5 },
    };
    const byCampaign = report(
      rows((name) => name),
      { costs: [costRow()] },
    );
    expect(byCampaign.totals).toMatchObject(weighed);
    expect(groupOf(byCampaign, "Winter")).toMatchObject({ ecpi_usd: 10, roas: { d0: 0.5 } });
    expect(groupOf(byCampaign, "Spring")).toMatchObject({ cost_usd: null, ecpi_usd: null });
    // The same whatever the grouping, and so is a group that holds both campaigns.
    const byCountry = report(
      rows(() => "DE"),
      { groupBy: "country", costs: [costRow({ country: "DE" })] },
    );
    expect(byCountry.totals).toMatchObject(weighed);
    expect(byCountry.groups).toMatchObject([{ group: "DE", ...weighed }]);
    // A cost row naming the campaign by its id alone weighs against the installs of that id.
    const byId = report(
      rows((name) => name),
      {
        costs: [costRow({ campaignName: null })],
      },
    );
    expect(byId.totals).toMatchObject(weighed);
    // Carried cost weighs likewise: Spring's CPI installs cost 30, and count again.
    const carried = report([
      installs(10, 0),
      revenue(50, 0, { active: 10 }),
      installs(10, 30, spring),
      revenue(60, 0, { ...spring, active: 10 }),
    ]);
    expect(carried.totals).toMatchObject({
      cost_usd: 30,
      paid_installs_with_cost: 10,
      ecpi_usd: 3,
      roas: { d0: 2 },
    });
  });

  it("weigh a campaign's cost against the installs of each of its names: renamed within the window, or named by its id alone", () => {
    // w-1 was Winter on the first day and Winter Sale on the next; the network names it by its
    // id and its new name on both days' cost rows.
    const renamed = campaign("w-1", "Winter Sale");
    const rows = [
      installs(50, 0),
      revenue(50, 0, { active: 50 }),
      installs(50, 0, { ...renamed, cohort_day: NEXT }),
      revenue(50, 0, { ...renamed, cohort_day: NEXT, active: 50 }),
    ];
    const costs = [
      costRow({ campaignName: "Winter Sale" }),
      costRow({ campaignName: "Winter Sale", day: NEXT }),
    ];
    const weighed = {
      cost_usd: 200,
      paid_installs: 100,
      paid_installs_with_cost: 100,
      ecpi_usd: 2,
      roas: { d0: 0.5 },
    };
    // Whichever name the engine's rows give first, and whatever the grouping.
    expect(report(rows, { costs }).totals).toMatchObject(weighed);
    expect(report([...rows].reverse(), { costs }).totals).toMatchObject(weighed);
    // Grouped by campaign, the cost goes to the group of the name it was sent with.
    const byName = report(rows, { costs }).groups.map((group) => [group.group, group.cost_usd]);
    expect(byName).toEqual([
      ["Winter Sale", 200],
      ["Winter", null],
    ]);
    const byCountry = report(
      rows.map((found) => ({ ...found, group_key: "DE" })),
      { groupBy: "country", costs: costs.map((cost) => costRow({ ...cost, country: "DE" })) },
    );
    expect(byCountry.totals).toMatchObject(weighed);
    // Named by its id alone on the second day's rows: the same.
    const idAlone = campaign("w-1", null);
    const partly = [
      installs(50, 0),
      revenue(50, 0, { active: 50 }),
      installs(50, 0, { ...idAlone, cohort_day: NEXT }),
      revenue(50, 0, { ...idAlone, cohort_day: NEXT, active: 50 }),
    ];
    expect(report(partly, { costs }).totals).toMatchObject(weighed);
    expect(report([...partly].reverse(), { costs }).totals).toMatchObject(weighed);
  });

  it("give no ROAS to a group of a campaign's cost whose installs are in other groups, 0 to spend that won none", () => {
    // Grouped by ad set, with the network's cost of the whole campaign: 200, for Set A's 40
    // installs and Set B's 60, each of 1 USD on day 0.
    const setA = { group_key: "Set A", group_id: "a1", group_name: "Set A" };
    const setB = { group_key: "Set B", group_id: "a2", group_name: "Set B" };
    const rows = [
      installs(40, 0, setA),
      revenue(40, 0, { ...setA, active: 40 }),
      installs(60, 0, setB),
      revenue(60, 0, { ...setB, active: 60 }),
    ];
    const answer = report(rows, {
      groupBy: "adset",
      costs: [costRow({ amount: 200, amountUsd: 200 })],
    });
    expect(answer.totals).toMatchObject({ cost_usd: 200, ecpi_usd: 2, roas: { d0: 0.5 } });
    // Its row of no ad set holds the cost: no eCPI, and no ROAS rather than 0.
    expect(groupOf(answer, null)).toMatchObject({
      installs: 0,
      cost_usd: 200,
      ecpi_usd: null,
      roas: { d0: null },
    });
    // A campaign that won no install in the window: its spend earned nothing, 0.
    const spring = costRow({
      campaignId: "s-1",
      campaignName: "Spring",
      amount: 50,
      amountUsd: 50,
    });
    const unearned = report(rows, { groupBy: "adset", costs: [spring] });
    expect(groupOf(unearned, null)).toMatchObject({ cost_usd: 50, roas: { d0: 0 } });
    // By country, a row of Germany where the campaign won its installs elsewhere: it bought
    // nothing in Germany, 0.
    const inFrance = rows.map((found) => ({ ...found, group_key: "FR" }));
    const germany = report(inFrance, {
      groupBy: "country",
      costs: [costRow({ country: "DE", amount: 200, amountUsd: 200 })],
    });
    expect(groupOf(germany, "DE")).toMatchObject({ cost_usd: 200, roas: { d0: 0 } });
  });

  it("convert the clicks of the campaigns that have them into their own paid installs, not another's", () => {
    // meta_ads' Winter: 100 clicks, 10 installs; Apple Search Ads' installs come with no click
    // the service or a cost row knows of.
    const search = { media_source: "apple_search_ads", ...campaign("as-1", "Brand") };
    const rows = [clicks(100, 0), installs(10, 0), installs(50, 0, search)];
    const answer = report(rows);
    expect(answer.totals).toMatchObject({ clicks: 100, paid_installs: 60, conversion_rate: 0.1 });
    expect(groupOf(answer, "Winter")?.conversion_rate).toBe(0.1);
    expect(groupOf(answer, "Brand")?.conversion_rate).toBeNull();
    // A cost row's clicks count for a campaign the service has no touches of.
    const reported = report(rows, {
      costs: [
        costRow({
          mediaSource: "apple_search_ads",
          campaignId: "as-1",
          campaignName: "Brand",
          clicks: 200,
        }),
      ],
    });
    expect(reported.totals).toMatchObject({ clicks: 300, conversion_rate: 0.2 });
  });

  it("count the unconverted cost rows the filters keep, and only those", () => {
    const rows = [installs(1, 0, { media_source: "google_ads", ...campaign("g-1", "Search") })];
    const vnd = (mediaSource: string) =>
      costRow({ mediaSource, currency: "VND", amount: 1e6, amountUsd: null });
    const google = report(rows, {
      filters: { media_source: "google_ads" },
      costs: [vnd("meta_ads"), vnd("google_ads")],
    });
    expect(google.cost_rows_unconverted).toBe(1);
    expect(
      report(rows, { costs: [vnd("meta_ads"), vnd("google_ads")] }).cost_rows_unconverted,
    ).toBe(2);
    expect(
      report(rows, { filters: { country: "DE" }, costs: [vnd("meta_ads")] }).cost_rows_unconverted,
    ).toBe(0);
  });
});

describe("cohort cost carried by links and clicks that no rate converts", () => {
  it("is counted beside the cost it is left out of, as unconverted cost rows are", () => {
    // Two installs won by CPI touches: one of 4 USD, one of 100,000 VND (no rate converts it).
    const answer = report([
      installs(1, 4),
      installs(1, 0, { cost_unconverted: 1 }),
      clicks(30, 1.5, { cost_unconverted: 10 }),
      revenue(8, 0),
    ]);
    expect(answer.touch_costs_unconverted).toBe(11);
    expect(answer.cost_rows_unconverted).toBe(0);
    expect(answer.totals).toMatchObject({ installs: 2, cost_usd: 5.5 });
  });

  it("is counted when every carried cost is unconverted, the cost then unknown", () => {
    const answer = report([installs(2, 0, { cost_unconverted: 2 })]);
    expect(answer.touch_costs_unconverted).toBe(2);
    expect(answer.totals.cost_usd).toBeNull();
  });

  it("is not counted where a cost row replaces it: the network's figure stands for it", () => {
    const answer = report(
      [
        installs(2, 0, { cost_unconverted: 2 }),
        clicks(5, 0, { cost_unconverted: 5, cohort_day: NEXT }),
      ],
      { costs: [costRow({ amount: 40, amountUsd: 40 })] },
    );
    // The cost row names the 2nd; the clicks of the 3rd are no cost row's.
    expect(answer.touch_costs_unconverted).toBe(5);
    expect(answer.totals.cost_usd).toBe(40);
  });

  it("is none without such installs and touches", () => {
    expect(report([installs(2, 5.5), clicks(3, 0.3)]).touch_costs_unconverted).toBe(0);
  });
});

describe("the cohorts' days", () => {
  it("are counted from `from` to `to`, so a window ending on 9999-12-31 ends", () => {
    const answer = cohortReport({
      from: "9999-12-29",
      to: "9999-12-31",
      today: "9999-12-31",
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

  it("end today for the active users: a window to tomorrow has no day not begun, at 0", () => {
    const answer = cohortReport({
      from: "2026-11-19",
      to: "2026-11-21",
      today: TODAY,
      groupBy: "campaign",
      filters: {},
      rows: [
        row({ part: "active_day", cohort_day: "2026-11-19", active: 4 }),
        row({ part: "active_day", cohort_day: "2026-11-20", active: 2 }),
      ],
      costs: [],
    });
    expect(answer.active_users.daily).toEqual([
      { day: "2026-11-19", active: 4 },
      { day: "2026-11-20", active: 2 },
    ]);
    // Today is under way: its 2 so far are shown, and left out of the mean.
    expect(answer.active_users.average_daily).toBe(4);
  });

  it("give no average DAU while no day of the range is over", () => {
    const answer = cohortReport({
      from: TODAY,
      to: TODAY,
      today: TODAY,
      groupBy: "campaign",
      filters: {},
      rows: [row({ part: "active_day", cohort_day: TODAY, active: 3 })],
      costs: [],
    });
    expect(answer.active_users).toEqual({
      range: 0,
      average_daily: null,
      daily: [{ day: TODAY, active: 3 }],
    });
  });
});

describe("the cohorts' campaigns with days of no cost", () => {
  it("names the install days of paid installs with no cost, of campaigns with a cost on others", () => {
    const LATER = "2026-11-04";
    const spring = campaign("s-1", "Spring");
    const autumn = campaign("a-1", "Autumn");
    const answer = report(
      [
        // Winter spelt another way on a row that comes first: the name is the first by text.
        installs(1, 0, { ...campaign("w-1", "winter "), cohort_day: NEXT }),
        // Winter: a cost row on DAY, none on NEXT or LATER.
        installs(4, 0),
        installs(2, 0, { cohort_day: NEXT }),
        installs(1, 0, { cohort_day: LATER }),
        // Spring: no cost on any day, which is no late cost but none known.
        installs(3, 0, { ...spring, cohort_day: NEXT }),
        // Autumn: its CPI clicks carry its cost on NEXT; on LATER a cost row in gold.
        installs(2, 5, { ...autumn, cohort_day: NEXT }),
        installs(2, 0, { ...autumn, cohort_day: LATER }),
        // Organic installs cost nothing, whatever the day.
        installs(5, 0, { media_source: "organic", ...campaign(null, null) }),
        // Gold: its only cost row no rate converts, so it has no eCPI or ROAS to mislead.
        installs(1, 0, campaign("g-1", "Gold")),
        installs(2, 0, { ...campaign("g-1", "Gold"), cohort_day: NEXT }),
      ],
      {
        costs: [
          costRow(),
          costRow({
            ...{ campaignId: "a-1", campaignName: "Autumn", day: LATER },
            ...{ currency: "XAU", amountUsd: null },
          }),
          costRow({
            ...{ campaignId: "g-1", campaignName: "Gold" },
            ...{ currency: "XAU", amountUsd: null },
          }),
        ],
      },
    );
    expect(answer.cost_days_missing).toEqual([
      { media_source: "meta_ads", campaign: "Winter", days: [NEXT, LATER], paid_installs: 4 },
    ]);
    // A platform's cost is not known with cost rows in the window: nothing to say of its days.
    const ios = report([installs(1, 0, { cohort_day: NEXT })], {
      costs: [costRow()],
      filters: { platform: "ios" },
    });
    expect(ios.totals.cost_usd).toBeNull();
    expect(ios.cost_days_missing).toEqual([]);
  });
});

describe("the cohorts' paying users on day N", () => {
  it("are the installs that first paid by day N, over the installs of the days that reached it", () => {
    const YOUNG = "2026-11-15";
    // As the query gives them: on each day paying users are given for, those paying by then.
    const firstPaid = (count: number, day_n: number, overrides: Partial<CohortRow> = {}) =>
      SUMMARY_DAYS.paying
        .filter((n) => n >= day_n)
        .map((n) => row({ part: "payers", installs: count, day_n: n, ...overrides }));
    const answer = report([
      installs(10, 0),
      ...firstPaid(1, 0),
      ...firstPaid(2, 3),
      ...firstPaid(1, 12),
      // Day 0 over, day 7 not yet: its payer of day 4 is in no figure.
      installs(10, 0, { cohort_day: YOUNG }),
      ...firstPaid(1, 0, { cohort_day: YOUNG }),
      ...firstPaid(1, 4, { cohort_day: YOUNG }),
    ]);
    // Day 0: 2 of 20; day 7: 3 of the first day's 10; day 30 reached by none.
    expect(answer.totals.paying_user_rate).toEqual({ d0: 0.1, d7: 0.3, d30: null });
    // No payer is no revenue: the other figures are the `days` rows'.
    expect(answer.totals.revenue_usd).toBe(0);
    expect(answer.totals.retention.d1).toBe(0);
  });
});

describe("the cohorts' ARPU on day N", () => {
  it("is each install day's revenue to day N over its installs, of the days that reached it", () => {
    const YOUNG = "2026-11-15";
    const answer = report([
      installs(4, 0),
      revenue(4, 0),
      revenue(8, 6),
      revenue(20, 20),
      // Day 0 over, day 7 not yet.
      installs(4, 0, { cohort_day: YOUNG }),
      revenue(2, 0, { cohort_day: YOUNG }),
      // Installed today: no day over.
      installs(2, 0, { cohort_day: TODAY, media_source: "organic", group_key: null }),
    ]);
    // To date, the young installs lower it: 34 USD over 10 installs.
    expect(answer.totals.arpu_usd).toBe(3.4);
    // Day 0: 6 USD over the 8 installs of the days it is over; day 7: 12 over the 4 of the 2nd.
    expect(answer.totals.arpu).toEqual({ d0: 0.75, d7: 3, d30: null });
    expect(groupOf(answer, "Winter")?.arpu).toEqual({ d0: 0.75, d7: 3, d30: null });
    expect(groupOf(answer, null)?.arpu).toEqual({ d0: null, d7: null, d30: null });
  });
});

describe("the cohorts' revenue no rate converted", () => {
  it("is counted, per currency with its amount, beside the revenue it is left out of", () => {
    // Of the group of the installs they are of, as the query gives them.
    const { media_source, group_key } = installs(2, 0);
    const unconverted = (currency: string, events: number, amount: number) =>
      row({
        part: "unconverted_revenue",
        media_source,
        group_key,
        revenue_currency: currency,
        revenue_events: events,
        revenue_amount: amount,
      });
    const answer = report([
      installs(2, 0),
      revenue(10, 0, { active: 2 }),
      unconverted("XAU", 1, 0.5),
      unconverted("KWD", 3, 12.300_000_000_1),
    ]);
    expect(answer.revenue_events_unconverted).toBe(4);
    expect(answer.revenue_unconverted).toEqual([
      { currency: "KWD", events: 3, amount: 12.3 },
      { currency: "XAU", events: 1, amount: 0.5 },
    ]);
    // In no figure: not an install, not revenue; said in the totals and in its group.
    expect(answer.totals).toMatchObject({
      installs: 2,
      revenue_usd: 10,
      revenue_events_unconverted: 4,
    });
    expect(answer.groups).toHaveLength(1);
    expect(answer.groups[0]?.revenue_events_unconverted).toBe(4);
    expect(report([installs(2, 0)]).revenue_events_unconverted).toBe(0);
    expect(report([installs(2, 0)]).revenue_unconverted).toEqual([]);
  });
});

describe("a cohorts result row", () => {
  it("reads the campaign and cost keys as Athena's CSV gives them, an empty field as none", () => {
    const fields = {
      part: "touches",
      cohort_day: "2026-11-02",
      media_source: "meta_ads",
      group_key: "DE",
      day_n: "",
      installs: "0",
      active: "0",
      revenue_usd: "0.0",
      clicks: "20",
      impressions: "5",
      cost_usd: "2.0",
      campaign_id: "w-1",
      campaign_name: "",
      cost_adset_id: "as-1",
      cost_adset_name: "",
      cost_ad_id: "",
      cost_ad_name: "",
      cost_country: "DE",
      group_id: "",
      group_name: "",
      revenue_currency: "",
      revenue_events: "0",
      revenue_amount: "0.0",
      cost_unconverted: "3",
    };
    expect(
      cohortRowOf({
        ...fields,
        part: "unconverted_revenue",
        revenue_currency: "KWD",
        revenue_events: "3",
        revenue_amount: "12.5",
      }),
    ).toMatchObject({ revenue_currency: "KWD", revenue_events: 3, revenue_amount: 12.5 });
    expect(cohortRowOf(fields)).toMatchObject({
      part: "touches",
      group_key: "DE",
      clicks: 20,
      cost_usd: 2,
      campaign_id: "w-1",
      campaign_name: null,
      cost_adset_id: "as-1",
      cost_ad_id: null,
      cost_country: "DE",
      cost_unconverted: 3,
    });
    // A result of before the column: none.
    const { cost_unconverted: _, ...older } = fields;
    expect(cohortRowOf(older).cost_unconverted).toBe(0);
    // DuckDB's BIGINT and DATE as its client gives them; a day with a time, cut to the day.
    expect(
      cohortRowOf({ ...fields, installs: 7n, cohort_day: "2026-11-02 00:00:00", day_n: 3n }),
    ).toMatchObject({ installs: 7, cohort_day: "2026-11-02", day_n: 3 });
  });

  it("refuses a result row it cannot read, rather than count it as zero or as another part", () => {
    const fields = { part: "installs", cohort_day: "2026-11-02", installs: "1", active: "0" };
    expect(() => cohortRowOf({ ...fields, installs: "" })).toThrow(
      "cohorts result column installs is not a number: ",
    );
    expect(() => cohortRowOf({ ...fields, installs: "x" })).toThrow(/installs is not a number: x/);
    expect(() => cohortRowOf({ ...fields, installs: null })).toThrow(/installs is not a number/);
    expect(() => cohortRowOf({ ...fields, part: "everything" })).toThrow(/of no part: everything/);
    expect(() => cohortRowOf({ ...fields, cohort_day: "" })).toThrow(/of no part: installs/);
  });
});

describe("the cost keys the query is asked for", () => {
  it("are the campaign's, and an ad set's, an ad's or a country's only where a cost row names one, by id or by name", () => {
    expect(costKeysNamedBy([])).toEqual([]);
    expect(costKeysNamedBy([costRow()])).toEqual(["campaign"]);
    expect(costKeysNamedBy([costRow(), costRow({ adsetName: "Broad" })])).toEqual([
      "campaign",
      "adset",
    ]);
    expect(costKeysNamedBy([costRow({ adsetId: "as-1" })])).toEqual(["campaign", "adset"]);
    expect(costKeysNamedBy([costRow({ adName: "Video" })])).toEqual(["campaign", "ad"]);
    expect(costKeysNamedBy([costRow({ adId: "ad-1" })])).toEqual(["campaign", "ad"]);
    expect(costKeysNamedBy([costRow(), costRow({ country: "DE" })])).toEqual([
      "campaign",
      "country",
    ]);
  });
});
