/**
 * The report queries, for both engines, as src/lake/export-query.ts writes the export's: one
 * definition, the dialects differing only where DuckDB and Athena (Trino) spell a thing
 * differently. Each report reads the export's own relation (`buildReportRowsQuery`: each event
 * once, joined with its install's latest attribution, deleted installs left out), over sources
 * bounded to the report's days, so its numbers are the export's numbers by construction.
 *
 * The overview is one query per (app, from, to): the window's rows feed one aggregation with
 * a grouping set per chart, each result row naming its set by `grouping_id`.
 */
import { ATTRIBUTION_LIMITS } from "../domain/attribution.ts";
import { exportEventName } from "../domain/event-types.ts";
import {
  DEFAULT_TIME_ZONE,
  offsetsIn,
  startOfDayIn,
  type ZoneOffset,
} from "../domain/time-zone.ts";
import {
  buildExportRowsQuery,
  buildReportRowsQuery,
  type Dialect,
  EARLIER_COPIES_DAYS,
  type Exclusion,
  sqlString,
} from "../lake/export-query.ts";
import {
  APPLE_POSTBACKS_TABLE,
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  LAKE_LATE_DAYS,
  SESSIONS_TABLE,
  TOUCHES_TABLE,
} from "../lake/lake-tables.ts";
import type { CohortFilters, RenamedCampaign } from "../ports/reports.ts";
import type { ColumnName } from "../record/columns.ts";
import { campaignKeyOf, renamedCampaignsCte, renamedJoins } from "./campaign-names.ts";
import { addDays, startOfDay } from "./days.ts";

/** The lake tables the reports read, and nothing else (their grants name these only). */
export const REPORT_TABLES = [
  EVENTS_TABLE,
  ATTRIBUTIONS_TABLE,
  TOUCHES_TABLE,
  SESSIONS_TABLE,
  APPLE_POSTBACKS_TABLE,
] as const;

/** The lake tables a report reads, as the engine names them (Glue tables, DuckDB relations). */
export interface ReportSources {
  readonly events: string;
  readonly attributions: string;
  readonly touches: string;
}

/** What the attribution worker names an install's own event (src/attribution/lake-rows.ts). */
export const INSTALL_EVENT_NAME = exportEventName("INSTALL");

/** The media source the attribution gives an organic install (src/attribution/results.ts). */
export const ORGANIC = "organic";

/** An install whose attribution row is not in the lake yet (the two streams deliver apart). */
export const PENDING = "pending";

/** The deep link paths the overview names: the top ones by installs. */
export const TOP_DEEP_LINK_PATHS = 10;

/**
 * The days before an install's first day on which its winning touch may lie: the longest
 * click window (a view window is shorter), and a day for the phone's clock.
 */
export const TOUCH_LEAD_DAYS = ATTRIBUTION_LIMITS.clickWindowDays.max + 1;

/** Timestamps are stored in UTC without zone: DuckDB reads the literal without its "Z". */
export const timestampLiteral: Record<Dialect, (moment: Date) => string> = {
  duckdb: (moment) => `TIMESTAMP ${sqlString(moment.toISOString().replace("Z", ""))}`,
  athena: (moment) => `from_iso8601_timestamp(${sqlString(moment.toISOString())})`,
};

/** The UTC day (`YYYY-MM-DD`) of a timestamp stored in UTC, in both dialects. */
export const dayOf = (timestamp: string): string => `CAST(CAST(${timestamp} AS DATE) AS VARCHAR)`;

/**
 * How a report counts days: in UTC, or in the app's time zone (../domain/time-zone.ts). The lake's
 * timestamps and `dt` partitions are UTC, so a day of another zone is read from the UTC days
 * either side of it too, and bounded by its own first moments.
 */
export interface ReportDays {
  /** SQL: the day's date a timestamp stored in UTC falls on. */
  readonly date: (timestamp: string) => string;
  /** SQL: that day as `YYYY-MM-DD`. */
  readonly day: (timestamp: string) => string;
  /** The first moment of a day. */
  readonly start: (day: string) => Date;
  /** SQL: the first moment of a day, as a timestamp literal. */
  readonly startLiteral: (day: string) => string;
  /** The UTC days whose rows may fall on the days `from` to `to`. */
  readonly utcDays: (from: string, to: string) => { from: string; to: string };
}

