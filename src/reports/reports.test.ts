import { describe, expect, it } from "vitest";
import { costRowsOf } from "../costs/cost-rows.ts";
import { deletedInstalls } from "../deletion/deletions.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import type { App } from "../ports/apps.ts";
import type { CostRow } from "../ports/costs.ts";
import type { DeletionRequest } from "../ports/deletions.ts";
import type { CohortRow } from "../ports/reports.ts";
import { recordingEngine } from "./recording-engine.test-support.ts";
import { createReports } from "./reports.ts";

/** An app that sets no time zone: its reports count UTC days. */
const NO_APP = { get: async () => undefined };

const request = (serviceId: string, appId = "com.example.game"): DeletionRequest => ({
  requestId: `r-${serviceId}`,
  appId,
  serviceId,
  status: "completed",
  requestedAt: "2026-11-01T00:00:00.000Z",
  completedAt: "2026-11-02T00:00:00.000Z",
});

/** Tombstones hold the newest requests at once; the list, through an index, all the others. */
const NO_COSTS = { listByApp: async () => [] };

const deletions = {
  tombstones: async (appId: string) => ({
    serviceIds: appId === "com.example.game" ? ["s-new", "s-3"] : [],
    version: 2,
  }),
  listByApp: async (appId: string) =>
    [request("s-3"), request("s-1"), request("o-1", "com.example.other")].filter(
      (r) => r.appId === appId,
    ),
};

const CLICKS = new Map([
  ["bbbbbbbbbbb", 2],
  ["Kx3v9QpZ2aQ", 12],
  ["AAAAAAAAAAA", 2],
]);

