/**
 * The cohorts query on DuckDB over a small lake built here, laid by the embedded delivery
 * streams, and folded by cohortReport: retention by UTC calendar day since install, revenue up
 * to a day since install, touches and conversion, filters and groups, a deleted install left out;
 * the cost of installs CPI touches won and of CPC clicks, and active users of installs of any
 * install day.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  type LakeTable,
  nullColumns,
  SESSIONS_TABLE,
  TOUCHES_TABLE,
} from "../../lake/lake-tables.ts";
import type { CostRow } from "../../ports/costs.ts";
import type { CohortFilters, CohortGroup, ReportEngine } from "../../ports/reports.ts";
import { withLatestCampaignNames } from "../../reports/campaign-names.ts";
import { cohortReport, costKeysNamedBy } from "../../reports/cohorts.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { createReadWriteLock } from "./read-write-lock.ts";
import { createDuckDbReportEngine } from "./reports.ts";

const APP = "com.example.cohorts";
const DAY = "2026-11-02";
const TODAY = "2026-11-20";
const DELETED = "i-deleted";

const install = (serviceId: string, at: string, country: string, os = "android"): LakeRecord => ({
  ...nullColumns(EVENTS_TABLE),
  app_id: APP,
  event_id: `install-${serviceId}`,
  event_time: at,
  event_name: "service_install",
  service_id: serviceId,
  country,
  os,
  app_name: "Cohorts",
  received_at: at,
  event_type: "INSTALL",
});

const purchase = (serviceId: string, at: string, usd: number): LakeRecord => ({
  ...install(serviceId, at, "DE"),
  event_id: `purchase-${serviceId}-${at}`,
  event_name: "service_purchase",
  event_type: "PURCHASE",
  revenue: usd,
  currency: "USD",
  revenue_usd: usd,
});

const attribution = (serviceId: string, at: string, paid: boolean): LakeRecord => ({
  ...nullColumns(ATTRIBUTIONS_TABLE),
  app_id: APP,
  service_id: serviceId,
  attributed_at: at,
  media_source: paid ? "meta_ads" : "organic",
  campaign_id: paid ? "w-1" : null,
  campaign_name: paid ? "Winter Sale" : null,
  match_status: paid ? "matched" : "organic",
});

const session = (serviceId: string, at: string, os = "android"): LakeRecord => ({
  app_id: APP,
  service_id: serviceId,
  session_id: `${serviceId}-${at}`,
  started_at: at,
  received_at: at,
  os,
  country: "DE",
});

const click = (n: number, at: string): LakeRecord => ({
  ...nullColumns(TOUCHES_TABLE),
  app_id: APP,
  click_id: `c-${n}`,
  touch_type: "click",
  touch_time: at,
  received_at: at,
  source: "network",
  media_source: "meta_ads",
  campaign_id: "w-1",
  campaign_name: "Winter Sale",
  platform: "android",
  params: "{}",
});

const cost = (amountUsd: number): CostRow => ({
  appId: APP,
  day: DAY,
  mediaSource: "meta_ads",
  campaignId: "w-1",
  campaignName: "Winter Sale",
  adsetId: null,
  adsetName: null,
  adId: null,
  adName: null,
  country: null,
  amount: amountUsd,
  currency: "USD",
  amountUsd,
  impressions: 1_000,
  clicks: 30,
  receivedAt: "2026-11-03T00:00:00.000Z",
});

/** Ten installs on DAY: i-0 to i-5 from Winter Sale (i-5 on iOS in France), i-6 to i-9 organic. */
const IDS = Array.from({ length: 10 }, (_, n) => `i-${n}`);

/** An app whose installs and clicks cost something: CPI wins and CPC clicks. */
const COSTED = "com.example.cohorts.costed";
/** An app of three installs active on DAY and the day after, one of them installed before. */
const ACTIVE = "com.example.cohorts.active";

/**
 * An app of three installs of ad set a1 ("Set A") of Winter Sale, won by clicks of no cost, and
 * revenue in currencies no rate converted.
 */
const ADSETS = "com.example.cohorts.adsets";

/**
 * An app of an iPhone's first install (n-1, Winter Sale) and, the same day, another iPhone's
 * reinstall (n-2, won again by Winter Sale, which charged for it), which buys and comes back on
 * day 1, and a third's organic reinstall (n-3), which cost nothing.
 */
const REINSTALLS = "com.example.cohorts.reinstalls";

/**
 * An app whose campaign w-1 was renamed at its network in the day (Winter Sale, then Winter
 * Deals): w-0 and w-late won by Winter Sale's CPC click, w-1 by Winter Deals'.
 */
const RENAMED = "com.example.cohorts.renamed";

/**
 * An app of one install, t-1, in Tokyo's first hours of DAY (the UTC day before), won by a click
 * of then, active then and the next morning there (still DAY in UTC).
 */
const TOKYO = "com.example.cohorts.tokyo";

/**
 * An app whose CPI prices no rate converts: u-1's install and u-2's reinstall won at 2 grams of
 * gold (XAU), u-3's at a price of 0 in gold; and an impression a network reported with a CPC price.
 */
const UNPRICED = "com.example.cohorts.unpriced";

const ofApp = (appId: string, record: LakeRecord): LakeRecord => ({ ...record, app_id: appId });