/** A timestamp moved by a number of seconds, in each dialect. */
const plusSeconds: Record<Dialect, (timestamp: string, seconds: number) => string> = {
  duckdb: (timestamp, seconds) => `(${timestamp} + to_seconds(${seconds}))`,
  athena: (timestamp, seconds) => `date_add('second', ${seconds}, ${timestamp})`,
};

/**
 * How a report counts days. In a zone, a timestamp stored in UTC is moved by the zone's offset
 * of its moment, taken from the few offsets the zone has over the report's days (one, or one
 * each side of a change of its clocks: `offsetsIn`): a comparison and an addition per row,
 * where the engines' own zone conversion looks the zone's rules up for every row.
 */
export const reportDays = (
  dialect: Dialect,
  zone: string = DEFAULT_TIME_ZONE,
  /** The report's days, first and last: the zone's offsets are those of these days. */
  span?: { readonly from: string; readonly to: string },
): ReportDays => {
  const start = (day: string) => startOfDayIn(day, zone);
  const startLiteral = (day: string) => timestampLiteral[dialect](start(day));
  if (zone === DEFAULT_TIME_ZONE) {
    return {
      date: (timestamp) => `CAST(${timestamp} AS DATE)`,
      day: dayOf,
      start,
      startLiteral,
      utcDays: (from, to) => ({ from, to }),
    };
  }
  const offsets = span
    ? offsetsIn(zone, start(addDays(span.from, -2)), start(addDays(span.to, 2)))
    : [];
  const moved = (timestamp: string): string => {
    const add = (offset: ZoneOffset) => plusSeconds[dialect](timestamp, offset.offsetSeconds);
    // Each stretch until the moment the next begins; the last reaches on.
    let cases = "";
    let last: ZoneOffset | undefined;
    for (const offset of offsets) {
      if (last && offset.from) {
        cases += `WHEN ${timestamp} < ${timestampLiteral[dialect](offset.from)} THEN ${add(last)} `;
      }
      last = offset;
    }
    if (!last) throw new Error("a report's days in a time zone need the days they span");
    return cases === "" ? add(last) : `(CASE ${cases}ELSE ${add(last)} END)`;
  };
  const date = (timestamp: string) => `CAST(${moved(timestamp)} AS DATE)`;
  return {
    date,
    day: (timestamp) => `CAST(${date(timestamp)} AS VARCHAR)`,
    start,
    startLiteral,
    utcDays: (from, to) => ({ from: addDays(from, -1), to: addDays(to, 1) }),
  };
};

/** The `deep_link_path` of a touch's params (JSON text); null where they are not JSON. */
const deepLinkPathOf: Record<Dialect, (params: string) => string> = {
  duckdb: (params) =>
    `CASE WHEN json_valid(${params}) THEN json_extract_string(${params}, '$.deep_link_path') END`,
  athena: (params) => `json_extract_scalar(${params}, '$.deep_link_path')`,
};

/**
 * The value of the row with the greatest `order`, null when that row's is: DuckDB's `max_by`
 * skips null values (an install's earlier click would stand for its later attribution of no
 * click), its `arg_max_null` does not; Trino's `max_by` takes the row as it is.
 */
const latestBy: Record<Dialect, (value: string, order: string) => string> = {
  duckdb: (value, order) => `arg_max_null(${value}, ${order})`,
  athena: (value, order) => `max_by(${value}, ${order})`,
};

/**
 * The `dt` partitions holding a table's rows of the days `from` to `to`: a row lies in its own
 * day's partition or, taken late, in one of the LAKE_LATE_DAYS after it (`lakeDay`).
 */
export const partitionsOfDays = (from: string, to: string): { from: string; to: string } => ({
  from,
  to: addDays(to, LAKE_LATE_DAYS),
});

/**
 * The UTC days whose partitions hold a report's events of the days `from` to `to` (with those
 * after them, `partitionsOfDays`): from the day before, where the export's rows find earlier
 * copies of the days' events (`readFrom`) and leave them out.
 */
export const eventDaysOf = (
  from: string,
  to: string,
  days: Pick<ReportDays, "utcDays">,
): { from: string; to: string } => days.utcDays(addDays(from, -EARLIER_COPIES_DAYS), to);

/**
 * The app's events of the days `from` to `to` (partitions and times), and of the day before
 * (`eventDaysOf`), for the export query: UTC days unless `days` counts them in another zone.
 */
