/**
 * The reports benchmark's lake: one app's 90 days up to now, written straight in the lake's
 * Parquet layout by DuckDB (`writeTable`, as the whole-window export's lake is), with what the
 * overview and the cohorts report read: events (one install, its `service_install` event, per
 * EVENTS_PER_INSTALL events; purchases with revenue_usd; countries; Android and iOS), the
 * attributions of half the installs (a few media sources and campaigns, some organic), the
 * touches that won them and as many that won nothing, and sessions on the days after each
 * install, fewer the later, so retention has its curve.
 *
 * Installs come evenly over the window; an install's other events and sessions follow it over
 * up to 30 days, never past now. Every value is a function of the row number, so the same size
 * gives the same lake.
 */
import { performance } from "node:perf_hooks";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  SESSIONS_TABLE,
  TOUCHES_TABLE,
} from "../src/lake/lake-tables.ts";
import { addDays, dayOf, startOfDay } from "../src/reports/days.ts";
import { bytesUnder, EVENT_VALUES, writeTable } from "./window-lake.ts";

export const REPORT_APP = "com.bench.reports";
/** The window: 90 UTC days, today the last. */
export const REPORT_DAYS = 90;
/** One install for this many events; one attribution for every other install. */
export const EVENTS_PER_INSTALL = 50;
/** Sessions an install reports: one on its first day, the others on the days after. */
const SESSIONS_PER_INSTALL = 5;
/** How far after its install an install's events and sessions go. */
const FOLLOW_DAYS = 30;

/** The media sources of attributed installs, by weight (a tenth each); organic among them. */
export const MEDIA_SOURCES = [
  "organic",
  "organic",
  "meta_ads",
  "meta_ads",
  "meta_ads",
  "google_ads",
  "google_ads",
  "tiktok_ads",
  "tiktok_ads",
  "unity_ads",
] as const;
/** Campaigns of each paid media source. */
const CAMPAIGNS_PER_SOURCE = 4;
/** Countries by weight (a tenth each). */
export const COUNTRIES = ["US", "US", "US", "DE", "DE", "BR", "JP", "IN", "GB", "FR"] as const;
/** The share of installs on Android, in percent; the others on iOS. */
const ANDROID_PERCENT = 60;
/** Event types by the event's place among its install's (after the install itself). */
const EVENT_TYPES = [
  "LEVEL_START",
  "LOGIN",
  "LEVEL_START",
  "LEVEL_COMPLETE",
  "VIEW_ITEM",
  "LEVEL_COMPLETE",
  "ADD_TO_CART",
  "PURCHASE",
  "LEVEL_START",
  "LEVEL_COMPLETE",
] as const;
const PRICES_USD = [0.99, 4.99, 9.99, 19.99] as const;

const list = (values: readonly (string | number)[]) =>
  `[${values.map((v) => (typeof v === "string" ? `'${v}'` : String(v))).join(", ")}]`;

/** A whole number in [0, below) looking random, the same for the same row and salt. */
const hashed = (row: string, salt: string, below: number) =>
  `CAST(hash(${row}, '${salt}') % ${below} AS BIGINT)`;
/** A value in [0, 1) looking random, the same for the same row and salt. */
const fraction = (row: string, salt: string) => `(${hashed(row, salt, 1_000_000)} / 1000000.0)`;
/** One of `values`, looking random, the same for the same row and salt. */
const pick = (values: readonly (string | number)[], row: string, salt: string) =>
  `${list(values)}[${hashed(row, salt, values.length)} + 1]`;
/** A media source's name as a campaign's name starts: `meta_ads` gives `Meta Ads`. */
const titled = (source: string) =>
  source
    .split("_")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");

