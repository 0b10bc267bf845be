/**
 * The report engine's contract (ReportEngine in src/ports/reports.ts), one suite for the
 * adapters behind the port: DuckDB over the lake folder on the embedded runtime, Athena over
 * the bucket on AWS. Each adapter's test file calls `describeReportEngineContract` with a
 * factory of its own side, which lays the given records in its lake as its streams would and
 * gives, beside the reports, the export's query engine over the same lake: the overview must
 * agree with the export of the same window, counted here from the export's own rows.
 *
 * Only DuckDB's side runs here, for the reason the query engine's contract gives
 * (./query-engine.test-support.ts): no local server runs Athena's SQL, and its side needs the
 * Glue tables' partition projection over S3. The Athena adapter's unit test checks the SQL it
 * sends and how it reads Athena's answers; src/reports/queries.test.ts has DuckDB parse the
 * Athena dialect's queries.
 *
 * The lake is demo-like: a seeded week of an app's installs (organic, matched by network and
 * by geo, skipped, attributed again, not yet attributed), their sessions and purchases, the
 * touches that won them (some the days before the window, some delivered twice) and others
 * that won nothing, events delivered twice, another app's traffic, and a deleted install.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRandom } from "../../demo/prng.ts";
import { REINSTALL } from "../../domain/attribution.ts";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../domain/time.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  nullColumns,
  TOUCHES_TABLE,
} from "../../lake/lake-tables.ts";
import type { LakeQueryEngine } from "../../ports/lake.ts";
import type { OverviewReport, ReportEngine } from "../../ports/reports.ts";
import type { ExportRecord } from "../../record/columns.ts";
import { addDays, dayOf } from "../../reports/days.ts";

export interface ReportLake {
  /** Event deliveries, in order: a later one may repeat an event of an earlier one. */
  readonly events: readonly (readonly LakeRecord[])[];
  readonly attributions: readonly LakeRecord[];
  readonly touches: readonly LakeRecord[];
}

export interface ReportEngineUnderTest {
  readonly reports: ReportEngine;
  /** The export's query engine over the same lake. */
  readonly exports: LakeQueryEngine;
  close(): Promise<void>;
}

/** Makes a report engine (and an export engine) over a lake holding these records. */
export type ReportEngineFactory = (lake: ReportLake) => Promise<ReportEngineUnderTest>;

export const REPORT_APP = "com.example.reports";
const OTHER_APP = "com.example.other";
/** The lake holds the app's events of these days; the overview's window is inside them. */
const FIRST_DAY = "2026-11-01";
const LAST_DAY = "2026-11-08";
const FROM = "2026-11-02";
const TO = "2026-11-06";
const INSTALLS = 90;

interface Campaign {
  readonly mediaSource: string;
  readonly id: string | null;
  readonly name: string | null;
}

const WINTER: Campaign = { mediaSource: "meta_ads", id: "w-1", name: "Winter Sale" };
const FRIDAY: Campaign = { mediaSource: "meta_ads", id: "bf-2", name: "Black Friday" };
const SEARCH: Campaign = { mediaSource: "google_ads", id: "g-7", name: null };
const CREATORS: Campaign = { mediaSource: "tiktok_ads", id: "t-3", name: "Creators" };

const PATHS = ["/levels/7", "/shop", "/invite/abc", "/shop/sale", "/levels/12", "/daily"];
const LINKS = ["Kx3v9QpZ2aQ", "AAAAAAAAAAA", "bbbbbbbbbbb"];

type Cause = "organic" | "network" | "geo" | "skipped" | "pending" | "again";

/** What the lake says of one install, as the reports should read it. */
export interface InstallTruth {
  readonly serviceId: string;
  /** Its latest attribution's. */
  readonly mediaSource: string | null;
  readonly campaign: string | null;
  readonly status: string | null;
  readonly matchingType: string | null;
  readonly deepLinkPath: string | null;
  /**
   * Its latest attribution says the device had the app before: an iPhone's (`install_type`
   * `reinstall_same_device` in the export too), or an Android phone's from the click its earlier
   * install holds (the lake's `reinstall` alone: the export's `install_type` is iOS only).
   */
  readonly reinstall: boolean;
  readonly os: "android" | "ios";
}