export const boundedEvents = (
  dialect: Dialect,
  events: string,
  appId: string,
  from: string,
  to: string,
  days: ReportDays = reportDays(dialect),
): string => {
  const earliest = addDays(from, -EARLIER_COPIES_DAYS);
  const utc = eventDaysOf(from, to, days);
  const partitions = partitionsOfDays(utc.from, utc.to);
  return `(
  SELECT * FROM ${events} AS bounded
  WHERE bounded.app_id = ${sqlString(appId)}
    AND bounded.dt BETWEEN ${sqlString(partitions.from)} AND ${sqlString(partitions.to)}
    AND bounded.event_time >= ${days.startLiteral(earliest)}
    AND bounded.event_time < ${days.startLiteral(addDays(to, 1))}
)`;
};

/** The UTC days the winning touches of installs of the days `from` to `to` may lie on. */
export const touchDaysOf = (
  from: string,
  to: string,
  days?: Pick<ReportDays, "utcDays">,
): { from: string; to: string } => {
  const utc = days?.utcDays(from, to) ?? { from, to };
  return { from: addDays(utc.from, -TOUCH_LEAD_DAYS), to: addDays(utc.to, 1) };
};

/**
 * The columns of the export's rows (`r`) a report's filters compare: an event's attribution is
 * its install's, and its country and platform those it was sent from; a campaign as the report
 * names it (./campaign-names.ts).
 */
const filterColumnsOf = (
  renamed: readonly RenamedCampaign[] | undefined,
): Record<keyof CohortFilters, string> => ({
  media_source: "r.media_source",
  campaign: campaignKeyOf(renamed, "r"),
  country: "r.country",
  platform: "r.os",
});

/** The overview's grouping keys, in the order `grouping(...)` names them. */
export const OVERVIEW_KEYS = [
  "day",
  "media_source",
  "campaign",
  "event_name",
  "status",
  "method",
  "deep_link_path",
  "country",
  // The currency of revenue no rate converted; null for every other event.
  "currency",
] as const;
export type OverviewKey = (typeof OVERVIEW_KEYS)[number];

/** One grouping set per part of the answer. */
export const OVERVIEW_SETS = {
  totals: [],
  installs_by_day: ["day", "media_source"],
  revenue_by_day: ["day"],
  events_by_day: ["day", "event_name"],
  campaigns: ["media_source", "campaign"],
  match_status: ["status"],
  match_method: ["method"],
  deep_link_paths: ["deep_link_path"],
  countries: ["country"],
  revenue_unconverted: ["currency"],
} as const satisfies Record<string, readonly OverviewKey[]>;
export type OverviewSet = keyof typeof OVERVIEW_SETS;

/**
 * What `grouping(<every key>)` answers for a set's rows: a bit per key, the first key the
 * highest, set for each key the set does not group by (SQL's rule, DuckDB's and Trino's).
 */
export const groupingIdOf = (keys: readonly OverviewKey[]): number =>
  OVERVIEW_KEYS.reduce(
    (id, key, index) => (keys.includes(key) ? id : id | (1 << (OVERVIEW_KEYS.length - 1 - index))),
    0,
  );

/** The overview's result columns: the set, its keys, then the measures. */
export const OVERVIEW_MEASURES = [
  "installs",
  "paid_installs",
  "organic_installs",
  "events",
  "revenue_usd",
  "revenue_events_unconverted",
  "revenue_unconverted",
  "reinstalls",
] as const;

/**
 * The export's columns every report reads: each event's day, name and install, the install's
 * media source and campaign, the filters' country and platform, and revenue.
 */
export const REPORT_COLUMNS = [
  "event_time",
  "event_name",
  "service_id",
  "media_source",
  "campaign_id",
  "campaign_name",
  "country",
  "os",
  "revenue_usd",
] as const satisfies readonly ColumnName[];

/**
 * The export's columns the overview reads: a report's, the installs' match, and the revenue and
 * currency of the events no rate converted.
 */
const OVERVIEW_COLUMNS: readonly ColumnName[] = [
  ...REPORT_COLUMNS,
  "matching_type",
  "revenue",
  "currency",
];

export interface OverviewQueryInput {
  readonly dialect: Dialect;
  readonly appId: string;
  /** Only the rows of this media source, campaign, country, platform (each given). */
  readonly filters?: CohortFilters;
  /** Days of the time zone, both included. */
  readonly from: string;
  readonly to: string;
  /** The app's time zone its days are counted in (../domain/time-zone.ts); UTC unless given. */
  readonly timeZone?: string;
  readonly sources: ReportSources;
  readonly exclude?: Exclusion;
  /** Campaigns renamed at their network, each shown under its latest name. */
  readonly renamed?: readonly RenamedCampaign[];
}