export interface ReportLake {
  /** The window's first and last UTC day. */
  readonly from: string;
  readonly to: string;
  readonly events: number;
  readonly installs: number;
  readonly attributions: number;
  readonly touches: number;
  readonly sessions: number;
  readonly seconds: number;
  readonly bytes: number;
  /** A media source, a country and a platform that the installs have, for the filters. */
  readonly filters: {
    readonly media_source: string;
    readonly country: string;
    readonly platform: string;
  };
}

/** Writes the lake of `events` events (a multiple of EVENTS_PER_INSTALL) into `lakeDir`. */
export const writeReportLake = async (lakeDir: string, events: number): Promise<ReportLake> => {
  const started = performance.now();
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const to = dayOf(now);
  const from = addDays(to, 1 - REPORT_DAYS);
  const start = startOfDay(from).toISOString().slice(0, 19).replace("T", " ");
  const installs = Math.floor(events / EVENTS_PER_INSTALL);
  /** Seconds from the window's start to now. */
  const span = Math.floor((now.getTime() - startOfDay(from).getTime()) / 1000);
  const follow = FOLLOW_DAYS * 86_400;

  /** Install `k`'s first open: the installs evenly over the window. */
  const installSecond = (k: string) => `((${k}) * ${span} // ${installs})`;
  const at = (seconds: string) => `(TIMESTAMP '${start}' + to_seconds(${seconds}))`;
  /** A time `seconds` after install `k`'s, or its install's when that would be past now. */
  const afterInstall = (k: string, seconds: string) =>
    `CASE WHEN ${installSecond(k)} + (${seconds}) < ${span} THEN ${at(`${installSecond(k)} + (${seconds})`)} ELSE ${at(installSecond(k))} END`;
  const country = (k: string) => pick(COUNTRIES, k, "country");
  const os = (k: string) =>
    `CASE WHEN ${hashed(k, "os", 100)} < ${ANDROID_PERCENT} THEN 'android' ELSE 'ios' END`;
  /** Attribution (and its winning touch) `a`: of install 2a. */
  const source = (a: string) => pick(MEDIA_SOURCES, a, "source");
  /** A touch's media source: the attribution's when it won one, else a paid one like it. */
  const paidSource = (a: string) =>
    pick(
      MEDIA_SOURCES.map((s) => (s === "organic" ? "meta_ads" : s)),
      a,
      "source",
    );
  const campaignNo = (a: string) => hashed(a, "campaign", CAMPAIGNS_PER_SOURCE);
  /** The campaign's name of a source and number: `Meta Ads Campaign 2`. */
  const campaignName = (sourceSql: string, no: string) =>
    `CASE ${sourceSql} ${[...new Set(MEDIA_SOURCES)].map((s) => `WHEN '${s}' THEN '${titled(s)}'`).join(" ")} END || ' Campaign ' || ${no}`;

  // Events: row i is the (i % 50)-th event of install i // 50, the first its install.
  const k = `(i // ${EVENTS_PER_INSTALL})`;
  const place = `(i % ${EVENTS_PER_INSTALL})`;
  const type = `CASE WHEN ${place} = 0 THEN 'INSTALL' ELSE ${list(EVENT_TYPES)}[${place} % ${EVENT_TYPES.length} + 1] END`;
  const purchase = `(${place} <> 0 AND ${place} % ${EVENT_TYPES.length} = ${EVENT_TYPES.indexOf("PURCHASE")})`;
  // The other events over the 30 days after the install, more of them early.
  const offset = `CASE WHEN ${place} = 0 THEN 0 ELSE CAST(pow(${fraction("i", "offset")}, 2) * ${follow} AS BIGINT) END`;
  const eventTime = afterInstall(k, offset);
  const price = pick(PRICES_USD, "i", "price");
  const eventValues: Record<string, string> = {
    event_id: EVENT_VALUES.event_id ?? "NULL",
    event_time: eventTime,
    received_at: `${eventTime} + INTERVAL 2 SECOND`,
    event_type: type,
    event_name: `'service_' || lower(${type})`,
    service_id: `'install-' || ${k}`,
    os: os(k),
    country: country(k),
    app_name: "'Report Bench'",
    revenue: `CASE WHEN ${purchase} THEN ${price} END`,
    currency: `CASE WHEN ${purchase} THEN 'USD' END`,
    revenue_usd: `CASE WHEN ${purchase} THEN ${price} END`,
    maid: `CASE WHEN ${os(k)} = 'android' THEN '38400000-8cf0-11bd-b23e-' || lpad(CAST(${k} AS VARCHAR), 12, '0') END`,
    idfv: `CASE WHEN ${os(k)} = 'ios' THEN '6f1e2c3a-0000-4000-8000-' || lpad(CAST(${k} AS VARCHAR), 12, '0') END`,
    customer_user_id: `CASE WHEN ${k} % 3 = 0 THEN 'user-' || ${k} END`,
    parameters: `CASE WHEN ${purchase} THEN '{"sku":"gems"}' ELSE '{}' END`,
  };

  // Attributions: row i is install 2i's, five seconds after its first open.
  const attributions = Math.floor(installs / 2);
  const organic = `(${source("i")} = 'organic')`;
  const attributionValues: Record<string, string> = {
    service_id: "'install-' || (i * 2)",
    attributed_at: `${at(installSecond("i * 2"))} + INTERVAL 5 SECOND`,
    media_source: source("i"),
    campaign_id: `CASE WHEN NOT ${organic} THEN ${source("i")} || '-c' || ${campaignNo("i")} END`,
    campaign_name: `CASE WHEN NOT ${organic} THEN ${campaignName(source("i"), campaignNo("i"))} END`,
    adset_id: `CASE WHEN NOT ${organic} THEN 'adset-' || ${hashed("i", "adset", 3)} END`,
    ad_id: `CASE WHEN NOT ${organic} THEN 'ad-' || ${hashed("i", "ad", 5)} END`,
    matching_type: `CASE WHEN NOT ${organic} THEN CASE WHEN i % 7 = 0 THEN 'geo' ELSE 'network' END END`,
    click_to_first_open_hours: `CASE WHEN NOT ${organic} THEN ${hashed("i", "hours", 10)} END`,
    confidence_score: `CASE WHEN NOT ${organic} THEN CASE WHEN i % 7 = 0 THEN 'medium' ELSE 'high' END END`,
    install_type: "'new_install'",
    match_status: `CASE WHEN ${organic} THEN 'organic' WHEN i % 3 = 0 THEN 'matched_no_params' ELSE 'matched' END`,
    match_method: `CASE WHEN ${organic} THEN NULL WHEN i % 7 = 0 THEN 'probabilistic' ELSE 'click_id' END`,
    click_id: `CASE WHEN NOT ${organic} THEN 'click-' || i END`,
    other_candidates: "CAST(i % 3 AS INTEGER)",
    // CPI installs of one network, with their cost (columns the lake may not have yet).
    cost_model: `CASE WHEN ${source("i")} = 'unity_ads' THEN 'CPI' END`,
    cost_value: `CASE WHEN ${source("i")} = 'unity_ads' THEN 1.8 END`,
    cost_currency: `CASE WHEN ${source("i")} = 'unity_ads' THEN 'USD' END`,
    cost_usd: `CASE WHEN ${source("i")} = 'unity_ads' THEN 1.8 END`,
  };

  // Touches: row i < attributions is the click before install 2i (the winner of its
  // attribution when that is paid); the others are taps and impressions that won nothing.
  const touches = attributions * 2;
  const won = `(i < ${attributions})`;
  const touchSource = `CASE WHEN ${won} THEN ${paidSource("i")} ELSE ${paidSource(`i - ${attributions}`)} END`;
  const touchCampaign = `CASE WHEN ${won} THEN ${campaignNo("i")} ELSE ${campaignNo(`i - ${attributions}`)} END`;
  const impression = `(NOT ${won} AND i % 5 = 0)`;
  const touchValues: Record<string, string> = {
    click_id: "'click-' || i",
    touch_type: `CASE WHEN ${impression} THEN 'impression' ELSE 'click' END`,
    touch_time: `CASE WHEN ${won} THEN ${at(`${installSecond("i * 2")} - 60 - ${hashed("i", "lead", 36_000)}`)} ELSE ${at(hashed("i", "when", span))} END`,
    received_at: `CASE WHEN ${won} THEN ${at(`${installSecond("i * 2")} - 59 - ${hashed("i", "lead", 36_000)}`)} ELSE ${at(`${hashed("i", "when", span)} + 1`)} END`,
    source: "CASE WHEN i % 4 = 0 THEN 'link' ELSE 'network' END",
    deeplink_id: "CASE WHEN i % 4 = 0 THEN 'link-' || (i % 20) END",
    media_source: touchSource,
    campaign_id: `${touchSource} || '-c' || ${touchCampaign}`,
    campaign_name: campaignName(touchSource, touchCampaign),
    ip_truncated: "'203.0.' || (i % 250) || '.0'",
    country: `CASE WHEN ${won} THEN ${country("i * 2")} ELSE ${country("i")} END`,
    platform: `CASE WHEN ${won} THEN ${os("i * 2")} ELSE ${os("i")} END`,
    params: `CASE WHEN i % 10 < 7 THEN '{"deep_link_path":"/offers/' || ${hashed("i", "path", 12)} || '"}' ELSE '{}' END`,
    cost_model: `CASE WHEN ${impression} THEN 'CPM' WHEN ${touchSource} = 'google_ads' THEN 'CPC' END`,
    cost_value: `CASE WHEN ${impression} THEN 2.5 WHEN ${touchSource} = 'google_ads' THEN 0.12 END`,
    cost_currency: `CASE WHEN ${impression} OR ${touchSource} = 'google_ads' THEN 'USD' END`,
    cost_usd: `CASE WHEN ${impression} THEN 0.0025 WHEN ${touchSource} = 'google_ads' THEN 0.12 END`,
  };

  // Sessions: row i is the (i % 5)-th session of install i // 5, the first on its install's
  // day, each other on a day up to 30 days after (the cube of a fraction: most early).
  const sessions = installs * SESSIONS_PER_INSTALL;
  const sk = `(i // ${SESSIONS_PER_INSTALL})`;
  const day = `CAST(floor(${FOLLOW_DAYS + 1} * pow(${fraction("i", "day")}, 3)) AS BIGINT)`;
  const sessionOffset = `CASE WHEN i % ${SESSIONS_PER_INSTALL} = 0 THEN 30 ELSE ${day} * 86400 + ${hashed("i", "second", 3600)} END`;
  const sessionTime = afterInstall(sk, sessionOffset);
  const sessionValues: Record<string, string> = {
    service_id: `'install-' || ${sk}`,
    session_id: "md5('session-' || i)",
    started_at: sessionTime,
    received_at: `${sessionTime} + INTERVAL 1 SECOND`,
    os: os(sk),
    country: country(sk),
  };

  await writeTable(lakeDir, EVENTS_TABLE, eventValues, events, REPORT_APP);
  await writeTable(lakeDir, ATTRIBUTIONS_TABLE, attributionValues, attributions, REPORT_APP);
  await writeTable(lakeDir, TOUCHES_TABLE, touchValues, touches, REPORT_APP);
  await writeTable(lakeDir, SESSIONS_TABLE, sessionValues, sessions, REPORT_APP);
  return {
    from,
    to,
    events,
    installs,
    attributions,
    touches,
    sessions,
    seconds: (performance.now() - started) / 1000,
    bytes: await bytesUnder(lakeDir),
    filters: { media_source: "meta_ads", country: "DE", platform: "ios" },
  };
};