describe("the reports", () => {
  it("leave out the installs of the app's tombstones and of every request it lists", async () => {
    expect(await deletedInstalls(deletions, "com.example.game")).toEqual(["s-1", "s-3", "s-new"]);
    expect(await deletedInstalls(deletions, "com.example.empty")).toEqual([]);
  });

  it("ask the engine for the window with the deleted installs left out", async () => {
    const { engine, asked } = recordingEngine(CLICKS);
    const reports = createReports({ engine, apps: NO_APP, deletions, costs: NO_COSTS });
    const overview = await reports.overview("com.example.game", {
      from: "2026-11-01",
      to: "2026-11-14",
      country: "DE",
    });
    expect(overview).toMatchObject({ from: "2026-11-01", to: "2026-11-14", time_zone: "UTC" });
    expect(asked).toEqual([
      {
        appId: "com.example.game",
        from: "2026-11-01",
        to: "2026-11-14",
        timeZone: "UTC",
        filters: {
          media_source: undefined,
          campaign: undefined,
          country: "DE",
          platform: undefined,
        },
        excludeServiceIds: ["s-1", "s-3", "s-new"],
        renamed: [],
      },
    ]);
  });

  it("count the days in the app's time zone, and say which", async () => {
    const { engine, asked } = recordingEngine(CLICKS);
    const reports = createReports({
      engine,
      apps: { get: async () => ({ timeZone: "America/Los_Angeles" }) as App },
      deletions,
      costs: NO_COSTS,
    });
    const window = { from: "2026-11-01", to: "2026-11-14" };
    expect(await reports.overview("com.example.game", window)).toMatchObject({
      time_zone: "America/Los_Angeles",
    });
    expect(
      await reports.cohorts("com.example.game", { ...window, group_by: "campaign" }),
    ).toMatchObject({ time_zone: "America/Los_Angeles" });
    expect(asked.map((query) => (query as { timeZone?: string }).timeZone)).toEqual([
      "America/Los_Angeles",
      "America/Los_Angeles",
    ]);
  });

  it("count a cohort's days since install as over by today in the app's time zone, not UTC's", async () => {
    const { engine } = recordingEngine(CLICKS);
    const day = "2026-11-20";
    const base = {
      cohort_day: day,
      media_source: "meta_ads",
      group_key: "Winter",
      installs: 0,
      active: 0,
      revenue_usd: 0,
      clicks: 0,
      impressions: 0,
      cost_usd: 0,
    };
    // Two installs of 20 November, 3 USD of revenue on their day 0.
    const rows: CohortRow[] = [
      { ...base, part: "installs", day_n: null, installs: 2 },
      { ...base, part: "group_days", day_n: 0, active: 2, revenue_usd: 3 },
    ];
    const reportsIn = (timeZone: string | undefined) =>
      createReports({
        engine: { ...engine, cohorts: async () => rows },
        apps: { get: async () => (timeZone ? ({ timeZone } as App) : undefined) },
        deletions,
        costs: NO_COSTS,
        // 20:00 UTC on the 20th: already the 21st in Tokyo.
        now: () => new Date("2026-11-20T20:00:00.000Z"),
      });
    const window = { from: day, to: day, group_by: "campaign" as const };
    const tokyo = await reportsIn("Asia/Tokyo").cohorts("com.example.game", window);
    expect(tokyo.totals.arpu.d0).toBe(1.5);
    // In UTC the 20th is under way: its day 0 is not over yet.
    const utc = await reportsIn(undefined).cohorts("com.example.game", window);
    expect(utc.totals.arpu.d0).toBeNull();
  });

  it("ask for the latest events of today's UTC day", async () => {
    const { engine, asked } = recordingEngine(CLICKS);
    const reports = createReports({
      engine,
      apps: NO_APP,
      deletions,
      costs: NO_COSTS,
      now: () => new Date("2026-11-20T23:59:59.999Z"),
    });
    expect(await reports.latestEvents("com.example.other", 50)).toEqual({ events: [] });
    expect(asked).toEqual([
      { appId: "com.example.other", limit: 50, today: "2026-11-20", excludeServiceIds: ["o-1"] },
    ]);
  });

  it("list link clicks most clicked first", async () => {
    const { engine } = recordingEngine(CLICKS);
    const reports = createReports({ engine, apps: NO_APP, deletions, costs: NO_COSTS });
    expect(await reports.linkClicks("com.example.game")).toEqual({
      clicks: [
        { deeplink_id: "Kx3v9QpZ2aQ", clicks: 12 },
        { deeplink_id: "AAAAAAAAAAA", clicks: 2 },
        { deeplink_id: "bbbbbbbbbbb", clicks: 2 },
      ],
    });
  });

  it("ask for cohorts with the filters, the deleted installs left out, and read the window's cost", async () => {
    const GERMANY_SPEND: CostRow = {
      appId: "com.example.game",
      day: "2026-11-02",
      mediaSource: "meta_ads",
      campaignId: "123",
      campaignName: null,
      adsetId: null,
      adsetName: null,
      adId: null,
      adName: null,
      country: "DE",
      amount: 30,
      currency: "USD",
      amountUsd: 30,
      impressions: null,
      clicks: null,
      receivedAt: "2026-11-03T00:00:00.000Z",
    };
    const { engine, asked } = recordingEngine(CLICKS);
    const costsAsked: unknown[] = [];
    const reports = createReports({
      engine,
      apps: NO_APP,
      deletions,
      costs: {
        listByApp: async (appId, days) => {
          costsAsked.push([appId, days]);
          return [GERMANY_SPEND];
        },
      },
      now: () => new Date("2026-11-20T10:00:00.000Z"),
    });
    const answer = await reports.cohorts("com.example.game", {
      from: "2026-11-01",
      to: "2026-11-14",
      group_by: "country",
      media_source: "meta_ads",
    });
    expect(asked).toEqual([
      {
        appId: "com.example.game",
        from: "2026-11-01",
        to: "2026-11-14",
        timeZone: "UTC",
        groupBy: "country",
        filters: {
          media_source: "meta_ads",
          campaign: undefined,
          country: undefined,
          platform: undefined,
        },
        // The keys the window's cost rows name, which the rows must carry to be matched.
        costKeys: ["campaign", "country"],
        excludeServiceIds: ["s-1", "s-3", "s-new"],
        renamed: [],
      },
    ]);
    expect(costsAsked).toEqual([["com.example.game", { from: "2026-11-01", to: "2026-11-14" }]]);
    expect(answer).toMatchObject({ group_by: "country", totals: { installs: 0, cost_usd: 30 } });

    // The row sent again with amount 0 is taken back: no cost row names that day any more.
    const takenBack = createReports({
      engine: recordingEngine(CLICKS).engine,
      apps: NO_APP,
      deletions,
      costs: { listByApp: async () => [{ ...GERMANY_SPEND, amount: 0, amountUsd: 0 }] },
      now: () => new Date("2026-11-20T10:00:00.000Z"),
    });
    const after = await takenBack.cohorts("com.example.game", {
      from: "2026-11-01",
      to: "2026-11-14",
      group_by: "country",
      media_source: "meta_ads",
    });
    expect(after.totals.cost_usd).toBeNull();
  });

  it("count one ad set's spend sent again in another case or Unicode form once, at its latest", async () => {
    const fx = parseEcbRates("Date,USD,\n2026-11-27,1.05,\n");
    /** A row of one request, as the service stored it when it came. */
    const sent = (at: string, adsetName: string, amount: number): CostRow[] =>
      costRowsOf(
        "com.example.game",
        {
          rows: [
            {
              day: "2026-11-27",
              media_source: "net",
              campaign_id: "c1",
              adset_name: adsetName,
              amount,
              currency: "USD",
            },
          ],
        },
        fx,
        new Date(at),
      );
    const cohortsOf = async (stored: CostRow[]) =>
      createReports({
        engine: recordingEngine(CLICKS).engine,
        apps: NO_APP,
        deletions,
        costs: { listByApp: async () => stored },
        now: () => new Date("2026-11-28T12:00:00Z"),
      }).cohorts("com.example.game", {
        from: "2026-11-27",
        to: "2026-11-27",
        group_by: "adset",
      });
    const first = sent("2026-11-27T20:00:00Z", "Set A", 100);
    const again = sent("2026-11-28T08:00:00Z", "SET A", 80);
    // Stored under keys of their own (the names as sent), listed in the store's order.
    expect((await cohortsOf([...again, ...first])).totals.cost_usd).toBe(80);
    const nfc = sent("2026-11-27T20:00:00Z", "Café".normalize("NFC"), 100);
    const nfd = sent("2026-11-28T08:00:00Z", "Café".normalize("NFD"), 100);
    expect((await cohortsOf([...nfc, ...nfd])).totals.cost_usd).toBe(100);
    // Taken back in another spelling: no cost row names the day any more.
    const takenBack = sent("2026-11-28T09:00:00Z", "set a", 0);
    expect((await cohortsOf([...first, ...takenBack, ...again])).totals.cost_usd).toBeNull();
  });
});