describe("cohorts on DuckDB", () => {
  let dir = "";
  let duckdb: DuckDBInstance;
  let engine: ReportEngine;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cohorts-"));
    duckdb = await DuckDBInstance.create(":memory:");
    const lakeDir = join(dir, "lake");
    const lay = async (table: LakeTable, records: LakeRecord[]) => {
      const stream = await createLocalDeliveryStream({
        table,
        duckdb,
        lakeDir,
        walDir: join(dir, "wal"),
      });
      await stream.put(records);
      await stream.close();
    };
    const installTime = (n: number) => `${DAY}T${String(8 + n).padStart(2, "0")}:00:00.000Z`;
    await lay(EVENTS_TABLE, [
      ...IDS.map((id, n) =>
        n === 5 ? install(id, installTime(n), "FR", "ios") : install(id, installTime(n), "DE"),
      ),
      install(DELETED, installTime(0), "DE"),
      // i-0: 5 USD on day 0, 3 USD on day 6, 1 USD in the last second of day 7, 7 USD in the
      // first of day 8 and 10 USD later that day; i-6 (organic) 2 USD on day 1.
      purchase("i-0", `${DAY}T20:00:00.000Z`, 5),
      purchase("i-0", "2026-11-08T10:00:00.000Z", 3),
      purchase("i-0", "2026-11-09T23:59:59.000Z", 1),
      purchase("i-0", "2026-11-10T00:00:01.000Z", 7),
      purchase("i-0", "2026-11-10T10:00:00.000Z", 10),
      purchase("i-6", "2026-11-03T10:00:00.000Z", 2),
      // i-2 buys for 4 USD on day 0 and is refunded that day: no paying user.
      purchase("i-2", `${DAY}T15:00:00.000Z`, 4),
      purchase("i-2", `${DAY}T15:30:00.000Z`, -4),
      purchase(DELETED, "2026-11-03T10:00:00.000Z", 100),
      // In dinars, which no rate of the day converts: i-1 (Winter Sale) once, i-7 (organic) twice.
      {
        ...purchase("i-1", "2026-11-03T11:00:00.000Z", 0),
        revenue: 1,
        currency: "KWD",
        revenue_usd: null,
      },
      {
        ...purchase("i-7", "2026-11-03T11:00:00.000Z", 0),
        revenue: 2,
        currency: "KWD",
        revenue_usd: null,
      },
      {
        ...purchase("i-7", "2026-11-04T11:00:00.000Z", 0),
        revenue: 3,
        currency: "KWD",
        revenue_usd: null,
      },
    ]);
    await lay(
      ATTRIBUTIONS_TABLE,
      [...IDS, DELETED].map((id, n) => attribution(id, installTime(n % 10), n < 6 || n === 10)),
    );
    await lay(SESSIONS_TABLE, [
      ...IDS.map((id, n) => session(id, installTime(n))),
      // Day 1: i-0 at 00:01 (its other session, at 23:59 the day before, is day 0), i-1, i-6, i-7.
      session("i-0", `${DAY}T23:59:00.000Z`),
      session("i-0", "2026-11-03T00:01:00.000Z"),
      session("i-1", "2026-11-03T12:00:00.000Z"),
      session("i-1", "2026-11-03T18:00:00.000Z"),
      session("i-6", "2026-11-03T09:00:00.000Z"),
      session("i-7", "2026-11-03T22:00:00.000Z"),
      // Day 7: i-1 only.
      session("i-1", "2026-11-09T12:00:00.000Z"),
      session(DELETED, "2026-11-03T12:00:00.000Z"),
    ]);
    await lay(
      TOUCHES_TABLE,
      Array.from({ length: 20 }, (_, n) => click(n, `${DAY}T0${n % 8}:00:00.000Z`)),
    );

    // COSTED: c-0 and c-1 won by CPI clicks of 2.75 USD (c-1 attributed twice: the latest
    // counts), c-2 by a click of no cost, c-3 organic; 10 CPC clicks of 0.10 USD (one delivered
    // twice), and 5 clicks of no cost.
    const costedIds = ["c-0", "c-1", "c-2", "c-3"];
    const at = (n: number) => `${DAY}T${String(8 + n).padStart(2, "0")}:00:00.000Z`;
    await lay(
      EVENTS_TABLE,
      costedIds.map((id, n) => ofApp(COSTED, install(id, at(n), "DE"))),
    );
    const won = (id: string, n: number, costUsd: number | null, time = at(n)) =>
      ofApp(COSTED, {
        ...attribution(id, time, n < 3),
        ...(costUsd === null
          ? {}
          : { cost_model: "CPI", cost_value: 2.5, cost_currency: "EUR", cost_usd: costUsd }),
      });
    await lay(ATTRIBUTIONS_TABLE, [
      won("c-0", 0, 2.75),
      won("c-1", 1, 9.99),
      won("c-1", 1, 2.75, `${DAY}T09:30:00.000Z`),
      won("c-2", 2, null),
      won("c-3", 3, null),
    ]);
    const cpc = (n: number) =>
      ofApp(COSTED, {
        ...click(100 + n, at(n % 4)),
        cost_model: "CPC",
        cost_value: 0.1,
        cost_currency: "USD",
        cost_usd: 0.1,
      });
    await lay(TOUCHES_TABLE, [...Array.from({ length: 10 }, (_, n) => cpc(n)), cpc(3)]);
    await lay(
      TOUCHES_TABLE,
      Array.from({ length: 5 }, (_, n) => ofApp(COSTED, click(200 + n, at(n % 4)))),
    );

    // ACTIVE: a-old installed on 2026-10-20 (organic, then won again by Winter Sale), a-1 on
    // DAY by Winter Sale, a-2 on DAY organic on iOS; a deleted install active on DAY too.
    await lay(EVENTS_TABLE, [
      ofApp(ACTIVE, install("a-old", "2026-10-20T10:00:00.000Z", "DE")),
      ofApp(ACTIVE, install("a-1", `${DAY}T08:00:00.000Z`, "DE")),
      ofApp(ACTIVE, install("a-2", `${DAY}T09:00:00.000Z`, "FR", "ios")),
      ofApp(ACTIVE, install(DELETED, `${DAY}T10:00:00.000Z`, "DE")),
    ]);
    await lay(ATTRIBUTIONS_TABLE, [
      ofApp(ACTIVE, attribution("a-old", "2026-10-20T10:00:00.000Z", false)),
      ofApp(ACTIVE, attribution("a-old", "2026-10-21T10:00:00.000Z", true)),
      ofApp(ACTIVE, attribution("a-1", `${DAY}T08:00:00.000Z`, true)),
      ofApp(ACTIVE, attribution("a-2", `${DAY}T09:00:00.000Z`, false)),
      ofApp(ACTIVE, attribution(DELETED, `${DAY}T10:00:00.000Z`, true)),
    ]);
    await lay(SESSIONS_TABLE, [
      ofApp(ACTIVE, session("a-old", "2026-10-20T10:00:00.000Z")),
      ofApp(ACTIVE, session("a-old", "2026-11-03T07:00:00.000Z")),
      ofApp(ACTIVE, session("a-1", `${DAY}T08:00:00.000Z`)),
      ofApp(ACTIVE, session("a-1", `${DAY}T21:00:00.000Z`)),
      ofApp(ACTIVE, session("a-1", "2026-11-03T23:59:00.000Z")),
      ofApp(ACTIVE, session("a-2", `${DAY}T09:00:00.000Z`, "ios")),
      // After the range: not counted.
      ofApp(ACTIVE, session("a-2", "2026-11-04T00:01:00.000Z", "ios")),
      ofApp(ACTIVE, session(DELETED, `${DAY}T10:00:00.000Z`)),
    ]);

    // ADSETS: z-0 to z-2 of Set A; z-0 buys for 2.5 and 5 KWD and 0.25 XAU (no rate of either
    // that day), and for 4 USD.
    const adsetIds = ["z-0", "z-1", "z-2"];
    await lay(
      EVENTS_TABLE,
      adsetIds.map((id, n) => ofApp(ADSETS, install(id, `${DAY}T0${n + 1}:00:00.000Z`, "DE"))),
    );
    await lay(
      ATTRIBUTIONS_TABLE,
      adsetIds.map((id, n) =>
        ofApp(ADSETS, {
          ...attribution(id, `${DAY}T0${n + 1}:00:00.000Z`, true),
          adset_id: "a1",
          adset_name: "Set A",
        }),
      ),
    );
    const unconverted = (at: string, amount: number, currency: string): LakeRecord => ({
      ...ofApp(ADSETS, purchase("z-0", at, 0)),
      revenue: amount,
      currency,
      revenue_usd: null,
    });
    await lay(EVENTS_TABLE, [
      unconverted(`${DAY}T12:00:00.000Z`, 2.5, "KWD"),
      unconverted("2026-11-05T12:00:00.000Z", 5, "KWD"),
      unconverted("2026-11-06T12:00:00.000Z", 0.25, "XAU"),
      // Day 31 since z-0's install: past the days a cohort's revenue is counted for.
      unconverted("2026-12-03T12:00:00.000Z", 40, "KWD"),
      ofApp(ADSETS, purchase("z-0", "2026-11-06T13:00:00.000Z", 4)),
    ]);

    await lay(EVENTS_TABLE, [
      ofApp(REINSTALLS, install("n-1", `${DAY}T08:00:00.000Z`, "US", "ios")),
      ofApp(REINSTALLS, install("n-2", `${DAY}T09:00:00.000Z`, "US", "ios")),
      ofApp(REINSTALLS, install("n-3", `${DAY}T10:00:00.000Z`, "US", "ios")),
      ofApp(REINSTALLS, purchase("n-2", `${DAY}T10:00:00.000Z`, 9)),
    ]);
    await lay(ATTRIBUTIONS_TABLE, [
      ofApp(REINSTALLS, {
        ...attribution("n-1", `${DAY}T08:00:00.000Z`, true),
        install_type: "new_install",
      }),
      // The network charged 3 USD for the reinstall all the same.
      ofApp(REINSTALLS, {
        ...attribution("n-2", `${DAY}T09:00:00.000Z`, true),
        install_type: "reinstall_same_device",
        reinstall: 1,
        cost_model: "CPI",
        cost_value: 3,
        cost_currency: "USD",
        cost_usd: 3,
      }),
      // n-3: an organic reinstall, which cost nothing.
      ofApp(REINSTALLS, {
        ...attribution("n-3", `${DAY}T10:00:00.000Z`, false),
        install_type: "reinstall_same_device",
        reinstall: 1,
      }),
    ]);
    await lay(SESSIONS_TABLE, [
      ofApp(REINSTALLS, session("n-1", `${DAY}T08:00:00.000Z`, "ios")),
      ofApp(REINSTALLS, session("n-2", `${DAY}T09:00:00.000Z`, "ios")),
      ofApp(REINSTALLS, session("n-2", "2026-11-03T09:00:00.000Z", "ios")),
    ]);

    // UNPRICED: u-1 to u-3 installed at 08:00 to 10:00, u-2 a reinstall.
    await lay(
      EVENTS_TABLE,
      ["u-1", "u-2", "u-3"].map((id, n) => ofApp(UNPRICED, install(id, at(n), "DE"))),
    );
    const inGold = (id: string, n: number, grams: number) =>
      ofApp(UNPRICED, {
        ...attribution(id, at(n), true),
        cost_model: "CPI",
        cost_value: grams,
        cost_currency: "XAU",
        cost_usd: null,
      });
    await lay(ATTRIBUTIONS_TABLE, [
      inGold("u-1", 0, 2),
      { ...inGold("u-2", 1, 2), install_type: "reinstall_same_device", reinstall: 1 },
      inGold("u-3", 2, 0),
    ]);
    await lay(TOUCHES_TABLE, [
      ofApp(UNPRICED, {
        ...click(600, at(0)),
        touch_type: "impression",
        cost_model: "CPC",
        cost_value: 0.5,
        cost_currency: "USD",
        // As the touch's record has it: no cost of its own (src/costs/touch-cost.ts).
        cost_usd: null,
      }),
    ]);

    // TOKYO: 05:00 on DAY in Tokyo is 20:00 UTC the day before; 08:00 the next morning there
    // is 23:00 UTC on DAY.
    const tokyoEarly = "2026-11-01T20:00:00.000Z";
    // A click the evening before there and one in the first hour of the day after; a session of
    // an earlier install, t-0, the evening before.
    await lay(TOUCHES_TABLE, [
      ofApp(TOKYO, click(500, tokyoEarly)),
      ofApp(TOKYO, click(501, "2026-11-01T10:00:00.000Z")),
      ofApp(TOKYO, click(502, `${DAY}T16:00:00.000Z`)),
    ]);
    await lay(EVENTS_TABLE, [ofApp(TOKYO, install("t-1", tokyoEarly, "JP"))]);
    await lay(ATTRIBUTIONS_TABLE, [ofApp(TOKYO, attribution("t-1", tokyoEarly, true))]);
    await lay(SESSIONS_TABLE, [
      ofApp(TOKYO, session("t-1", tokyoEarly)),
      ofApp(TOKYO, session("t-1", `${DAY}T23:00:00.000Z`)),
      ofApp(TOKYO, session("t-0", "2026-11-01T10:00:00.000Z")),
    ]);

    // RENAMED: a CPC click of Winter Sale at 07:00 and one of Winter Deals at 10:00; w-0 won at
    // 08:00 and w-late at 12:00 (the latest install) by the first, w-1 at 11:00 by the second;
    // w-1 active again the next day. And a link made by hand with the old name alone (no id):
    // its CPC click at 08:30 won w-link at 09:00; another, the old name typed in lower case, won
    // w-typed at 09:30 by its click at 09:15.
    const renamedCpc = (n: number, at: string, name: string) =>
      ofApp(RENAMED, {
        ...click(n, at),
        campaign_name: name,
        cost_model: "CPC",
        cost_value: 0.5,
        cost_currency: "USD",
        cost_usd: 0.5,
      });
    await lay(TOUCHES_TABLE, [
      renamedCpc(400, `${DAY}T07:00:00.000Z`, "Winter Sale"),
      renamedCpc(401, `${DAY}T10:00:00.000Z`, "Winter Deals"),
      { ...renamedCpc(402, `${DAY}T08:30:00.000Z`, "Winter Sale"), campaign_id: null },
      { ...renamedCpc(403, `${DAY}T09:15:00.000Z`, "winter sale"), campaign_id: null },
    ]);
    await lay(EVENTS_TABLE, [
      ofApp(RENAMED, install("w-0", `${DAY}T08:00:00.000Z`, "DE")),
      ofApp(RENAMED, install("w-1", `${DAY}T11:00:00.000Z`, "DE")),
      ofApp(RENAMED, install("w-late", `${DAY}T12:00:00.000Z`, "DE")),
      ofApp(RENAMED, install("w-link", `${DAY}T09:00:00.000Z`, "DE")),
      ofApp(RENAMED, install("w-typed", `${DAY}T09:30:00.000Z`, "DE")),
    ]);
    await lay(ATTRIBUTIONS_TABLE, [
      ofApp(RENAMED, attribution("w-0", `${DAY}T08:00:00.000Z`, true)),
      ofApp(RENAMED, {
        ...attribution("w-1", `${DAY}T11:00:00.000Z`, true),
        campaign_name: "Winter Deals",
      }),
      ofApp(RENAMED, attribution("w-late", `${DAY}T12:00:00.000Z`, true)),
      ofApp(RENAMED, { ...attribution("w-link", `${DAY}T09:00:00.000Z`, true), campaign_id: null }),
      ofApp(RENAMED, {
        ...attribution("w-typed", `${DAY}T09:30:00.000Z`, true),
        campaign_id: null,
        campaign_name: "winter sale",
      }),
    ]);
    await lay(SESSIONS_TABLE, [
      ofApp(RENAMED, session("w-0", `${DAY}T08:00:00.000Z`)),
      ofApp(RENAMED, session("w-1", `${DAY}T11:00:00.000Z`)),
      ofApp(RENAMED, session("w-late", `${DAY}T12:00:00.000Z`)),
      ofApp(RENAMED, session("w-link", `${DAY}T09:00:00.000Z`)),
      ofApp(RENAMED, session("w-1", "2026-11-03T11:00:00.000Z")),
    ]);

    engine = createDuckDbReportEngine({ duckdb, lakeDir, lakeFiles: createReadWriteLock() });
  });

  afterAll(async () => {
    duckdb?.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  const report = async (
    options: {
      groupBy?: CohortGroup;
      filters?: CohortFilters;
      costs?: CostRow[];
      appId?: string;
      /** The installs left out: the deleted one unless given. */
      exclude?: string[];
      /** The last install day: DAY unless given. */
      to?: string;
    } = {},
  ) => {
    const to = options.to ?? DAY;
    const groupBy = options.groupBy ?? "campaign";
    const filters = options.filters ?? {};
    const appId = options.appId ?? APP;
    // As src/reports/reports.ts asks: renamed campaigns first, cost rows by their latest name.
    const renamed = await engine.renamedCampaigns({ appId, from: DAY, to });
    const costs = withLatestCampaignNames(options.costs ?? [], renamed);
    const rows = await engine.cohorts({
      appId,
      from: DAY,
      to,
      groupBy,
      filters,
      // As the report asks: the keys its cost rows name.
      costKeys: costKeysNamedBy(costs),
      excludeServiceIds: options.exclude ?? [DELETED],
      renamed,
    });
    return cohortReport({
      from: DAY,
      to,
      today: TODAY,
      groupBy,
      filters,
      rows,
      costs,
    });
  };

  it("counts an install retained on day 1 when it has a session on the next UTC day: 4 of 10", async () => {
    const answer = await report();
    expect(answer.totals.installs).toBe(10);
    expect(answer.totals.retention.d1).toBe(0.4);
    expect(answer.totals.retention.d7).toBe(0.1);
    // Day 30 of installs of 2026-11-02 is 2026-12-02, after today: not reached, not zero.
    expect(answer.totals.retention.d30).toBeNull();
    const [cohort] = answer.cohorts;
    expect(cohort?.day).toBe(DAY);
    expect(cohort?.retention.slice(0, 3)).toEqual([1, 0.4, 0]);
    // Day 17 is 2026-11-19, over; day 18 is today, under way: not reached yet.
    expect(cohort?.retention[17]).toBe(0);
    expect(cohort?.retention[18]).toBeNull();
    expect(cohort?.retention[30]).toBeNull();
  });

  /** The query's rows of DAY's installs (APP's unless given), by campaign, in a time zone (UTC unless given). */
  const dayRows = (options: { appId?: string; timeZone?: string; filters?: CohortFilters } = {}) =>
    engine.cohorts({
      appId: options.appId ?? APP,
      from: DAY,
      to: DAY,
      timeZone: options.timeZone,
      groupBy: "campaign",
      filters: options.filters ?? {},
      costKeys: [],
      excludeServiceIds: [DELETED],
    });

  /** A figure added up over the rows of a part, of day N since install (null: none). */
  const sumOf = (
    rows: Awaited<ReturnType<typeof dayRows>>,
    part: string,
    n: number | null,
    of: "installs" | "active" | "revenue_usd",
  ) =>
    rows
      .filter((row) => row.part === part && row.day_n === n)
      .reduce((total, row) => total + row[of], 0);

  it("puts a session at 23:59 and one at 00:01 on different days", async () => {
    const rows = await dayRows({ filters: { media_source: "meta_ads" } });
    // Winter Sale's six: every one active on day 0, i-0 (at 00:01) and i-1 on day 1.
    expect([sumOf(rows, "days", 0, "active"), sumOf(rows, "days", 1, "active")]).toEqual([6, 2]);
  });

  it("counts install days and days since install in the app's time zone", async () => {
    const rows = await dayRows({ timeZone: "Asia/Tokyo" });
    const sum = (part: string, n: number | null, of: "installs" | "active" | "revenue_usd") =>
      sumOf(rows, part, n, of);
    // Installed from 08:00 UTC on, one an hour: i-7 to i-9, from 15:00 UTC, are Tokyo's next day.
    expect(sum("installs", null, "installs")).toBe(7);
    expect(rows.filter((row) => row.part === "installs").map((row) => row.cohort_day)).toEqual([
      DAY,
      DAY,
    ]);
    // Day 1 in Tokyo: i-0 (23:59 UTC is 08:59 there), i-1 (12:00 UTC), i-6 (09:00 UTC); i-1's
    // 18:00 UTC is day 2.
    expect([sum("days", 0, "active"), sum("days", 1, "active"), sum("days", 2, "active")]).toEqual([
      7, 3, 1,
    ]);
    // i-0's 5 USD at 20:00 UTC is 05:00 the next day in Tokyo: day 1's, not day 0's.
    expect([sum("days", 0, "revenue_usd"), sum("days", 1, "revenue_usd")]).toEqual([0, 7]);
  });

  it("reads a zone's days from the UTC days either side, bounded by the zone's own midnights", async () => {
    const rows = await dayRows({ appId: TOKYO, timeZone: "Asia/Tokyo" });
    const of = (part: string) => rows.filter((row) => row.part === part);
    expect(of("installs").map((row) => [row.cohort_day, row.installs])).toEqual([[DAY, 1]]);
    expect(of("touches").map((row) => [row.cohort_day, row.clicks])).toEqual([[DAY, 1]]);
    // The query's rows come in no order.
    const days = of("days").sort((a, b) => (a.day_n ?? 0) - (b.day_n ?? 0));
    expect(days.map((row) => [row.day_n, row.active])).toEqual([
      [0, 1],
      [1, 1],
    ]);
    expect(of("active_day").map((row) => [row.cohort_day, row.active])).toEqual([[DAY, 1]]);
    expect(of("active_range").map((row) => row.active)).toEqual([1]);
  });

  it("moves each moment by its own offset where the zone's clocks change within the days", async () => {
    // Los Angeles went from UTC-7 to UTC-8 on 1 November 2026, within the days read.
    const rows = await dayRows({ timeZone: "America/Los_Angeles" });
    expect(sumOf(rows, "installs", null, "installs")).toBe(10);
    // Day 1 there: i-1 (12:00 and 18:00 UTC), i-6 (09:00 UTC), i-7 (22:00 UTC); i-0's 00:01 UTC
    // is 16:01 of its install day.
    expect([sumOf(rows, "days", 0, "active"), sumOf(rows, "days", 1, "active")]).toEqual([10, 3]);
  });

  it("sums revenue up to each day since install, per user, and ROAS over the cohort's cost", async () => {
    const answer = await report({ costs: [cost(30)] });
    const winter = answer.groups.find((group) => group.group === "Winter Sale");
    expect(winter).toMatchObject({
      media_source: "meta_ads",
      installs: 6,
      clicks: 20,
      impressions: 1_000,
      conversion_rate: 0.3,
      cost_usd: 30,
      ecpi_usd: 5,
      revenue_usd: 26,
      arpu_usd: 4.333333,
      // Day 0: 5 USD; day 7: 5 + 3 (day 6) + 1 (day 7's 23:59:59), not day 8's 00:00:01; day 30
      // not reached.
      arpu: { d0: 0.833333, d7: 1.5, d30: null },
      // i-0, once for its four days of revenue; not i-2, refunded on the day it bought.
      paying_user_rate: { d0: 0.1667, d7: 0.1667, d30: null },
      roas: { d0: 0.1667, d7: 0.3, d30: null },
    });
    const organic = answer.groups.find((group) => group.media_source === "organic");
    expect(organic).toMatchObject({ installs: 4, cost_usd: null, revenue_usd: 2, clicks: 0 });
    expect(answer.totals).toMatchObject({
      installs: 10,
      revenue_usd: 28,
      cost_usd: 30,
      // Over the six paid installs: the organic ones cost nothing.
      ecpi_usd: 5,
      conversion_rate: 0.3,
      // Only the paid installs' revenue is weighed against the cost.
      roas: { d0: 0.1667, d7: 0.3, d30: null },
      // Every install's, as the cohort's revenue per user below.
      arpu: { d0: 0.5, d7: 1.1, d30: null },
      // i-0 from day 0, i-6 (organic) from day 1; the deleted install's 100 USD is no one's, and
      // i-1's dinars are no revenue in USD.
      paying_user_rate: { d0: 0.1, d7: 0.2, d30: null },
    });
    expect(answer.cohorts[0]?.revenue_per_user.slice(0, 9)).toEqual([
      0.5, 0.7, 0.7, 0.7, 0.7, 0.7, 1, 1.1, 2.8,
    ]);
  });

  it("narrows every figure by the filters, and groups by what is asked", async () => {
    const french = await report({ filters: { country: "FR" }, costs: [cost(30)] });
    expect(french.totals).toMatchObject({ installs: 1, clicks: 0 });
    // The cost rows name no country: none of them is the French installs'.
    expect(french.totals.cost_usd).toBeNull();
    const ios = await report({ filters: { platform: "ios" }, costs: [cost(30)] });
    expect(ios.totals.installs).toBe(1);
    // A cost row names no platform: the cost of iOS installs is not known.
    expect(ios.totals.cost_usd).toBeNull();
    const byCountry = await report({ groupBy: "country" });
    expect(
      byCountry.groups.map((group) => [group.media_source, group.group, group.installs]),
    ).toEqual([
      ["meta_ads", "DE", 5],
      ["organic", "DE", 4],
      ["meta_ads", "FR", 1],
      // The clicks, whose touches name no country.
      ["meta_ads", null, 0],
    ]);
  });

  it("leaves out a deleted install's install, sessions and revenue", async () => {
    const rows = await engine.cohorts({
      appId: APP,
      from: DAY,
      to: DAY,
      groupBy: "campaign",
      filters: {},
      costKeys: [],
      excludeServiceIds: [],
    });
    const installs = rows
      .filter((row) => row.part === "installs")
      .reduce((s, r) => s + r.installs, 0);
    expect(installs).toBe(11);
    const answer = await report();
    expect(answer.totals.revenue_usd).toBe(28);
  });

  it("counts what the installs CPI clicks won and the CPC clicks cost, each once: eCPI from them", async () => {
    const answer = await report({ appId: COSTED });
    const winter = answer.groups.find((group) => group.group === "Winter Sale");
    // 2.75 for c-0, 2.75 for c-1 (its latest attribution), 10 clicks at 0.10: 6.50 for 3 installs.
    expect(winter).toMatchObject({
      media_source: "meta_ads",
      installs: 3,
      clicks: 15,
      cost_usd: 6.5,
      ecpi_usd: 2.166667,
    });
    expect(answer.totals).toMatchObject({ installs: 4, cost_usd: 6.5, ecpi_usd: 2.166667 });
    const organic = answer.groups.find((group) => group.media_source === "organic");
    expect(organic).toMatchObject({ installs: 1, cost_usd: null });
    const rows = await engine.cohorts({
      appId: COSTED,
      from: DAY,
      to: DAY,
      groupBy: "campaign",
      filters: {},
      costKeys: [],
      excludeServiceIds: [],
    });
    const costOf = (part: string) =>
      rows.filter((row) => row.part === part).reduce((sum, row) => sum + row.cost_usd, 0);
    expect(costOf("installs")).toBeCloseTo(5.5, 9);
    expect(costOf("touches")).toBeCloseTo(1, 9);
  });

  it("takes the network's cost row over the clicks' own cost for its day, source and campaign", async () => {
    const answer = await report({ appId: COSTED, costs: [cost(30)] });
    expect(answer.groups.find((group) => group.group === "Winter Sale")).toMatchObject({
      installs: 3,
      cost_usd: 30,
      ecpi_usd: 10,
    });
    // Named by its id alone, the row is the same campaign's, and its group's.
    const byId = await report({ appId: COSTED, costs: [{ ...cost(30), campaignName: null }] });
    expect(byId.groups.map((group) => [group.media_source, group.group, group.cost_usd])).toEqual([
      ["meta_ads", "Winter Sale", 30],
      ["organic", null, null],
    ]);
  });

  it("gives the same cost whatever the grouping: a cost row replaces what its own keys name", async () => {
    // A row of Germany: the CPI installs (in Germany) are its, and so are the CPC clicks of no
    // country, whose spend is in the network's rows of their campaign: 30, not 30 + 1. A row of
    // France takes the clicks of no country too, and leaves the German installs' 5.50: 35.50.
    const german = { ...cost(30), country: "DE" };
    const french = { ...cost(30), country: "FR" };
    for (const groupBy of ["campaign", "adset", "ad", "country", "platform"] as const) {
      for (const [costs, total, ecpi] of [
        [[cost(30)], 30, 10],
        [[german], 30, 10],
        [[french], 35.5, 11.833333],
      ] as const) {
        const answer = await report({ appId: COSTED, groupBy, costs: [...costs] });
        expect(answer.totals, `${groupBy}, ${total}`).toMatchObject({
          installs: 4,
          clicks: 15,
          cost_usd: total,
          ecpi_usd: ecpi,
        });
      }
    }
  });

  it("weighs eCPI and ROAS by campaign, whatever the grouping: a campaign of no cost counts for none", async () => {
    const spring = { ...cost(30), campaignId: "s-1", campaignName: "Spring Sale" };
    for (const groupBy of ["campaign", "adset", "ad", "country", "platform"] as const) {
      // Winter Sale's cost: its six installs and their revenue weigh against it.
      const winter = await report({ groupBy, costs: [cost(30)] });
      expect(winter.totals, groupBy).toMatchObject({
        paid_installs_with_cost: 6,
        ecpi_usd: 5,
        roas: { d0: 0.1667, d7: 0.3 },
      });
      // Only another campaign of meta_ads costs something: Winter Sale's installs bought nothing
      // that is known, and its revenue is no return on Spring Sale's spend.
      const other = await report({ groupBy, costs: [spring] });
      expect(other.totals, groupBy).toMatchObject({
        cost_usd: 30,
        paid_installs: 6,
        paid_installs_with_cost: 0,
        ecpi_usd: null,
        roas: { d0: 0, d7: 0 },
      });
    }
  });

  describe("active users", () => {
    const TO = "2026-11-03";
    const activeUsers = async (filters: CohortFilters = {}) => {
      const rows = await engine.cohorts({
        appId: ACTIVE,
        from: DAY,
        to: TO,
        groupBy: "campaign",
        filters,
        costKeys: [],
        excludeServiceIds: [DELETED],
      });
      const answer = cohortReport({
        from: DAY,
        to: TO,
        today: TODAY,
        groupBy: "campaign",
        filters,
        rows,
        costs: [],
      });
      return { answer, rows };
    };

    it("counts each day's installs with a session, whatever their install day, and the range's once each", async () => {
      const { answer } = await activeUsers();
      // DAY: a-1 (two sessions, one user) and a-2; the next day a-old, installed on 2026-10-20,
      // and a-1 again. The deleted install is left out.
      expect(answer.active_users).toEqual({
        range: 3,
        average_daily: 2,
        daily: [
          { day: DAY, active: 2 },
          { day: TO, active: 2 },
        ],
      });
      // The cohort figures are of the range's installs alone: a-old is not one of them.
      expect(answer.totals.installs).toBe(2);
      expect(answer.groups.map((group) => group.media_source).sort()).toEqual([
        "meta_ads",
        "organic",
      ]);
    });

    it("narrows them by the install's latest attribution and by platform", async () => {
      const paid = await activeUsers({ media_source: "meta_ads", campaign: "Winter Sale" });
      // a-2 is organic; a-old's latest attribution is Winter Sale's.
      expect(paid.answer.active_users).toEqual({
        range: 2,
        average_daily: 1.5,
        daily: [
          { day: DAY, active: 1 },
          { day: TO, active: 2 },
        ],
      });
      // a-2 alone, on DAY: the one organic install (a-old was organic before, and only its
      // latest attribution counts), and the one iPhone.
      for (const filters of [{ media_source: "organic" }, { platform: "ios" }]) {
        expect((await activeUsers(filters)).answer.active_users, JSON.stringify(filters)).toEqual({
          range: 1,
          average_daily: 0.5,
          daily: [
            { day: DAY, active: 1 },
            { day: TO, active: 0 },
          ],
        });
      }
    });
  });

  it("says what the cost lacks of the CPI prices no rate converted, a reinstall's too, until a cost row names them", async () => {
    const answer = await report({ appId: UNPRICED });
    expect(answer.totals.installs).toBe(2);
    // u-1's and u-2's 2 grams; u-3's price of 0 is nothing in any currency, and a CPC price is
    // charged on a click, not on an impression.
    expect(answer.touch_costs_unconverted).toBe(2);
    expect(answer.totals.cost_usd).toBeNull();
    // A cost row of the campaign's German installs replaces both, the reinstall's too.
    const german = { ...cost(6), appId: UNPRICED, country: "DE" };
    const replaced = await report({ appId: UNPRICED, costs: [german] });
    expect(replaced.touch_costs_unconverted).toBe(0);
    expect(replaced.totals.cost_usd).toBe(6);
    // One of French installs replaces neither.
    const french = { ...german, country: "FR" };
    expect((await report({ appId: UNPRICED, costs: [french] })).touch_costs_unconverted).toBe(2);
  });

  it("leaves a reinstall out of the cohorts, its revenue and its days with it, not its cost nor the active users", async () => {
    const answer = await report({ appId: REINSTALLS });
    expect(answer.totals.installs).toBe(1);
    expect(answer.totals.paid_installs).toBe(1);
    expect(answer.totals.revenue_usd).toBe(0);
    expect(answer.totals.retention.d1).toBe(0);
    expect(answer.cohorts.map((cohort) => [cohort.day, cohort.installs])).toEqual([[DAY, 1]]);
    // What the network charged for the reinstall was spent: in the cost, over the one install.
    expect(answer.totals.cost_usd).toBe(3);
    expect(answer.totals.ecpi_usd).toBe(3);
    // The organic reinstall, which cost nothing, makes no group of its own.
    expect(answer.groups.map((group) => [group.media_source, group.installs])).toEqual([
      ["meta_ads", 1],
    ]);
    // The reinstalled iPhone is a user all the same: active on DAY and the day after.
    expect(answer.active_users.range).toBe(2);
  });

  it("gives a day of reinstalls alone no cohort, and its cost to the range", async () => {
    // n-1 deleted: the day holds n-2's and n-3's reinstalls alone.
    const answer = await report({ appId: REINSTALLS, exclude: ["n-1"] });
    expect(answer.totals.installs).toBe(0);
    expect(answer.cohorts).toEqual([]);
    expect(answer.totals.cost_usd).toBe(3);
    expect(answer.groups.map((group) => [group.media_source, group.installs])).toEqual([
      ["meta_ads", 0],
    ]);
  });

  it("puts a cost row naming an ad set by its id in the group of its installs, which cost nothing", async () => {
    const answer = await report({
      appId: ADSETS,
      groupBy: "adset",
      costs: [{ ...cost(30), adsetId: "a1" }],
    });
    expect(
      answer.groups.map((group) => [
        group.media_source,
        group.group,
        group.installs,
        group.cost_usd,
      ]),
    ).toEqual([["meta_ads", "Set A", 3, 30]]);
    expect(answer.totals).toMatchObject({ cost_usd: 30, ecpi_usd: 10 });
  });

  it("says in each group how many of its revenue events no rate converted", async () => {
    const answer = await report();
    expect(answer.revenue_unconverted).toEqual([{ currency: "KWD", events: 3, amount: 6 }]);
    expect(answer.totals.revenue_events_unconverted).toBe(3);
    expect(
      answer.groups.map((group) => [
        group.media_source,
        group.group,
        group.revenue_events_unconverted,
      ]),
    ).toEqual([
      ["meta_ads", "Winter Sale", 1],
      ["organic", null, 2],
    ]);
    // By country, each install's group: i-1 and i-7 are both of Germany.
    const byCountry = await report({ groupBy: "country" });
    expect(
      byCountry.groups.map((group) => [
        group.media_source,
        group.group,
        group.revenue_events_unconverted,
      ]),
    ).toEqual([
      ["meta_ads", "DE", 1],
      ["organic", "DE", 2],
      ["meta_ads", "FR", 0],
      // The clicks of no country.
      ["meta_ads", null, 0],
    ]);
  });

  it("counts the revenue no rate converted, per currency, and leaves it out of the revenue", async () => {
    const answer = await report({ appId: ADSETS });
    expect(answer.totals.revenue_usd).toBe(4);
    expect(answer.revenue_events_unconverted).toBe(3);
    expect(answer.revenue_unconverted).toEqual([
      { currency: "KWD", events: 2, amount: 7.5 },
      { currency: "XAU", events: 1, amount: 0.25 },
    ]);
    // Narrowed by the filters as the installs are.
    const organic = await report({ appId: ADSETS, filters: { media_source: "organic" } });
    expect(organic.revenue_events_unconverted).toBe(0);
    // Up to day 30 since each install, as revenue is: not the 40 dinars of z-0's day 31, which
    // a report of one more install day reads.
    const longer = await report({ appId: ADSETS, to: "2026-11-03" });
    expect(longer.revenue_unconverted).toEqual(answer.revenue_unconverted);
  });

  it("keeps a campaign renamed at its network one, under its latest name: installs, clicks, cost rows by its id, active users", async () => {
    // Without a cost row: the clicks' own cost, under either name, is the one campaign's, the
    // link's that names its old name alone among them. The link typed in lower case is a
    // campaign of its own, as it always was.
    const own = await report({ appId: RENAMED });
    expect(
      own.groups.map((group) => [group.media_source, group.group, group.installs, group.clicks]),
    ).toEqual([
      ["meta_ads", "Winter Deals", 4, 3],
      ["meta_ads", "winter sale", 1, 1],
    ]);
    expect(own.totals.cost_usd).toBe(2);
    // The network's row of the day names the campaign by its old name: it is the same campaign,
    // and its figure replaces every click's, the links' too, the one typed in lower case among
    // them (the cost rule matches names whatever their case): their spend is in the network's.
    const costs = [{ ...cost(30), appId: RENAMED }];
    const answer = await report({ appId: RENAMED, costs });
    expect(answer.groups.map((group) => [group.group, group.cost_usd, group.ecpi_usd])).toEqual([
      ["Winter Deals", 30, 7.5],
      ["winter sale", null, null],
    ]);
    expect(answer.totals.cost_usd).toBe(30);
    // Filtered by the name the report shows: every install, click, cost and active user of it.
    const latest = await report({ appId: RENAMED, filters: { campaign: "Winter Deals" }, costs });
    expect(latest.totals).toMatchObject({ installs: 4, clicks: 3, cost_usd: 30 });
    expect(latest.active_users.range).toBe(4);
    expect(latest.totals.retention.d1).toBeCloseTo(1 / 4);
    // The old name is no campaign's now.
    const old = await report({ appId: RENAMED, filters: { campaign: "Winter Sale" }, costs });
    expect(old.totals).toMatchObject({ installs: 0, clicks: 0, cost_usd: null });
    expect(old.active_users.range).toBe(0);
  });
});