/** An event as the export has it once, with its install. */
export interface EventTruth {
  readonly eventId: string;
  readonly serviceId: string;
  readonly eventName: string;
  readonly eventTime: string;
  readonly revenueUsd: number | null;
}

export interface ReportWorld {
  readonly lake: ReportLake;
  readonly installs: ReadonlyMap<string, InstallTruth>;
  readonly events: readonly EventTruth[];
  /** The install a deletion request was made for. */
  readonly deleted: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const dayStartMs = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

const touch = (overrides: Partial<LakeRecord> & { touch_time: string }): LakeRecord => ({
  ...nullColumns(TOUCHES_TABLE),
  app_id: REPORT_APP,
  touch_type: "click",
  received_at: overrides.touch_time,
  source: "network",
  platform: "android",
  params: "{}",
  ...overrides,
});

/** The seeded world: the same lake for the same seed. */
export const reportWorld = (seed = 7): ReportWorld => {
  const random = createRandom(seed);
  const deliveries: LakeRecord[][] = [[], [], []];
  const attributions: LakeRecord[] = [];
  const touches: LakeRecord[] = [];
  const installs = new Map<string, InstallTruth>();
  const events: EventTruth[] = [];
  const span = dayStartMs(LAST_DAY) + DAY_MS - dayStartMs(FIRST_DAY);

  const addEvent = (
    appId: string,
    record: Omit<EventTruth, "eventId"> & { eventId?: string },
    os = "android",
  ) => {
    const eventId = record.eventId ?? random.uuid();
    const row: LakeRecord = {
      ...nullColumns(EVENTS_TABLE),
      app_id: appId,
      event_id: eventId,
      event_time: record.eventTime,
      event_name: record.eventName,
      service_id: record.serviceId,
      os,
      app_name: "Reports Example",
      country: random.pick(["DE", "FR", "US", "BR"]),
      event_type: record.eventName === "service_install" ? "INSTALL" : "CUSTOM",
      received_at: iso(Date.parse(record.eventTime) + 2_000),
      parameters: "{}",
      ...(record.revenueUsd === null && record.eventName !== "service_purchase"
        ? {}
        : { revenue: record.revenueUsd, currency: "USD", revenue_usd: record.revenueUsd }),
    };
    deliveries[0]?.push(row);
    // An SDK's retry, or a delivery made twice: the export keeps the first copy.
    if (random.chance(0.06)) {
      deliveries[random.int(1, 2)]?.push({
        ...row,
        received_at: iso(Date.parse(record.eventTime) + HOUR_MS),
      });
    }
    if (appId === REPORT_APP) events.push({ ...record, eventId });
  };

  for (let i = 0; i < INSTALLS; i++) {
    const serviceId = `s-${String(i).padStart(3, "0")}`;
    const firstOpen = dayStartMs(FIRST_DAY) + Math.floor(random.next() * span);
    // The first installs of the day before the window cover every cause at once.
    const cause: Cause = random.weighted<Cause>([
      ["organic", 30],
      ["network", 30],
      ["geo", 15],
      ["skipped", 6],
      ["pending", 6],
      ["again", 8],
    ]);
    const attributedAt = firstOpen + 2 * MINUTE_MS;
    const base = {
      ...nullColumns(ATTRIBUTIONS_TABLE),
      app_id: REPORT_APP,
      service_id: serviceId,
      attributed_at: iso(attributedAt),
    };
    let truth: InstallTruth = {
      serviceId,
      mediaSource: null,
      campaign: null,
      status: null,
      matchingType: null,
      deepLinkPath: null,
      reinstall: false,
      os: "android",
    };
    const organicRow = { ...base, media_source: "organic", match_status: "organic" };
    const matched = (campaign: Campaign, matchingType: "network" | "geo", at: number) => {
      const clickId = `c-${serviceId}-${matchingType}`;
      const path = random.chance(0.85) ? random.pick(PATHS) : null;
      const viaLink = random.chance(0.5);
      const params = path === null ? { promo: "X" } : { deep_link_path: path, promo: "X" };
      const touchRow = touch({
        click_id: clickId,
        touch_time: iso(firstOpen - Math.floor(random.between(HOUR_MS, 5 * DAY_MS))),
        source: viaLink ? "link" : "network",
        deeplink_id: viaLink ? random.pick(LINKS) : null,
        media_source: campaign.mediaSource,
        campaign_id: campaign.id,
        campaign_name: campaign.name,
        params: JSON.stringify(params),
      });
      touches.push(touchRow);
      if (random.chance(0.15)) touches.push({ ...touchRow, received_at: iso(Date.now()) });
      const status = matchingType === "network" && path !== null ? "matched" : "matched_no_params";
      attributions.push({
        ...base,
        attributed_at: iso(at),
        media_source: campaign.mediaSource,
        campaign_id: campaign.id,
        campaign_name: campaign.name,
        matching_type: matchingType,
        confidence_score: matchingType === "network" ? "high" : "medium",
        click_to_first_open_hours: 3,
        match_status: status,
        match_method: matchingType === "network" ? "click_id" : "probabilistic",
        click_id: clickId,
        other_candidates: 0,
      });
      truth = {
        serviceId,
        mediaSource: campaign.mediaSource,
        campaign: campaign.name ?? campaign.id,
        status,
        matchingType,
        deepLinkPath: path,
        reinstall: false,
        os: "android",
      };
    };
    switch (cause) {
      case "organic":
        attributions.push(organicRow);
        truth = { ...truth, mediaSource: "organic", status: "organic" };
        break;
      case "network":
        matched(random.pick([WINTER, FRIDAY, CREATORS]), "network", attributedAt);
        break;
      case "geo":
        matched(SEARCH, "geo", attributedAt);
        break;
      case "skipped":
        attributions.push({ ...base, match_status: "skipped" });
        truth = { ...truth, status: "skipped" };
        break;
      case "pending":
        break;
      case "again":
        // Organic first, then matched to a network's late report: the latest version wins.
        attributions.push(organicRow);
        matched(random.pick([WINTER, CREATORS]), "network", attributedAt + HOUR_MS);
        break;
    }
    // One install in five that has an attribution, paid or organic, is a reinstall, as its
    // latest attribution says (drawing nothing, so the rest of the world stays the seed's): half
    // of them an iPhone's, whose export says so too, half an Android phone's, whose export does
    // not; every other install is an Android one.
    const latest = attributions.at(-1);
    if (i % 5 === 4 && latest?.service_id === serviceId) {
      const ios = i % 10 === 4;
      attributions[attributions.length - 1] = {
        ...latest,
        install_type: ios ? REINSTALL : null,
        reinstall: 1,
      };
      truth = { ...truth, reinstall: true, os: ios ? "ios" : "android" };
    }
    installs.set(serviceId, truth);
    const os = truth.os;
    addEvent(
      REPORT_APP,
      {
        eventId: `service_install_${serviceId}`,
        serviceId,
        eventName: "service_install",
        eventTime: iso(firstOpen),
        revenueUsd: null,
      },
      os,
    );
    const sessions = random.int(0, 6);
    for (let n = 0; n < sessions; n++) {
      const at = firstOpen + Math.floor(random.exponential(DAY_MS));
      const purchase = random.chance(0.25);
      addEvent(
        REPORT_APP,
        {
          serviceId,
          eventName: purchase ? "service_purchase" : random.pick(["service_login", "level_up"]),
          eventTime: iso(at),
          // A purchase in a currency the rates did not convert has no USD value.
          revenueUsd: purchase
            ? random.chance(0.9)
              ? Math.round(random.between(0.99, 19.99) * 100) / 100
              : null
            : null,
        },
        os,
      );
    }
  }
  // Taps and reports that won no install, and impressions.
  for (let n = 0; n < 40; n++) {
    const viaLink = random.chance(0.6);
    touches.push(
      touch({
        click_id: `noise-${n}`,
        touch_type: random.chance(0.8) ? "click" : "impression",
        touch_time: iso(dayStartMs(FIRST_DAY) + Math.floor(random.next() * span)),
        source: viaLink ? "link" : "network",
        deeplink_id: viaLink ? random.pick(LINKS) : null,
        media_source: "meta_ads",
        params: JSON.stringify({ deep_link_path: "/noise" }),
      }),
    );
  }
  // Another app's events at the same times, one of them with the same install id.
  for (let n = 0; n < 20; n++) {
    addEvent(OTHER_APP, {
      serviceId: n === 0 ? "s-000" : `o-${n}`,
      eventName: "service_login",
      eventTime: iso(dayStartMs(FROM) + n * HOUR_MS),
      revenueUsd: null,
    });
  }
  // The deleted install: a paid one, with events in the window.
  const deleted = [...installs.values()].find(
    (install) =>
      install.status === "matched" &&
      events.some(
        (event) =>
          event.serviceId === install.serviceId &&
          event.eventName === "service_install" &&
          dayOf(new Date(event.eventTime)) >= FROM &&
          dayOf(new Date(event.eventTime)) <= TO,
      ),
  )?.serviceId;
  if (deleted === undefined) throw new Error("the seed made no paid install to delete");
  return { lake: { events: deliveries, attributions, touches }, installs, events, deleted };
};

/** The export's records of a window, read whole from one snapshot. */
const exportedRows = async (engine: LakeQueryEngine, since: string, exclude: string[]) => {
  const snapshot = await engine.materialize({
    appId: REPORT_APP,
    since: new Date(`${since}T00:00:00.000Z`),
    snapshotId: randomUUID(),
    excludeServiceIds: exclude,
  });
  const rows: ExportRecord[] = [];
  for await (const row of engine.readPage(snapshot, 0, 1_000_000)) rows.push(row);
  return rows;
};

/** Descending, by code unit as SQL's default collation compares text. */
const newerFirst = (a: string | null, b: string | null): number =>
  a === b ? 0 : String(a) > String(b) ? -1 : 1;

const dayOfRecord = (row: ExportRecord) => String(row.event_time).slice(0, 10);
const cents = (value: number) => Math.round(value * 1e6) / 1e6;

/** Whether the world's install is a reinstall, which the export says on iOS only. */
type Reinstalled = (serviceId: string) => boolean;

/** An export row of an install the reports count as one: its own event, not a reinstall's. */
const isInstallRow = (reinstalled: Reinstalled) => (row: ExportRecord) =>
  row.event_name === "service_install" && !reinstalled(String(row.service_id));

/** The totals and per-day figures of the export's rows of the days `from` to `to`. */
const countedFromExport = (
  rows: readonly ExportRecord[],
  from: string,
  to: string,
  reinstalled: Reinstalled,
) => {
  const inWindow = rows.filter((row) => dayOfRecord(row) >= from && dayOfRecord(row) <= to);
  const installEvents = inWindow.filter((row) => row.event_name === "service_install");
  const installs = installEvents.filter(isInstallRow(reinstalled));
  const perDay = <T>(items: readonly ExportRecord[], value: (rows: ExportRecord[]) => T) => {
    const days = new Map<string, ExportRecord[]>();
    for (const row of items)
      days.set(dayOfRecord(row), [...(days.get(dayOfRecord(row)) ?? []), row]);
    return Object.fromEntries([...days].sort().map(([day, rowsOfDay]) => [day, value(rowsOfDay)]));
  };
  const revenue = (items: readonly ExportRecord[]) =>
    cents(items.reduce((sum, row) => sum + (row.revenue_usd ?? 0), 0));
  return {
    totals: {
      installs: installs.length,
      paid_installs: installs.filter((r) => r.media_source !== null && r.media_source !== "organic")
        .length,
      organic_installs: installs.filter((r) => r.media_source === "organic").length,
      reinstalls: installEvents.length - installs.length,
      events: inWindow.length,
      revenue_usd: revenue(inWindow),
    },
    installsPerDay: perDay(installs, (items) => items.length),
    eventsPerDay: perDay(inWindow, (items) => items.length),
    revenuePerDay: perDay(inWindow, revenue),
  };
};

/** The same figures as the overview gives them. */
const countedFromOverview = (overview: OverviewReport) => {
  const sumPerDay = <T extends { date: string }>(
    items: readonly T[],
    value: (item: T) => number,
  ) => {
    const days: Record<string, number> = {};
    for (const item of items) days[item.date] = (days[item.date] ?? 0) + value(item);
    return Object.fromEntries(Object.entries(days).sort());
  };
  return {
    totals: overview.totals,
    installsPerDay: sumPerDay(overview.installs_by_day, (row) => row.installs),
    eventsPerDay: sumPerDay(overview.events_by_day, (row) => row.events),
    revenuePerDay: Object.fromEntries(
      overview.revenue_by_day.map((row) => [row.date, row.revenue_usd]),
    ),
  };
};

/** Counts of `key`'s values, as [value, count] sorted by count then value. */
const countBy = <T>(items: readonly T[], key: (item: T) => string | null) => {
  const counts = new Map<string | null, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

export const describeReportEngineContract = (name: string, factory: ReportEngineFactory): void => {
  describe(`report engine contract: ${name}`, () => {
    const world = reportWorld();
    const reinstalled: Reinstalled = (serviceId) =>
      world.installs.get(serviceId)?.reinstall === true;
    let side: ReportEngineUnderTest;
    const overview = (exclude: string[] = [], from = FROM, to = TO) =>
      side.reports.overview({ appId: REPORT_APP, from, to, excludeServiceIds: exclude });

    /** The world's events of the window, each once, without the excluded installs'. */
    const windowEvents = (exclude: readonly string[]) =>
      world.events.filter((event) => {
        const day = event.eventTime.slice(0, 10);
        return day >= FROM && day <= TO && !exclude.includes(event.serviceId);
      });
    /** The window's installs, the reinstalls left out as the reports leave them. */
    const windowInstalls = (exclude: readonly string[]) =>
      windowEvents(exclude)
        .filter((event) => event.eventName === "service_install")
        .map((event) => {
          const install = world.installs.get(event.serviceId);
          if (!install) throw new Error(`no install ${event.serviceId}`);
          return install;
        })
        .filter((install) => !install.reinstall);

    beforeAll(async () => {
      side = await factory(world.lake);
    });
    afterAll(async () => {
      await side?.close();
    });

    it("agrees with the export of the same window: totals and each day's installs, events, revenue", async () => {
      const exclude = [world.deleted];
      const [report, rows] = await Promise.all([
        overview(exclude),
        exportedRows(side.exports, FROM, exclude),
      ]);
      const counted = countedFromExport(rows, FROM, TO, reinstalled);
      // The export says an iPhone's reinstall, and not an Android phone's.
      const reinstallTypes = rows
        .filter(
          (row) => row.event_name === "service_install" && reinstalled(String(row.service_id)),
        )
        .map((row) => row.install_type);
      expect(new Set(reinstallTypes)).toEqual(new Set([REINSTALL, null]));
      expect(countedFromOverview(report)).toEqual(counted);
      // The world is not a trivial one.
      expect(counted.totals.installs).toBeGreaterThan(30);
      expect(counted.totals.paid_installs).toBeGreaterThan(10);
      expect(counted.totals.organic_installs).toBeGreaterThan(10);
      expect(counted.totals.reinstalls).toBeGreaterThan(0);
      expect(counted.totals.revenue_usd).toBeGreaterThan(0);
      expect(Object.keys(counted.eventsPerDay)).toEqual(
        [0, 1, 2, 3, 4].map((n) => addDays(FROM, n)),
      );
    });

    it("tables the countries the events were sent from, as the export's rows of the window give them", async () => {
      const exclude = [world.deleted];
      const [report, rows] = await Promise.all([
        overview(exclude),
        exportedRows(side.exports, FROM, exclude),
      ]);
      const inWindow = rows.filter((row) => dayOfRecord(row) >= FROM && dayOfRecord(row) <= TO);
      const exported = [...countBy(inWindow, (row) => row.country)].map(([country, events]) => {
        const sent = inWindow.filter((row) => row.country === country);
        return {
          country,
          installs: sent.filter(isInstallRow(reinstalled)).length,
          events,
          revenue_usd: cents(sent.reduce((sum, row) => sum + (row.revenue_usd ?? 0), 0)),
        };
      });
      const reported = report.countries.map((row) => ({
        ...row,
        revenue_usd: cents(row.revenue_usd),
      }));
      expect(reported).toEqual(
        expect.arrayContaining(exported.map((row) => expect.objectContaining(row))),
      );
      expect(reported).toHaveLength(exported.length);
      expect(exported.length).toBeGreaterThan(2);
      // Most installs first.
      const installs = report.countries.map((row) => row.installs);
      expect(installs).toEqual([...installs].sort((a, b) => b - a));
    });

    it("counts each event once, of the app and the days asked only", async () => {
      const report = await overview();
      const events = windowEvents([]);
      expect(report).toMatchObject({ from: FROM, to: TO });
      expect(report.totals.events).toBe(events.length);
      expect(report.totals.revenue_usd).toBeCloseTo(
        events.reduce((sum, event) => sum + (event.revenueUsd ?? 0), 0),
        6,
      );
      const names = countBy(events, (event) => event.eventName);
      for (const name of names.keys()) {
        const reported = report.events_by_day
          .filter((row) => row.event_name === name)
          .reduce((sum, row) => sum + row.events, 0);
        expect(reported).toBe(names.get(name));
      }
      expect(report.events_by_day.every((row) => row.date >= FROM && row.date <= TO)).toBe(true);
    });

    it("narrows every figure to a media source, a campaign, a platform asked for", async () => {
      const bySource = await side.reports.overview({
        appId: REPORT_APP,
        from: FROM,
        to: TO,
        filters: { media_source: "meta_ads" },
        excludeServiceIds: [],
      });
      const ofMeta = (event: EventTruth) =>
        world.installs.get(event.serviceId)?.mediaSource === "meta_ads";
      const events = windowEvents([]).filter(ofMeta);
      expect(events.length).toBeGreaterThan(0);
      expect(bySource.totals.events).toBe(events.length);
      const reinstall = (event: EventTruth) => world.installs.get(event.serviceId)?.reinstall;
      const installEvents = events.filter((event) => event.eventName === "service_install");
      expect(bySource.totals.installs).toBe(installEvents.filter((e) => !reinstall(e)).length);
      // A paid reinstall is among them, and in no install figure.
      expect(bySource.totals.reinstalls).toBe(installEvents.filter(reinstall).length);
      expect(bySource.totals.reinstalls).toBeGreaterThan(0);
      expect(bySource.totals.paid_installs).toBe(bySource.totals.installs);
      expect(bySource.totals.organic_installs).toBe(0);
      expect(bySource.campaigns.every((row) => row.media_source === "meta_ads")).toBe(true);
      const byCampaign = await side.reports.overview({
        appId: REPORT_APP,
        from: FROM,
        to: TO,
        filters: { media_source: "meta_ads", campaign: "Black Friday" },
        excludeServiceIds: [],
      });
      expect(byCampaign.campaigns.map((row) => row.campaign)).toEqual(["Black Friday"]);
      expect(byCampaign.totals.installs).toBeLessThan(bySource.totals.installs);
      const other = await side.reports.overview({
        appId: REPORT_APP,
        from: FROM,
        to: TO,
        filters: { platform: "ios" },
        excludeServiceIds: [],
      });
      // The world's iOS installs are reinstalls, so iOS has events and reinstalls, no install.
      const ios = windowEvents([]).filter(
        (event) => world.installs.get(event.serviceId)?.os === "ios",
      );
      expect(ios.length).toBeGreaterThan(0);
      expect(other.totals).toMatchObject({
        installs: 0,
        reinstalls: ios.filter((event) => event.eventName === "service_install").length,
        events: ios.length,
      });
      expect(other.installs_by_day).toEqual([]);
    });

    it("leaves out a deleted install's events, its install and its revenue", async () => {
      const [whole, without] = await Promise.all([overview(), overview([world.deleted])]);
      const its = windowEvents([]).filter((event) => event.serviceId === world.deleted);
      expect(its.length).toBeGreaterThan(0);
      expect(without.totals.events).toBe(whole.totals.events - its.length);
      expect(without.totals.installs).toBe(whole.totals.installs - 1);
      expect(without.totals.paid_installs).toBe(whole.totals.paid_installs - 1);
      expect(without.totals.revenue_usd).toBeCloseTo(
        whole.totals.revenue_usd - its.reduce((sum, event) => sum + (event.revenueUsd ?? 0), 0),
        6,
      );
      expect(without.totals).toEqual(
        countedFromExport(
          await exportedRows(side.exports, FROM, [world.deleted]),
          FROM,
          TO,
          reinstalled,
        ).totals,
      );
    });

    it("splits installs into paid and organic, by day and source, status and method", async () => {
      const report = await overview();
      const installs = windowInstalls([]);
      const source = (install: InstallTruth) => install.mediaSource;
      expect(report.totals.installs).toBe(installs.length);
      expect(report.totals.organic_installs).toBe(
        installs.filter((install) => install.mediaSource === "organic").length,
      );
      expect(report.totals.paid_installs).toBe(
        installs.filter((i) => i.mediaSource !== null && i.mediaSource !== "organic").length,
      );
      const bySource = countBy(installs, source);
      for (const [mediaSource, count] of bySource) {
        const reported = report.installs_by_day
          .filter((row) => row.media_source === mediaSource)
          .reduce((sum, row) => sum + row.installs, 0);
        expect(reported).toBe(count);
      }
      expect(report.installs_by_day.every((row) => row.installs > 0)).toBe(true);
      const statuses = countBy(installs, (install) => install.status ?? "pending");
      expect(new Map(report.match_status.map((row) => [row.status, row.installs]))).toEqual(
        statuses,
      );
      const methods = countBy(
        installs,
        (install) => install.matchingType ?? install.status ?? "pending",
      );
      expect(new Map(report.match_method.map((row) => [row.method, row.installs]))).toEqual(
        methods,
      );
      expect([...statuses.keys()].sort()).toEqual(
        ["matched", "matched_no_params", "organic", "pending", "skipped"].sort(),
      );
      const counts = report.match_status.map((row) => row.installs);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    });

    it("tables campaigns by source and campaign, most installs first, with revenue per install", async () => {
      const report = await overview();
      const events = windowEvents([]);
      const key = (install: InstallTruth | undefined) =>
        JSON.stringify([install?.mediaSource ?? null, install?.campaign ?? null]);
      const expected = new Map<
        string,
        { installs: number; reinstalls: number; events: number; revenue: number }
      >();
      for (const event of events) {
        const install = world.installs.get(event.serviceId);
        const k = key(install);
        const entry = expected.get(k) ?? { installs: 0, reinstalls: 0, events: 0, revenue: 0 };
        entry.events += 1;
        entry.revenue += event.revenueUsd ?? 0;
        if (event.eventName === "service_install") {
          if (install?.reinstall) entry.reinstalls += 1;
          else entry.installs += 1;
        }
        expected.set(k, entry);
      }
      expect(report.campaigns).toHaveLength(expected.size);
      for (const row of report.campaigns) {
        const entry = expected.get(JSON.stringify([row.media_source, row.campaign]));
        expect(entry, JSON.stringify(row)).toBeDefined();
        expect(row.installs).toBe(entry?.installs);
        expect(row.reinstalls).toBe(entry?.reinstalls);
        expect(row.events).toBe(entry?.events);
        expect(row.revenue_usd).toBeCloseTo(entry?.revenue ?? -1, 6);
        expect(row.revenue_per_install).toBeCloseTo(
          row.installs > 0 ? (entry?.revenue ?? 0) / row.installs : 0,
          6,
        );
      }
      const installs = report.campaigns.map((row) => row.installs);
      expect(installs).toEqual([...installs].sort((a, b) => b - a));
      expect(report.campaigns).toContainEqual(
        expect.objectContaining({ media_source: "google_ads", campaign: "g-7" }),
      );
    });

    it("names the deep link paths of the most paid installs, from their winning touch", async () => {
      const report = await overview();
      const paid = windowInstalls([]).filter(
        (install) => install.mediaSource !== null && install.mediaSource !== "organic",
      );
      const paths = countBy(
        paid.filter((install) => install.deepLinkPath !== null),
        (install) => install.deepLinkPath,
      );
      expect(
        new Map(report.deep_link_paths.map((row) => [row.deep_link_path, row.installs])),
      ).toEqual(paths);
      expect(report.deep_link_paths.length).toBeGreaterThan(1);
      expect(report.deep_link_paths.length).toBeLessThanOrEqual(10);
      const counts = report.deep_link_paths.map((row) => row.installs);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    });

    it("reads the days asked only: a one-day window is that day's part of a longer one", async () => {
      const day = addDays(FROM, 2);
      const [one, whole] = await Promise.all([overview([], day, day), overview()]);
      expect(one.events_by_day).toEqual(whole.events_by_day.filter((row) => row.date === day));
      expect(one.installs_by_day).toEqual(whole.installs_by_day.filter((row) => row.date === day));
      expect(one.revenue_by_day).toEqual(whole.revenue_by_day.filter((row) => row.date === day));
      expect(one.totals.events).toBe(
        whole.events_by_day.filter((r) => r.date === day).reduce((s, r) => s + r.events, 0),
      );
    });

    it("answers zeros and empty lists for an app or days without events", async () => {
      const empty = await side.reports.overview({
        appId: "com.example.empty",
        from: FROM,
        to: TO,
        excludeServiceIds: [],
      });
      expect(empty).toEqual({
        from: FROM,
        to: TO,
        totals: {
          installs: 0,
          paid_installs: 0,
          organic_installs: 0,
          reinstalls: 0,
          events: 0,
          revenue_usd: 0,
        },
        installs_by_day: [],
        match_status: [],
        match_method: [],
        events_by_day: [],
        revenue_by_day: [],
        campaigns: [],
        deep_link_paths: [],
        countries: [],
        revenue_events_unconverted: 0,
        revenue_unconverted: [],
      });
      const before = await overview([], "2026-01-01", "2026-01-31");
      expect(before.totals.events).toBe(0);
    });

    it("gives the newest events of the last two days' partitions, newest first, as the export's records", async () => {
      const exclude = [world.deleted];
      const today = LAST_DAY;
      const latest = await side.reports.latestEvents({
        appId: REPORT_APP,
        limit: 25,
        today,
        excludeServiceIds: exclude,
      });
      const exported = (await exportedRows(side.exports, addDays(today, -1), exclude))
        .filter((row) => dayOfRecord(row) <= today)
        .sort(
          (a, b) => newerFirst(a.event_time, b.event_time) || newerFirst(a.event_id, b.event_id),
        );
      expect(exported.length).toBeGreaterThan(25);
      expect(latest).toEqual(exported.slice(0, 25));
      const all = await side.reports.latestEvents({
        appId: REPORT_APP,
        limit: 200,
        today,
        excludeServiceIds: exclude,
      });
      expect(all).toEqual(exported.slice(0, 200));
      expect(all.every((row) => String(row.event_time) >= `${addDays(today, -1)}T`)).toBe(true);
      expect(all.some((row) => row.service_id === world.deleted)).toBe(false);
      expect(new Set(all.map((row) => row.event_id)).size).toBe(all.length);
      const none = await side.reports.latestEvents({
        appId: REPORT_APP,
        limit: 10,
        today: "2026-12-31",
        excludeServiceIds: [],
      });
      expect(none).toEqual([]);
    });

    it("counts the app's link taps per link, a click delivered twice once", async () => {
      const clicks = new Map<string, Set<string>>();
      for (const row of world.lake.touches) {
        if (row.source === "link" && row.touch_type === "click" && row.deeplink_id !== null) {
          const id = String(row.deeplink_id);
          clicks.set(id, (clicks.get(id) ?? new Set()).add(String(row.click_id)));
        }
      }
      const expected = new Map([...clicks].map(([id, ids]) => [id, ids.size]));
      expect(new Map(await side.reports.linkClicks(REPORT_APP))).toEqual(expected);
      expect((await side.reports.linkClicks(OTHER_APP)).size).toBe(0);
    });
  });
};
