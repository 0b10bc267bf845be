import { describe, expect, it } from "vitest";
import type {
  CohortQuery,
  OverviewQuery,
  OverviewReport,
  ReportEngine,
} from "../../ports/reports.ts";
import { overviewReport } from "../../reports/overview.ts";
import {
  cachedReportEngine,
  LIVE_REPORT_CACHE_TTL_MS,
  REPORT_CACHE_TTL_MS,
} from "./cached-reports.ts";

const answerOf = (query: OverviewQuery): OverviewReport => overviewReport(query, []);

/** An engine that counts what it is asked, and fails while `failing` says so. */
const countingEngine = () => {
  const asked: string[] = [];
  let failing = false;
  const engine: ReportEngine = {
    async overview(query) {
      asked.push(`overview ${query.appId} ${query.from} ${query.to}`);
      if (failing) throw new Error("Athena is down");
      return answerOf(query);
    },
    async cohorts(query) {
      asked.push(`cohorts ${query.appId} ${query.from} ${query.to}`);
      return [];
    },
    async renamedCampaigns(query) {
      asked.push(`renamed ${query.appId} ${query.from} ${query.to}`);
      return [];
    },
    async skadnetwork() {
      return [];
    },
    async latestEvents(query) {
      asked.push(`latest ${query.appId} ${query.limit} ${query.today}`);
      return [];
    },
    async linkClicks(appId) {
      asked.push(`clicks ${appId}`);
      return new Map([["Kx3v9QpZ2aQ", 3]]);
    },
  };
  const fail = (value: boolean) => {
    failing = value;
  };
  return { engine, asked, fail };
};

const WINDOW: OverviewQuery = {
  appId: "com.example.game",
  from: "2026-11-01",
  to: "2026-11-14",
  excludeServiceIds: ["s-1", "s-2"],
};