/**
 * The overview of an app's days `from` to `to`. Its result has a row per group of each
 * grouping set (see OVERVIEW_SETS); the deep link paths are cut to the top ones in the query.
 * Besides the export's relation, it reads the latest attribution's status and winning click of
 * the window's installs, and that click's deep link path from the touches of the days it may
 * lie on: small reads, each bounded by the window's installs.
 */
export const buildOverviewQuery = (input: OverviewQueryInput): string => {
  const { dialect, appId, from, to, sources } = input;
  const app = sqlString(appId);
  const install = sqlString(INSTALL_EVENT_NAME);
  const organic = sqlString(ORGANIC);
  const pending = sqlString(PENDING);
  const days = reportDays(dialect, input.timeZone, { from, to });
  const events = boundedEvents(dialect, sources.events, appId, from, to, days);
  const touchDays = touchDaysOf(from, to, days);
  const touchPartitions = partitionsOfDays(touchDays.from, touchDays.to);
  const rows = buildReportRowsQuery({
    dialect,
    appId,
    since: days.start(from),
    sources: { events, attributions: sources.attributions },
    columns: OVERVIEW_COLUMNS,
    attributionColumns: ["reinstall"],
    exclude: input.exclude,
  });
  const isInstall = `r.event_name = ${install}`;
  // The same device installing again (either platform; the export's `install_type` says so on
  // iOS only): counted apart, never among the installs (nor paid, organic, a status, a method or
  // a path of one), as the leading services keep reinstalls apart.
  const isReinstall = `${isInstall} AND r.reinstall = 1`;
  // Revenue no rate converted: in no `revenue_usd`, counted apart so the answer says so.
  const isUnconverted =
    "r.revenue IS NOT NULL AND r.revenue_usd IS NULL AND r.currency IS NOT NULL";
  const filterColumns = filterColumnsOf(input.renamed);
  const filters = Object.entries(input.filters ?? {})
    .filter((entry): entry is [keyof CohortFilters, string] => typeof entry[1] === "string")
    .map(([key, value]) => `\n    AND ${filterColumns[key]} = ${sqlString(value)}`)
    .join("");
  const keys = OVERVIEW_KEYS.join(", ");
  const sets = Object.values(OVERVIEW_SETS)
    .map((set) => `(${set.join(", ")})`)
    .join(",\n    ");
  const paths = groupingIdOf(OVERVIEW_SETS.deep_link_paths);
  // A sum of counts, as a count is typed (DuckDB sums integers to a 128-bit one).
  const count = (counted: string) => `CAST(coalesce(sum(${counted}), 0) AS BIGINT)`;
  return `WITH ${renamedCampaignsCte(input.renamed)}report_rows AS (
${rows}
),
window_installs AS (
  SELECT service_id,
    ${latestBy[dialect]("match_status", "attributed_at")} AS match_status,
    ${latestBy[dialect]("click_id", "attributed_at")} AS click_id
  FROM ${sources.attributions} AS attributions
  WHERE app_id = ${app}
    AND service_id IN (
      SELECT service_id FROM ${events} AS installs WHERE installs.event_name = ${install}
    )
  GROUP BY service_id
),
install_paths AS (
  SELECT click_id, min(${deepLinkPathOf[dialect]("params")}) AS deep_link_path
  FROM ${sources.touches} AS touches
  WHERE app_id = ${app}
    AND dt BETWEEN ${sqlString(touchPartitions.from)} AND ${sqlString(touchPartitions.to)}
    AND click_id IN (SELECT click_id FROM window_installs)
  GROUP BY click_id
),
-- The window's events grouped once by what the charts group by, each install on a row of its
-- own (its status, method and path are its own): the per-install lookups and the grouping sets
-- then read these groups, not every event.
window_groups AS (
  SELECT
    ${days.day("r.event_time")} AS day,
    r.media_source,
    ${filterColumns.campaign} AS campaign,
    r.event_name,
    r.country,
    CASE WHEN ${isInstall} THEN r.service_id END AS install_id,
    CASE WHEN ${isInstall} THEN r.matching_type END AS matching_type,
    CASE WHEN ${isReinstall} THEN 1 ELSE 0 END AS reinstall,
    CASE WHEN ${isUnconverted} THEN r.currency END AS currency,
    count(*) AS events,
    sum(coalesce(r.revenue_usd, 0)) AS revenue_usd,
    count(CASE WHEN ${isUnconverted} THEN 1 END) AS revenue_events_unconverted,
    sum(CASE WHEN ${isUnconverted} THEN r.revenue END) AS revenue_unconverted
  FROM report_rows AS r${renamedJoins(input.renamed, "r")}
  WHERE 1 = 1${filters}
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
),
facts AS (
  SELECT
    g.day,
    g.media_source,
    g.campaign,
    g.event_name,
    g.country,
    g.event_name = ${install} AND g.reinstall = 0 AS is_install,
    g.reinstall = 1 AS is_reinstall,
    CASE WHEN g.install_id IS NOT NULL THEN coalesce(i.match_status, ${pending}) END AS status,
    CASE WHEN g.install_id IS NOT NULL THEN coalesce(g.matching_type, i.match_status, ${pending}) END AS method,
    CASE WHEN g.install_id IS NOT NULL AND g.media_source <> ${organic} THEN p.deep_link_path END AS deep_link_path,
    g.currency,
    g.events,
    g.revenue_usd,
    g.revenue_events_unconverted,
    g.revenue_unconverted
  FROM window_groups AS g
  LEFT JOIN window_installs AS i ON i.service_id = g.install_id
  LEFT JOIN install_paths AS p ON p.click_id = i.click_id
),
grouped AS (
  SELECT
    grouping(${keys}) AS grouping_id,
    ${keys},
    ${count("CASE WHEN is_install THEN events END")} AS installs,
    ${count("CASE WHEN is_reinstall THEN events END")} AS reinstalls,
    ${count(`CASE WHEN is_install AND media_source <> ${organic} THEN events END`)} AS paid_installs,
    ${count(`CASE WHEN is_install AND media_source = ${organic} THEN events END`)} AS organic_installs,
    ${count("events")} AS events,
    coalesce(sum(revenue_usd), 0) AS revenue_usd,
    ${count("revenue_events_unconverted")} AS revenue_events_unconverted,
    coalesce(sum(revenue_unconverted), 0) AS revenue_unconverted
  FROM facts
  GROUP BY GROUPING SETS (
    ${sets}
  )
),
ranked AS (
  SELECT grouped.*,
    row_number() OVER (
      PARTITION BY grouping_id
      ORDER BY CASE WHEN deep_link_path IS NULL THEN 1 ELSE 0 END, installs DESC, deep_link_path
    ) AS path_rank
  FROM grouped
)
SELECT grouping_id, ${keys}, ${OVERVIEW_MEASURES.join(", ")}
FROM ranked
WHERE grouping_id <> ${paths}
  OR (deep_link_path IS NOT NULL AND installs > 0 AND path_rank <= ${TOP_DEEP_LINK_PATHS})`;
};

