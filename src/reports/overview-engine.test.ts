/**
 * The overview on DuckDB over a lake of files, where an engine's own reading of the query
 * shows: an install's latest attribution is read as it is, its nulls included, as Athena's
 * `max_by` reads it; revenue no rate converted is counted beside the revenue.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeAttribution, lakeEvent } from "../../test/support/records.ts";
import { createReadWriteLock } from "../adapters/duckdb/read-write-lock.ts";
import { createDuckDbReportEngine } from "../adapters/duckdb/reports.ts";
import { createLocalDeliveryStream } from "../adapters/local-stream/delivery-stream.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  type LakeTable,
  nullColumns,
  TOUCHES_TABLE,
} from "../lake/lake-tables.ts";

const APP = "com.example.latest";
/**
 * An app whose Meta campaign s-1 was renamed at its network in the day (Summer v1, then Summer
 * v2), beside a Google campaign of the same id.
 */
const RENAMED = "com.example.renamed";
/**
 * An app with installs of 2026-09-01: one taken that day, one taken 70 days later (a phone
 * offline since its first open), lying in the partition of the day before it arrived, and one
 * of 2026-08-20 taken that late too.
 */
const LATE = "com.example.late";

describe("the overview on DuckDB", () => {
  let dir = "";
  let duckdb: DuckDBInstance;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "overview-engine-"));
    duckdb = await DuckDBInstance.create(":memory:");
    const lay = async (table: LakeTable, records: LakeRecord[]) => {
      const stream = await createLocalDeliveryStream({
        table,
        duckdb,
        lakeDir: join(dir, "lake"),
        walDir: join(dir, "wal"),
      });
      await stream.put(records);
      await stream.close();
    };
    const install = (serviceId: string) =>
      lakeEvent({
        app_id: APP,
        event_id: `i-${serviceId}`,
        service_id: serviceId,
        event_name: "service_install",
        event_time: "2026-11-10T12:00:00.000Z",
      });
    const byLink = (serviceId: string, at: string) =>
      lakeAttribution({
        app_id: APP,
        service_id: serviceId,
        media_source: "link",
        match_status: "matched",
        matching_type: "network",
        click_id: `c-${serviceId}`,
        attributed_at: at,
      });
    const byAppleAds = (serviceId: string, at: string) =>
      lakeAttribution({
        app_id: APP,
        service_id: serviceId,
        media_source: "apple_search_ads",
        match_status: "matched_no_params",
        matching_type: "search_ads",
        click_id: null,
        attributed_at: at,
      });
    // s-1: a link's click with a deep link path won it first, Apple Ads (no click id) later;
    // s-2: the other way round.
    /** A purchase of s-1's: `usd` null where no rate converts its currency. */
    const purchase = (n: number, revenue: number, currency: string, usd: number | null) =>
      lakeEvent({
        app_id: APP,
        event_id: `p-${n}`,
        service_id: "s-1",
        event_name: "service_purchase",
        event_type: "PURCHASE",
        event_time: "2026-11-10T13:00:00.000Z",
        revenue,
        currency,
        revenue_usd: usd,
      });
    await lay(EVENTS_TABLE, [
      install("s-1"),
      install("s-2"),
      install("s-3"),
      purchase(1, 5, "USD", 5),
      purchase(2, 250_000, "VND", null),
      purchase(3, 300, "TWD", null),
      purchase(4, 100_000, "VND", null),
    ]);
    await lay(ATTRIBUTIONS_TABLE, [
      byLink("s-1", "2026-11-10T12:00:01.000Z"),
      byAppleAds("s-1", "2026-11-10T12:05:00.000Z"),
      byAppleAds("s-2", "2026-11-10T12:00:01.000Z"),
      byLink("s-2", "2026-11-10T12:05:00.000Z"),
      // s-3: an iPhone that had the app, installing again from a link's click.
      {
        ...byLink("s-3", "2026-11-10T12:00:01.000Z"),
        install_type: "reinstall_same_device",
        reinstall: 1,
      },
    ]);
    const click = (serviceId: string, path: string): LakeRecord => ({
      ...nullColumns(TOUCHES_TABLE),
      app_id: APP,
      click_id: `c-${serviceId}`,
      touch_type: "click",
      touch_time: "2026-11-10T11:00:00.000Z",
      received_at: "2026-11-10T11:00:00.000Z",
      source: "link",
      params: JSON.stringify({ deep_link_path: path }),
    });
    await lay(TOUCHES_TABLE, [
      click("s-1", "/shop"),
      click("s-2", "/levels/7"),
      click("s-3", "/again"),
    ]);

    // RENAMED: clicks of Summer v1 at 08:00 and, renamed, Summer v2 at 11:00 (and Summer v3 the
    // next day, after the window); r-0 won at 09:00 by the first, r-1 at 12:00 by the second,
    // r-late at 13:00 by the first (the latest install, by a click from before the rename); r-g
    // by Google's campaign of the same id. r-0 buys at 13:00.
    const adClick = (
      clickId: string,
      at: string,
      mediaSource: string,
      campaignName: string,
      campaignId = "s-1",
    ): LakeRecord => ({
      ...nullColumns(TOUCHES_TABLE),
      app_id: RENAMED,
      click_id: clickId,
      touch_type: "click",
      touch_time: at,
      received_at: at,
      source: "network",
      media_source: mediaSource,
      campaign_id: campaignId,
      campaign_name: campaignName,
      params: "{}",
    });
    await lay(TOUCHES_TABLE, [
      adClick("c-old", "2026-11-10T08:00:00.000Z", "meta_ads", "Summer v1"),
      adClick("c-new", "2026-11-10T11:00:00.000Z", "meta_ads", "Summer v2"),
      adClick("c-next", "2026-11-11T08:00:00.000Z", "meta_ads", "Summer v3"),
      adClick("c-google", "2026-11-10T08:30:00.000Z", "google_ads", "Other"),
      // The next day, a new campaign given the name Summer v1 left.
      adClick("c-reused", "2026-11-11T09:00:00.000Z", "meta_ads", "Summer v1", "s-9"),
    ]);
    const renamedInstall = (serviceId: string, at: string) =>
      lakeEvent({
        app_id: RENAMED,
        event_id: `i-${serviceId}`,
        service_id: serviceId,
        event_name: "service_install",
        event_time: at,
      });
    const won = (serviceId: string, at: string, mediaSource: string, campaignName: string) =>
      lakeAttribution({
        app_id: RENAMED,
        service_id: serviceId,
        media_source: mediaSource,
        match_status: "matched",
        campaign_id: "s-1",
        campaign_name: campaignName,
        attributed_at: at,
      });
    await lay(EVENTS_TABLE, [
      renamedInstall("r-0", "2026-11-10T09:00:00.000Z"),
      renamedInstall("r-1", "2026-11-10T12:00:00.000Z"),
      renamedInstall("r-late", "2026-11-10T13:00:00.000Z"),
      renamedInstall("r-g", "2026-11-10T10:00:00.000Z"),
      lakeEvent({
        app_id: RENAMED,
        service_id: "r-0",
        event_name: "service_purchase",
        event_type: "PURCHASE",
        event_time: "2026-11-10T13:00:00.000Z",
        revenue: 4,
        currency: "USD",
        revenue_usd: 4,
      }),
    ]);
    await lay(ATTRIBUTIONS_TABLE, [
      won("r-0", "2026-11-10T09:00:01.000Z", "meta_ads", "Summer v1"),
      won("r-1", "2026-11-10T12:00:01.000Z", "meta_ads", "Summer v2"),
      won("r-late", "2026-11-10T13:00:01.000Z", "meta_ads", "Summer v1"),
      won("r-g", "2026-11-10T10:00:01.000Z", "google_ads", "Other"),
    ]);

    const lateInstall = (serviceId: string, at: string, receivedAt: string) =>
      lakeEvent({
        app_id: LATE,
        event_id: `i-${serviceId}`,
        service_id: serviceId,
        event_name: "service_install",
        event_time: at,
        received_at: receivedAt,
      });
    await lay(EVENTS_TABLE, [
      lateInstall("l-0", "2026-09-01T10:00:00.000Z", "2026-09-01T10:00:01.000Z"),
    ]);
    await lay(EVENTS_TABLE, [
      lateInstall("l-late", "2026-09-01T11:00:00.000Z", "2026-11-10T11:00:00.000Z"),
      lateInstall("l-older", "2026-08-20T11:00:00.000Z", "2026-11-10T11:00:01.000Z"),
      // Its session the day it arrived: an event of that day's partition, not of the window.
      lakeEvent({
        app_id: LATE,
        service_id: "l-late",
        event_name: "service_level_up",
        event_time: "2026-11-10T11:00:02.000Z",
      }),
    ]);
    await lay(ATTRIBUTIONS_TABLE, [
      { ...won("l-0", "2026-09-01T10:00:02.000Z", "meta_ads", "Autumn"), app_id: LATE },
      { ...won("l-late", "2026-11-10T11:00:03.000Z", "meta_ads", "Autumn"), app_id: LATE },
      { ...won("l-older", "2026-11-10T11:00:04.000Z", "meta_ads", "Autumn"), app_id: LATE },
    ]);
  });
  afterAll(async () => {
    duckdb?.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  const engine = () =>
    createDuckDbReportEngine({
      duckdb,
      lakeDir: join(dir, "lake"),
      lakeFiles: createReadWriteLock(),
    });
  const DAY = { from: "2026-11-10", to: "2026-11-10" };

  /** The overview of the day the lake holds, `filters` applied, as src/reports/reports.ts asks. */
  const overview = async (filters = {}, appId = APP) => {
    const renamed = await engine().renamedCampaigns({ appId, ...DAY });
    return engine().overview({ appId, ...DAY, filters, excludeServiceIds: [], renamed });
  };

  it("reads each install's latest attribution whole: no deep link path of an earlier click", async () => {
    const report = await overview();
    // s-1's latest attribution has no click: the link's earlier click names no path of it.
    expect(report.deep_link_paths).toEqual([{ deep_link_path: "/levels/7", installs: 1 }]);
    expect(new Map(report.match_status.map((row) => [row.status, row.installs]))).toEqual(
      new Map([
        ["matched", 1],
        ["matched_no_params", 1],
      ]),
    );
  });

  it("counts a reinstall apart: in no install figure, nor a status, method or path of one", async () => {
    const report = await overview();
    expect(report.totals).toMatchObject({
      installs: 2,
      paid_installs: 2,
      organic_installs: 0,
      reinstalls: 1,
      events: 7,
    });
    expect(report.installs_by_day).toEqual([
      { date: "2026-11-10", media_source: "apple_search_ads", installs: 1 },
      { date: "2026-11-10", media_source: "link", installs: 1 },
    ]);
    expect(report.match_method.reduce((sum, row) => sum + row.installs, 0)).toBe(2);
    expect(report.campaigns.reduce((sum, row) => sum + row.installs, 0)).toBe(2);
    // Its campaign's own: the link's, whose click brought it back.
    expect(report.campaigns.map((row) => [row.media_source, row.installs, row.reinstalls])).toEqual(
      [
        ["apple_search_ads", 1, 0],
        ["link", 1, 1],
      ],
    );
    expect(report.countries.reduce((sum, row) => sum + row.installs, 0)).toBe(2);
    // The reinstall's own event is an event of the range all the same.
    expect(report.events_by_day).toContainEqual({
      date: "2026-11-10",
      event_name: "service_install",
      events: 3,
    });
  });

  it("counts the revenue no rate converted, per currency with its amount, beside the revenue it is left out of", async () => {
    const report = await overview();
    expect(report.totals.revenue_usd).toBe(5);
    expect(report.revenue_events_unconverted).toBe(3);
    expect(report.revenue_unconverted).toEqual([
      { currency: "VND", events: 2, amount: 350_000 },
      { currency: "TWD", events: 1, amount: 300 },
    ]);
    // Narrowed by the filters as the revenue is: s-1's latest attribution is Apple Ads'.
    expect((await overview({ media_source: "link" })).revenue_events_unconverted).toBe(0);
    expect(
      (await overview({ media_source: "apple_search_ads" })).revenue_unconverted.map(
        (row) => row.currency,
      ),
    ).toEqual(["VND", "TWD"]);
  });

  it("finds a campaign renamed at its network by its touches, and its name by its latest touch up to the window's end", async () => {
    expect(await engine().renamedCampaigns({ appId: RENAMED, ...DAY })).toEqual([
      {
        media_source: "meta_ads",
        campaign_id: "s-1",
        campaign_name: "Summer v2",
        former_names: ["Summer v1"],
      },
    ]);
    // A window that reaches the next day takes the name it had then.
    expect(
      await engine().renamedCampaigns({ appId: RENAMED, from: "2026-11-10", to: "2026-11-11" }),
    ).toEqual([
      {
        media_source: "meta_ads",
        campaign_id: "s-1",
        campaign_name: "Summer v3",
        // Summer v1 is s-9's now too: a row naming it and no id is of either.
        former_names: ["Summer v2"],
      },
    ]);
    expect(await engine().renamedCampaigns({ appId: APP, ...DAY })).toEqual([]);
  });

  it("shows a renamed campaign as one, under its latest name, as AppsFlyer does: an install of a click from before the rename too", async () => {
    const report = await overview({}, RENAMED);
    expect(
      report.campaigns.map((row) => [
        row.media_source,
        row.campaign,
        row.installs,
        row.revenue_usd,
      ]),
    ).toEqual([
      ["meta_ads", "Summer v2", 3, 4],
      // Another network's campaign of the same id is another campaign.
      ["google_ads", "Other", 1, 0],
    ]);
    // The filter takes the name the report shows: every install of it, and the purchase.
    const latest = await overview({ campaign: "Summer v2" }, RENAMED);
    expect(latest.totals).toMatchObject({ installs: 3, revenue_usd: 4 });
    const old = await overview({ campaign: "Summer v1" }, RENAMED);
    expect(old.totals).toMatchObject({ installs: 0, revenue_usd: 0 });
  });

  it("counts an install on its first open's day however late it was taken, as the export has it", async () => {
    const day = { appId: LATE, from: "2026-09-01", to: "2026-09-01" };
    const report = await engine().overview({ ...day, filters: {}, excludeServiceIds: [] });
    expect(report.totals).toMatchObject({ installs: 2, paid_installs: 2, events: 2 });
    expect(report.installs_by_day).toEqual([
      { date: "2026-09-01", media_source: "meta_ads", installs: 2 },
    ]);
    const cohorts = await engine().cohorts({
      ...day,
      groupBy: "campaign",
      filters: {},
      costKeys: [],
      excludeServiceIds: [],
    });
    expect(
      cohorts.filter((row) => row.part === "installs").map((row) => [row.cohort_day, row.installs]),
    ).toEqual([["2026-09-01", 2]]);
    // The later days' partitions hold no other row of the window.
    const after = await engine().overview({
      appId: LATE,
      from: "2026-08-20",
      to: "2026-08-20",
      filters: {},
      excludeServiceIds: [],
    });
    expect(after.totals).toMatchObject({ installs: 1, events: 1 });
  });
});