describe("cachedReportEngine", () => {
  it("answers the same overview again within the TTL without asking the engine", async () => {
    let clock = 1_000;
    const { engine, asked } = countingEngine();
    const reports = cachedReportEngine(engine, { now: () => clock });
    const first = await reports.overview(WINDOW);
    clock += REPORT_CACHE_TTL_MS - 1;
    // The same installs left out, in another order and repeated, are the same query.
    const again = await reports.overview({ ...WINDOW, excludeServiceIds: ["s-2", "s-1", "s-1"] });
    expect(again).toBe(first);
    expect(asked).toEqual(["overview com.example.game 2026-11-01 2026-11-14"]);
    clock += 1;
    await reports.overview(WINDOW);
    expect(asked).toHaveLength(2);
  });

  it("asks the engine for another window, app, time zone, set of deleted installs or renaming", async () => {
    const { engine, asked } = countingEngine();
    const reports = cachedReportEngine(engine, { now: () => 0 });
    await reports.overview(WINDOW);
    await reports.overview({ ...WINDOW, to: "2026-11-15" });
    await reports.overview({ ...WINDOW, from: "2026-10-31" });
    await reports.overview({ ...WINDOW, appId: "com.example.other" });
    await reports.overview({ ...WINDOW, excludeServiceIds: ["s-1", "s-2", "s-3"] });
    await reports.overview({ ...WINDOW, excludeServiceIds: [] });
    await reports.overview({ ...WINDOW, timeZone: "America/Los_Angeles" });
    const renamed = [
      {
        media_source: "meta",
        campaign_id: "123",
        campaign_name: "Summer v2",
        former_names: ["Summer v1"],
      },
    ];
    await reports.overview({ ...WINDOW, renamed });
    expect(asked).toHaveLength(8);
    await reports.overview({ ...WINDOW, to: "2026-11-15" });
    await reports.overview({ ...WINDOW, renamed });
    expect(asked).toHaveLength(8);
  });

  it("asks the engine again for cohorts that differ in any field, and not for the same in another order", async () => {
    const { engine, asked } = countingEngine();
    const reports = cachedReportEngine(engine, { now: () => 0 });
    const cohorts: CohortQuery = {
      appId: "com.example.game",
      from: "2026-11-01",
      to: "2026-11-14",
      groupBy: "campaign",
      filters: { country: "US" },
      costKeys: ["campaign"],
      excludeServiceIds: ["s-1"],
    };
    const renamed = [
      { media_source: "meta", campaign_id: "1", campaign_name: "B", former_names: ["A"] },
    ];
    const others: CohortQuery[] = [
      { ...cohorts, timeZone: "Europe/Paris" },
      { ...cohorts, groupBy: "country" },
      { ...cohorts, filters: { country: "US", platform: "ios" } },
      { ...cohorts, filters: { country: "US", media_source: "meta" } },
      { ...cohorts, filters: { country: "US", campaign: "B" } },
      { ...cohorts, filters: { country: "FR" } },
      { ...cohorts, costKeys: ["campaign", "country"] },
      { ...cohorts, excludeServiceIds: [] },
      { ...cohorts, renamed },
      { ...cohorts, renamed: [{ ...renamed[0], former_names: ["A", "Z"] }] as typeof renamed },
    ];
    for (const query of [cohorts, ...others]) await reports.cohorts(query);
    expect(asked).toHaveLength(others.length + 1);
    // The same queries, their fields in another order, a filter given as undefined.
    await reports.cohorts({
      excludeServiceIds: ["s-1"],
      costKeys: ["campaign"],
      filters: { platform: undefined, country: "US" },
      groupBy: "campaign",
      to: "2026-11-14",
      from: "2026-11-01",
      appId: "com.example.game",
      renamed: undefined,
    });
    await reports.cohorts({
      ...cohorts,
      renamed: [
        { former_names: ["A"], campaign_name: "B", campaign_id: "1", media_source: "meta" },
      ],
    });
    expect(asked).toHaveLength(others.length + 1);
  });

  it("keeps Apple's postbacks per window for 2 s only", async () => {
    let clock = 0;
    const { engine } = countingEngine();
    let asked = 0;
    const reports = cachedReportEngine(
      {
        ...engine,
        skadnetwork: async () => {
          asked += 1;
          return [];
        },
      },
      { now: () => clock },
    );
    const window = {
      appId: "com.example.game",
      from: new Date("2026-11-01T00:00:00Z"),
      to: new Date("2026-11-14T00:00:00Z"),
    };
    await reports.skadnetwork(window);
    await reports.skadnetwork({ ...window, from: new Date("2026-11-01T00:00:00Z") });
    await reports.skadnetwork({ ...window, to: new Date("2026-11-15T00:00:00Z") });
    expect(asked).toBe(2);
    clock += LIVE_REPORT_CACHE_TTL_MS;
    await reports.skadnetwork(window);
    expect(asked).toBe(3);
  });

  it("keeps a window's renamed campaigns as it keeps its overview", async () => {
    const { engine, asked } = countingEngine();
    const reports = cachedReportEngine(engine, { now: () => 0 });
    await reports.renamedCampaigns(WINDOW);
    await reports.renamedCampaigns(WINDOW);
    await reports.renamedCampaigns({ ...WINDOW, timeZone: "Europe/Paris" });
    expect(asked).toEqual([
      "renamed com.example.game 2026-11-01 2026-11-14",
      "renamed com.example.game 2026-11-01 2026-11-14",
    ]);
  });

  it("shares one run between the asks that come while it runs", async () => {
    const { engine, asked } = countingEngine();
    const reports = cachedReportEngine(engine);
    const answers = await Promise.all([reports.overview(WINDOW), reports.overview(WINDOW)]);
    expect(answers[0]).toBe(answers[1]);
    expect(asked).toHaveLength(1);
  });

  it("does not remember a failure", async () => {
    const { engine, asked, fail } = countingEngine();
    const reports = cachedReportEngine(engine, { now: () => 0 });
    fail(true);
    await expect(reports.overview(WINDOW)).rejects.toThrow("Athena is down");
    fail(false);
    await expect(reports.overview(WINDOW)).resolves.toMatchObject({ from: WINDOW.from });
    expect(asked).toHaveLength(2);
  });

  it("lets a run that fails after a later one took its place forget nothing of the later one", async () => {
    let clock = 0;
    const runs: { fail: () => void; answer: () => void }[] = [];
    const { engine } = countingEngine();
    const reports = cachedReportEngine(
      {
        ...engine,
        overview: (query) =>
          new Promise<OverviewReport>((resolve, reject) => {
            runs.push({
              fail: () => reject(new Error("Athena is down")),
              answer: () => resolve(answerOf(query)),
            });
          }),
      },
      { now: () => clock },
    );
    const first = reports.overview(WINDOW);
    clock += REPORT_CACHE_TTL_MS;
    const second = reports.overview(WINDOW);
    runs[0]?.fail();
    await expect(first).rejects.toThrow("Athena is down");
    runs[1]?.answer();
    await second;
    expect(await reports.overview(WINDOW)).toBe(await second);
    expect(runs).toHaveLength(2);
  });

  it("keeps the latest events per app, limit and day, and the link clicks per app, for 2 s only", async () => {
    let clock = 0;
    const { engine, asked } = countingEngine();
    const reports = cachedReportEngine(engine, { now: () => clock });
    const latest = {
      appId: "com.example.game",
      limit: 50,
      today: "2026-11-20",
      excludeServiceIds: [],
    };
    await reports.latestEvents(latest);
    await reports.latestEvents(latest);
    await reports.latestEvents({ ...latest, limit: 10 });
    await reports.latestEvents({ ...latest, today: "2026-11-21" });
    await reports.latestEvents({ ...latest, excludeServiceIds: ["s-1"] });
    await reports.linkClicks("com.example.game");
    expect(await reports.linkClicks("com.example.game")).toEqual(new Map([["Kx3v9QpZ2aQ", 3]]));
    expect(asked).toEqual([
      "latest com.example.game 50 2026-11-20",
      "latest com.example.game 10 2026-11-20",
      "latest com.example.game 50 2026-11-21",
      "latest com.example.game 50 2026-11-20",
      "clicks com.example.game",
    ]);
    // What just happened is not hidden for long: the next poll after 2 s asks again.
    clock += LIVE_REPORT_CACHE_TTL_MS;
    await reports.latestEvents(latest);
    await reports.linkClicks("com.example.game");
    expect(asked.slice(5)).toEqual([
      "latest com.example.game 50 2026-11-20",
      "clicks com.example.game",
    ]);
  });

  it("forgets the least recently used answers beyond its bound", async () => {
    const { engine, asked } = countingEngine();
    const reports = cachedReportEngine(engine, { now: () => 0, maxEntries: 2 });
    await reports.overview(WINDOW);
    await reports.overview({ ...WINDOW, to: "2026-11-15" });
    await reports.overview({ ...WINDOW, to: "2026-11-16" });
    await reports.overview(WINDOW);
    expect(asked).toHaveLength(4);
  });
});