describe("the reports of a campaign renamed at its network", () => {
  const renamed = [
    {
      media_source: "net",
      campaign_id: "c1",
      campaign_name: "Summer v2",
      former_names: ["Summer v1"],
    },
  ];
  const fx = parseEcbRates("Date,USD,\n2026-11-27,1.05,\n");
  /** Its cost, sent under the name it had before. */
  const spend = costRowsOf(
    "com.example.game",
    {
      rows: [
        {
          day: "2026-11-27",
          media_source: "net",
          campaign_id: "c1",
          campaign_name: "Summer v1",
          amount: 100,
          currency: "USD",
        },
      ],
    },
    fx,
    new Date("2026-11-28T08:00:00Z"),
  );
  const reportsWith = () => {
    const recording = recordingEngine(CLICKS, renamed);
    const reports = createReports({
      engine: recording.engine,
      apps: NO_APP,
      deletions,
      costs: { listByApp: async () => spend },
      now: () => new Date("2026-11-28T12:00:00Z"),
    });
    return { reports, asked: recording.asked };
  };

  it("ask the report's query to name it by its latest name", async () => {
    const { reports, asked } = reportsWith();
    await reports.overview("com.example.game", { from: "2026-11-27", to: "2026-11-27" });
    await reports.cohorts("com.example.game", {
      from: "2026-11-27",
      to: "2026-11-27",
      group_by: "campaign",
    });
    expect(asked.map((query) => "renamed" in query && query.renamed)).toEqual([renamed, renamed]);
  });

  it("count a cost row of its id sent under its old name as the campaign's, by its latest name", async () => {
    const { reports } = reportsWith();
    const window = { from: "2026-11-27", to: "2026-11-27", group_by: "campaign" } as const;
    const all = await reports.cohorts("com.example.game", window);
    expect(all.totals.cost_usd).toBe(100);
    expect(all.groups.map((group) => group.group)).toEqual(["Summer v2"]);
    const latest = await reports.cohorts("com.example.game", { ...window, campaign: "Summer v2" });
    expect(latest.totals.cost_usd).toBe(100);
    // The old name is no campaign's now: neither its installs nor its cost.
    const old = await reports.cohorts("com.example.game", { ...window, campaign: "Summer v1" });
    expect(old.totals.cost_usd).toBeNull();
  });
});