/** The days whose partitions the latest events are read from: yesterday's and today's. */
export const LATEST_EVENT_DAYS = 2;

export interface LatestEventsQueryInput {
  readonly dialect: Dialect;
  readonly appId: string;
  readonly limit: number;
  /** UTC day `YYYY-MM-DD`. */
  readonly today: string;
  readonly sources: Omit<ReportSources, "touches">;
  readonly exclude?: Exclusion;
}

/** The window of the latest events: the last LATEST_EVENT_DAYS days, today's included. */
export const latestEventDays = (today: string): { from: string; to: string } => ({
  from: addDays(today, 1 - LATEST_EVENT_DAYS),
  to: today,
});

/** The newest `limit` exported records of the last days' partitions, newest first. */
export const buildLatestEventsQuery = (input: LatestEventsQueryInput): string => {
  const { dialect, appId, sources } = input;
  if (!Number.isSafeInteger(input.limit) || input.limit < 1) {
    throw new RangeError("limit must be a positive integer");
  }
  const { from, to } = latestEventDays(input.today);
  const rows = buildExportRowsQuery({
    dialect,
    appId,
    since: startOfDay(from),
    sources: {
      events: boundedEvents(dialect, sources.events, appId, from, to),
      attributions: sources.attributions,
    },
    exclude: input.exclude,
  });
  return `SELECT * FROM (
${rows}
) AS latest
ORDER BY event_time DESC, event_id DESC
LIMIT ${input.limit}`;
};
