/**
 * The cohorts query, for both engines as the other reports (./queries.ts): the installs of the
 * days `from` to `to` as the export has them (each once, with its latest attribution, deleted
 * installs left out), each with the days since its install on which it was active (a session
 * on that calendar day of the app's time zone, as AppsFlyer counts retention) and its revenue
 * on each of those days (its events' USD revenue), up to COHORT_DAYS after its install. Its
 * rows are per cohort (the install's day) and group: one with the cohort's size (`day_n` null),
 * and one per day since install of the summary figures (SUMMARY_DAYS: `group_days`, `payers`);
 * and per cohort alone, one per day since install (`days`), for the table by install day.
 * src/reports/cohorts.ts folds them into the answer. A row of a group per day since install
 * would be as many again for each group (a report grouped by country: a row per install day,
 * media source, country and day since install), more than the service's memory holds at scale.
 *
 * A reinstall is counted as the overview counts it, in no install figure: it makes no cohort,
 * and its days and revenue are no cohort's. What a network charged for it was spent all the
 * same, so its size row's cost counts it; a reinstall that cost nothing makes no row at all.
 *
 * Cost the service knows itself (src/costs/touch-cost.ts) comes in `cost_usd`: on a cohort's
 * size row, what its installs cost when a CPI touch won them (the `cost_usd` of each install's
 * latest attribution, the one the export joins); on a touches row, what its CPC clicks and CPM
 * impressions cost (each touch once). Each such row names its campaign (`campaign_id`,
 * `campaign_name`) and, where it costs something, the ad set, ad and country of that cost
 * (`cost_adset_id` … `cost_country`), whatever the grouping: what the fold matches cost rows
 * on, so that which cost counts never depends on the grouping asked. Such a row also counts, in
 * `cost_unconverted`, its installs and touches whose price no rate converted (their `cost_usd`
 * null, in no sum), keyed as those that cost something, for the fold to say what the cost lacks
 * where no cost row replaces it. The cost rows of
 * `POST /v1/costs` are not read here: the lake's costs table keeps every row as it was sent (a
 * row sent again for the same day and keys is a second row there), so the report takes them
 * from the cost store, which holds only the latest of each (src/reports/reports.ts), and the
 * fold (./cohorts.ts) weighs the two.
 *
 * Grouped by ad set or ad, when a cost row names one, the installs and touches rows also carry
 * the ad set's or ad's own id and name (`group_id`, `group_name`), whatever they cost: a cost row
 * naming it by its id alone then finds the group the rows give it by its name.
 *
 * A `group_days` row holds a group's cohort's installs active on day `day_n` since install
 * (`active`) and their revenue up to that day (`revenue_usd`); a `payers` row, in `installs`, its
 * installs with revenue above 0 on a day up to it (paying users). The `days` rows, of no group,
 * hold each day since install's active installs and revenue of that day alone.
 *
 * Those rows are of a group, not a campaign. A campaign's revenue, by which the fold weighs eCPI
 * and ROAS per campaign, comes in `campaign_revenue` rows: its paid installs' revenue up to each
 * of ROAS's days since install (`day_n`).
 *
 * Revenue no rate converted (an event with `revenue` and no `revenue_usd`) is in no figure; the
 * `unconverted_revenue` rows count such events of the cohorts' installs, up to day 30 since each
 * install as revenue is, and add up their amounts, per media source, group and currency
 * (`revenue_currency`, `revenue_events`, `revenue_amount`), so that the answer can say what its
 * revenue lacks, and each group's.
 *
 * Active users are of every install, whatever its install day: an `active_day` row per UTC day
 * of `from` to `to` with a session, counting the installs with one that day, and one
 * `active_range` row counting those with one in the whole range (not a sum of the days: an
 * install active on two days is one active user). The install's latest attribution gives its
 * media source and campaign; its platform and country are its sessions' (the platform the
 * install was made on, the country the session came from), since an install of a day before
 * the range has its install event in partitions the query does not read.
 */
import { CHARGED_TOUCHES } from "../costs/touch-cost.ts";
import {
  buildReportRowsQuery,
  type Dialect,
  type Exclusion,
  exclusionFilter,
  sqlString,
} from "../lake/export-query.ts";
import type {
  CohortCostKey,
  CohortFilters,
  CohortGroup,
  RenamedCampaign,
} from "../ports/reports.ts";
import type { ColumnName } from "../record/columns.ts";
import {
  campaignKeyOf,
  campaignNameOf,
  renamedCampaignsCte,
  renamedJoins,
} from "./campaign-names.ts";
import { addDays } from "./days.ts";
import {
  boundedEvents,
  INSTALL_EVENT_NAME,
  ORGANIC,
  partitionsOfDays,
  REPORT_COLUMNS,
  reportDays,
} from "./queries.ts";

/**
 * Keeps, of a CTE of attributions named `a`, each install's latest: an install attributed again
 * (a reinstall, a late answer) counts as its latest attribution says.
 */
const latestAttributionOf = (cte: string) => `JOIN (
    SELECT service_id, max(attributed_at) AS attributed_at
    FROM ${cte}
    GROUP BY service_id
  ) AS latest ON latest.service_id = a.service_id AND latest.attributed_at = a.attributed_at`;

/** The last day since install a cohort is followed to: day 30, as the leading services show. */
export const COHORT_DAYS = 30;

/** The days since install the summary figures are given for. */
export const SUMMARY_DAYS = {
  retention: [1, 7, 30],
  arpu: [0, 7, 30],
  paying: [0, 7, 30],
  roas: [0, 7, 30],
} as const;

/**
 * Every day since install a summary figure is of, each once, and COHORT_DAYS, up to which
 * revenue to date is: the `group_days` rows' days.
 */
export const SUMMARY_DAY_NS: readonly number[] = [
  ...new Set([...Object.values(SUMMARY_DAYS).flat(), COHORT_DAYS]),
].sort((a, b) => a - b);

/** The days since install `days`, as a relation `n (day_n)` of both engines. */
const daysRelation = (days: readonly number[]) =>
  `(VALUES ${days.map((n) => `(${n})`).join(", ")}) AS n (day_n)`;

/**
 * What a cohort's installs (and the touches beside them) may be grouped by, beside their media
 * source: the column of the export's rows, and of the touches (a campaign renamed at its
 * network is then named by its latest name: `groupOf`).
 */
export const COHORT_GROUPS: Record<
  CohortGroup,
  {
    rows: string;
    touches: string;
    /** The columns of the id and the name of what a cost row may name by either. */
    named?: { readonly id: string; readonly name: string };
  }
> = {
  campaign: {
    rows: "coalesce(r.campaign_name, r.campaign_id)",
    touches: "coalesce(t.campaign_name, t.campaign_id)",
  },
  adset: {
    rows: "coalesce(r.adset_name, r.adset_id)",
    touches: "coalesce(t.adset_name, t.adset_id)",
    named: { id: "adset_id", name: "adset_name" },
  },
  ad: {
    rows: "coalesce(r.ad_name, r.ad_id)",
    touches: "coalesce(t.ad_name, t.ad_id)",
    named: { id: "ad_id", name: "ad_name" },
  },
  country: { rows: "r.country", touches: "t.country" },
  platform: { rows: "r.os", touches: "t.platform" },
} as const;

/**
 * The export's columns the cohorts read: a report's, the ad sets and ads they group by, and the
 * revenue and currency of the events no rate converted.
 */
const COHORT_COLUMNS: readonly ColumnName[] = [
  ...REPORT_COLUMNS,
  "adset_id",
  "adset_name",
  "ad_id",
  "ad_name",
  "revenue",
  "currency",
];

export interface CohortQueryInput {
  readonly dialect: Dialect;
  readonly appId: string;
  /** Install days of the time zone, both included. */
  readonly from: string;
  readonly to: string;
  /** The app's time zone its days are counted in (../domain/time-zone.ts); UTC unless given. */
  readonly timeZone?: string;
  readonly groupBy: CohortGroup;
  readonly filters: CohortFilters;
  /** The cost keys the rows carry (src/ports/reports.ts's CohortQuery). */
  readonly costKeys: readonly CohortCostKey[];
  readonly sources: {
    readonly events: string;
    readonly attributions: string;
    readonly sessions: string;
    readonly touches: string;
  };
  readonly exclude?: Exclusion;
  /** Campaigns renamed at their network, each named by its latest name (./campaign-names.ts). */
  readonly renamed?: readonly RenamedCampaign[];
}

/** A grouping's columns, a campaign's as the report names it (./campaign-names.ts). */
const groupOf = (groupBy: CohortGroup, renamed: readonly RenamedCampaign[] | undefined) =>
  groupBy === "campaign"
    ? { rows: campaignKeyOf(renamed, "r"), touches: campaignKeyOf(renamed, "t") }
    : COHORT_GROUPS[groupBy];

const filterColumnsOf = (
  renamed: readonly RenamedCampaign[] | undefined,
): Record<keyof CohortFilters, { rows: string; touches: string; active: string }> => ({
  media_source: { rows: "r.media_source", touches: "t.media_source", active: "a.media_source" },
  campaign: { ...groupOf("campaign", renamed), active: "a.campaign" },
  country: { ...COHORT_GROUPS.country, active: "s.country" },
  platform: { ...COHORT_GROUPS.platform, active: "s.os" },
});

/** The days whose events and sessions a cohort query reads: the installs' and 30 after. */
export const cohortDaysOf = (from: string, to: string) => ({ from, to: addDays(to, COHORT_DAYS) });

/**
 * The columns of an `installs` or `touches` row that say what its own cost is of, for the fold's
 * rule that a cost row replaces it (./cohorts.ts): its campaign (id and name apart, as a cost
 * row may name it by either) on every such row, and the ad set, ad and country only of the
 * installs and touches that cost something, so that rows of no cost are not split by them.
 * Then the id and name of the ad set or ad grouped by (`group_id`, `group_name`), on every such
 * row, for the fold to put a cost row's spend in the group of what it names.
 */
const COST_KEYS = ["adset_id", "adset_name", "ad_id", "ad_name", "country"] as const;

/**
 * An install's or touch's row carries its campaign (`campaign_key`), as the campaign grouping
 * names it, whatever the grouping: the fold weighs eCPI and ROAS by media source and campaign,
 * so that the installs of a campaign with no cost are not taken for what another campaign's
 * cost bought.
 */
const KEYED = [
  "campaign_id",
  "campaign_name",
  ...COST_KEYS.map((key) => `cost_${key}`),
  "group_id",
  "group_name",
];
const NO_KEYS = KEYED.map((column) => `CAST(NULL AS VARCHAR) AS ${column}`).join(", ");
/** The columns of the `unconverted_revenue` rows, on every other row. */
const NO_UNCONVERTED =
  "CAST(NULL AS VARCHAR) AS revenue_currency, 0 AS revenue_events, 0.0 AS revenue_amount";
/** The count of an `installs` or `touches` row's unconverted prices, on every other row. */
const NO_COST_UNCONVERTED = "0 AS cost_unconverted";

/**
 * Whether a touches table row's price is charged on the touch itself (src/costs/touch-cost.ts:
 * a CPC click, a CPM impression), and is a price at all: one of 0 is nothing in any currency.
 */
const chargedTouch = (t: string): string =>
  `(${Object.entries(CHARGED_TOUCHES)
    .map(
      ([model, { type }]) =>
        `${t}.cost_model = ${sqlString(model)} AND ${t}.touch_type = ${sqlString(type)}`,
    )
    .join(" OR ")}) AND ${t}.cost_value > 0`;

/** Whether an attribution's install was won by a CPI touch of a price above 0. */
const chargedInstall = (a: string): string =>
  `${a}.cost_model = ${sqlString("CPI")} AND ${a}.cost_value > 0`;

/** 1 for a price charged (`charged`, a 0-or-1 column) that no rate converted (`usd` null). */
const unconvertedOf = (usd: string, charged: string): string =>
  `CASE WHEN ${usd} IS NULL AND ${charged} = 1 THEN 1 ELSE 0 END`;

const COLUMNS_OF_KEY: Readonly<Record<CohortCostKey, readonly string[]>> = {
  campaign: ["campaign_id", "campaign_name"],
  adset: ["cost_adset_id", "cost_adset_name"],
  ad: ["cost_ad_id", "cost_ad_name"],
  country: ["cost_country"],
};

/**
 * The key columns of a row, as the select list and the group by's tail: those of the keys asked,
 * and null for the rest, so that no row is split by a key no cost row names. The group's own id
 * and name when it is an ad set or ad and some cost row names one.
 */
const keyedBy = (keys: readonly CohortCostKey[], groupBy: CohortGroup) => {
  const asked = new Set(keys.flatMap((key) => COLUMNS_OF_KEY[key]));
  if ((groupBy === "adset" || groupBy === "ad") && keys.includes(groupBy)) {
    asked.add("group_id");
    asked.add("group_name");
  }
  /**
   * A column of the installs or touches (`adset_id`) as read, or null when no key asked for it:
   * the rows then carry nothing the query would group or join by in vain.
   */
  const read = (column: string, expression: string): string =>
    asked.has(column) || asked.has(`cost_${column}`) ? expression : "CAST(NULL AS VARCHAR)";
  return {
    read,
    source: (column: string, expression: string): string =>
      `${read(column, expression)} AS ${column}`,
    select: (alias: string): string =>
      KEYED.map((column) =>
        asked.has(column) ? `${alias}.${column}` : `CAST(NULL AS VARCHAR) AS ${column}`,
      ).join(", "),
    groupBy: (alias: string): string =>
      KEYED.filter((column) => asked.has(column))
        .map((column) => `, ${alias}.${column}`)
        .join(""),
  };
};

/**
 * The cost keys of installs or touches that cost something: a USD cost above 0, or a price no
 * rate converted (a cost row may replace it all the same).
 */
const costKeysOf = (cost: string, unconverted: string, column: (name: string) => string): string =>
  COST_KEYS.map(
    (key) => `CASE WHEN ${cost} > 0 OR ${unconverted} = 1 THEN ${column(key)} END AS cost_${key}`,
  ).join(",\n    ");

/** The columns a row's cost keys are read from, as the installs and touches name them. */
const SOURCE_COLUMNS = ["campaign_id", "campaign_name", ...COST_KEYS] as const;

export const buildCohortQuery = (input: CohortQueryInput): string => {
  const { dialect, appId, from, to, sources } = input;
  const keyed = keyedBy(input.costKeys, input.groupBy);
  const days = cohortDaysOf(from, to);
  const local = reportDays(dialect, input.timeZone, days);
  const utcDays = local.utcDays(days.from, days.to);
  const partitions = partitionsOfDays(utcDays.from, utcDays.to);
  const at = local.startLiteral;
  const rows = buildReportRowsQuery({
    dialect,
    appId,
    since: local.start(from),
    sources: {
      events: boundedEvents(dialect, sources.events, appId, days.from, days.to, local),
      attributions: sources.attributions,
    },
    exclude: input.exclude,
    columns: COHORT_COLUMNS,
    attributionColumns: ["reinstall"],
  });
  const given = Object.entries(input.filters).filter(
    (entry): entry is [keyof CohortFilters, string] => typeof entry[1] === "string",
  );
  const filterColumns = filterColumnsOf(input.renamed);
  const filtersOn = (source: "rows" | "touches" | "active") =>
    given
      .map(([key, value]) => `\n    AND ${filterColumns[key][source]} = ${sqlString(value)}`)
      .join("");
  const group = groupOf(input.groupBy, input.renamed);
  const named = COHORT_GROUPS[input.groupBy].named;
  const { renamed } = input;
  /** The group's own id and name (`group_id`, `group_name`), as a relation's columns read them. */
  const groupColumns = (column: (name: string) => string) =>
    (["id", "name"] as const)
      .map((of) => keyed.source(`group_${of}`, named ? column(named[of]) : "CAST(NULL AS VARCHAR)"))
      .join(", ");
  const touchDays = local.utcDays(from, to);
  const touchPartitions = partitionsOfDays(touchDays.from, touchDays.to);
  /** Of a touch (its rows grouped), 1 when its price is charged and no rate converted it. */
  const touchUnconverted = unconvertedOf(
    "max(t.cost_usd)",
    `max(CASE WHEN ${chargedTouch("t")} THEN 1 ELSE 0 END)`,
  );
  /** Days from the install's day to a date's. */
  const sinceInstall = (date: string) => `date_diff('day', CAST(i.cohort_day AS DATE), ${date})`;
  return `WITH ${renamedCampaignsCte(renamed)}report_rows AS (
${rows}
),
cohort_installs AS (
  SELECT r.service_id,
    CASE WHEN r.reinstall = 1 THEN 1 ELSE 0 END AS reinstall,
    ${local.day("r.event_time")} AS cohort_day,
    r.media_source,
    ${group.rows} AS group_key,
    ${campaignKeyOf(renamed, "r")} AS campaign_key,
    ${SOURCE_COLUMNS.map((column) => keyed.source(column, column === "campaign_name" ? campaignNameOf(renamed, "r") : `r.${column}`)).join(", ")},
    ${groupColumns((name) => `r.${name}`)}
  FROM report_rows AS r${renamedJoins(renamed, "r")}
  WHERE r.event_name = ${sqlString(INSTALL_EVENT_NAME)}
    AND r.event_time < ${at(addDays(to, 1))}${filtersOn("rows")}
),
-- The cohorts' installs proper: a reinstall's days, revenue and retention are no cohort's.
new_installs AS (
  SELECT service_id, cohort_day, media_source, group_key, campaign_key
  FROM cohort_installs
  WHERE reinstall = 0
),
cohort_attributions AS (
  SELECT a.service_id, a.attributed_at, a.cost_usd,
    CASE WHEN ${chargedInstall("a")} THEN 1 ELSE 0 END AS charged
  FROM ${sources.attributions} AS a
  WHERE a.app_id = ${sqlString(appId)}
    AND a.dt >= ${sqlString(touchDays.from)}
    AND a.service_id IN (SELECT service_id FROM cohort_installs)
),
install_costs AS (
  SELECT a.service_id, max(a.cost_usd) AS cost_usd,
    ${unconvertedOf("max(a.cost_usd)", "max(a.charged)")} AS cost_unconverted
  FROM cohort_attributions AS a
  ${latestAttributionOf("cohort_attributions")}
  GROUP BY a.service_id
),
costed_installs AS (
  SELECT i.cohort_day, i.media_source, i.group_key, i.campaign_key, i.reinstall, i.campaign_id,
    i.campaign_name,
    c.cost_usd,
    coalesce(c.cost_unconverted, 0) AS cost_unconverted,
    ${costKeysOf("c.cost_usd", "c.cost_unconverted", (column) => `i.${column}`)},
    i.group_id, i.group_name
  FROM cohort_installs AS i
  LEFT JOIN install_costs AS c ON c.service_id = i.service_id
),
active_days AS (
  SELECT DISTINCT s.service_id, ${local.date("s.started_at")} AS day
  FROM ${sources.sessions} AS s
  WHERE s.app_id = ${sqlString(appId)}
    AND s.dt BETWEEN ${sqlString(partitions.from)} AND ${sqlString(partitions.to)}
    AND s.started_at >= ${at(days.from)}
    AND s.started_at < ${at(addDays(days.to, 1))}
    AND s.service_id IN (SELECT service_id FROM new_installs)
),
revenue_days AS (
  SELECT r.service_id, ${local.date("r.event_time")} AS day, sum(r.revenue_usd) AS revenue_usd
  FROM report_rows AS r
  WHERE r.revenue_usd IS NOT NULL
    AND r.service_id IN (SELECT service_id FROM new_installs)
  GROUP BY r.service_id, ${local.date("r.event_time")}
),
unconverted_revenue AS (
  SELECT i.media_source, i.group_key, r.currency, count(*) AS revenue_events,
    sum(r.revenue) AS revenue_amount
  FROM report_rows AS r
  JOIN new_installs AS i ON i.service_id = r.service_id
  WHERE r.revenue IS NOT NULL
    AND r.revenue_usd IS NULL
    AND r.currency IS NOT NULL
    AND ${sinceInstall(local.date("r.event_time"))} BETWEEN 0 AND ${COHORT_DAYS}
  GROUP BY i.media_source, i.group_key, r.currency
),
-- Each install's first day since install with revenue above 0 (a refund's day nets below):
-- from it on, the install is a paying user.
first_payments AS (
  SELECT i.service_id, i.cohort_day, i.media_source, i.group_key,
    min(${sinceInstall("CAST(d.day AS DATE)")}) AS day_n
  FROM new_installs AS i
  JOIN revenue_days AS d ON d.service_id = i.service_id
  WHERE d.revenue_usd > 0
    AND ${sinceInstall("CAST(d.day AS DATE)")} BETWEEN 0 AND ${COHORT_DAYS}
  GROUP BY i.service_id, i.cohort_day, i.media_source, i.group_key
),
install_days AS (
  SELECT service_id, day, max(active) AS active, sum(revenue_usd) AS revenue_usd
  FROM (
    SELECT service_id, day, 1 AS active, 0.0 AS revenue_usd FROM active_days
    UNION ALL
    SELECT service_id, day, 0 AS active, revenue_usd FROM revenue_days
  ) AS both_kinds
  GROUP BY service_id, day
),
-- Each group's and campaign's cohort's active installs and revenue on each day since install,
-- up to day 30: what the table by install day, the groups' summary days and the campaigns'
-- revenue are each added up from, so that the installs' days are read and grouped once.
cohort_days AS (
  SELECT i.cohort_day, i.media_source, i.group_key, i.campaign_key,
    ${sinceInstall("CAST(d.day AS DATE)")} AS day_n,
    sum(d.active) AS active, sum(d.revenue_usd) AS revenue_usd
  FROM new_installs AS i
  JOIN install_days AS d ON d.service_id = i.service_id
  WHERE ${sinceInstall("CAST(d.day AS DATE)")} BETWEEN 0 AND ${COHORT_DAYS}
  GROUP BY i.cohort_day, i.media_source, i.group_key, i.campaign_key,
    ${sinceInstall("CAST(d.day AS DATE)")}
),
cohort_touches AS (
  SELECT t.click_id, t.touch_type, ${local.day("t.touch_time")} AS cohort_day,
    t.media_source, ${group.touches} AS group_key,
    coalesce(max(${campaignNameOf(renamed, "t")}), max(t.campaign_id)) AS campaign_key,
    max(t.cost_usd) AS cost_usd,
    ${touchUnconverted} AS cost_unconverted,
    ${keyed.source("campaign_id", "max(t.campaign_id)")},
    ${keyed.source("campaign_name", `max(${campaignNameOf(renamed, "t")})`)},
    ${costKeysOf("max(t.cost_usd)", touchUnconverted, (column) => keyed.read(column, `max(t.${column})`))},
    ${groupColumns((name) => `max(t.${name})`)}
  FROM ${sources.touches} AS t${renamedJoins(renamed, "t")}
  WHERE t.app_id = ${sqlString(appId)}
    AND t.dt BETWEEN ${sqlString(touchPartitions.from)} AND ${sqlString(touchPartitions.to)}
    AND t.touch_time >= ${at(from)}
    AND t.touch_time < ${at(addDays(to, 1))}${filtersOn("touches")}
  GROUP BY t.click_id, t.touch_type, ${local.day("t.touch_time")}, t.media_source,
    ${group.touches}
),
range_sessions AS (
  SELECT DISTINCT s.service_id, ${local.day("s.started_at")} AS day, s.os, s.country
  FROM ${sources.sessions} AS s
  WHERE s.app_id = ${sqlString(appId)}
    AND s.dt BETWEEN ${sqlString(touchPartitions.from)} AND ${sqlString(touchPartitions.to)}
    AND s.started_at >= ${at(from)}
    AND s.started_at < ${at(addDays(to, 1))}${exclusionFilter(input.exclude, "s.service_id")}
),
active_attributions AS (
  SELECT a.service_id, a.attributed_at, a.media_source,
    ${campaignKeyOf(renamed, "a")} AS campaign
  FROM ${sources.attributions} AS a${renamedJoins(renamed, "a")}
  WHERE a.app_id = ${sqlString(appId)}
    AND a.service_id IN (SELECT service_id FROM range_sessions)
),
active_latest AS (
  SELECT DISTINCT a.service_id, a.media_source, a.campaign
  FROM active_attributions AS a
  ${latestAttributionOf("active_attributions")}
),
active_installs AS (
  SELECT s.service_id, s.day
  FROM range_sessions AS s
  LEFT JOIN active_latest AS a ON a.service_id = s.service_id
  WHERE true${filtersOn("active")}
)
SELECT 'installs' AS part, i.cohort_day, i.media_source, i.group_key, i.campaign_key,
  CAST(NULL AS INTEGER) AS day_n,
  count(CASE WHEN i.reinstall = 0 THEN 1 END) AS installs, 0 AS active, 0.0 AS revenue_usd, 0 AS clicks, 0 AS impressions,
  coalesce(sum(i.cost_usd), 0.0) AS cost_usd, ${keyed.select("i")}, ${NO_UNCONVERTED},
  CAST(sum(i.cost_unconverted) AS BIGINT) AS cost_unconverted
FROM costed_installs AS i
-- A reinstall only for what a network charged for it: one that cost nothing makes no row.
WHERE i.reinstall = 0 OR i.cost_usd > 0 OR i.cost_unconverted > 0
GROUP BY i.cohort_day, i.media_source, i.group_key, i.campaign_key${keyed.groupBy("i")}
UNION ALL
SELECT 'days' AS part, c.cohort_day, CAST(NULL AS VARCHAR) AS media_source,
  CAST(NULL AS VARCHAR) AS group_key, CAST(NULL AS VARCHAR) AS campaign_key, c.day_n,
  0 AS installs, sum(c.active) AS active, sum(c.revenue_usd) AS revenue_usd, 0 AS clicks, 0 AS impressions,
  0.0 AS cost_usd, ${NO_KEYS}, ${NO_UNCONVERTED}, ${NO_COST_UNCONVERTED}
FROM cohort_days AS c
GROUP BY c.cohort_day, c.day_n
UNION ALL
SELECT 'group_days' AS part, c.cohort_day, c.media_source, c.group_key,
  CAST(NULL AS VARCHAR) AS campaign_key, n.day_n, 0 AS installs,
  sum(CASE WHEN c.day_n = n.day_n THEN c.active ELSE 0 END) AS active,
  sum(c.revenue_usd) AS revenue_usd, 0 AS clicks, 0 AS impressions,
  0.0 AS cost_usd, ${NO_KEYS}, ${NO_UNCONVERTED}, ${NO_COST_UNCONVERTED}
FROM cohort_days AS c
CROSS JOIN ${daysRelation(SUMMARY_DAY_NS)}
WHERE c.day_n <= n.day_n
GROUP BY c.cohort_day, c.media_source, c.group_key, n.day_n
UNION ALL
-- A campaign's paid installs' revenue up to each day ROAS is given for, whatever the grouping:
-- what the fold weighs each campaign's cost against. Not a row per day since install, which
-- would be as many rows again as the days' for each campaign of a group.
SELECT 'campaign_revenue' AS part, c.cohort_day, c.media_source, c.group_key, c.campaign_key,
  n.day_n, 0 AS installs, 0 AS active, sum(c.revenue_usd) AS revenue_usd, 0 AS clicks,
  0 AS impressions, 0.0 AS cost_usd, ${NO_KEYS}, ${NO_UNCONVERTED}, ${NO_COST_UNCONVERTED}
FROM cohort_days AS c
CROSS JOIN ${daysRelation(SUMMARY_DAYS.roas)}
WHERE c.media_source <> ${sqlString(ORGANIC)}
  AND c.revenue_usd <> 0
  AND c.day_n <= n.day_n
GROUP BY c.cohort_day, c.media_source, c.group_key, c.campaign_key, n.day_n
UNION ALL
SELECT 'payers' AS part, f.cohort_day, f.media_source, f.group_key,
  CAST(NULL AS VARCHAR) AS campaign_key, n.day_n, count(*) AS installs, 0 AS active,
  0.0 AS revenue_usd, 0 AS clicks, 0 AS impressions,
  0.0 AS cost_usd, ${NO_KEYS}, ${NO_UNCONVERTED}, ${NO_COST_UNCONVERTED}
FROM first_payments AS f
CROSS JOIN ${daysRelation(SUMMARY_DAYS.paying)}
WHERE f.day_n <= n.day_n
GROUP BY f.cohort_day, f.media_source, f.group_key, n.day_n
UNION ALL
SELECT 'touches' AS part, t.cohort_day, t.media_source, t.group_key, t.campaign_key,
  CAST(NULL AS INTEGER) AS day_n,
  0 AS installs, 0 AS active, 0.0 AS revenue_usd,
  count(DISTINCT CASE WHEN t.touch_type = 'click' THEN t.click_id END) AS clicks,
  count(DISTINCT CASE WHEN t.touch_type = 'impression' THEN t.click_id END) AS impressions,
  coalesce(sum(t.cost_usd), 0.0) AS cost_usd, ${keyed.select("t")}, ${NO_UNCONVERTED},
  CAST(sum(t.cost_unconverted) AS BIGINT) AS cost_unconverted
FROM cohort_touches AS t
GROUP BY t.cohort_day, t.media_source, t.group_key, t.campaign_key${keyed.groupBy("t")}
UNION ALL
SELECT 'active_day' AS part, s.day AS cohort_day, CAST(NULL AS VARCHAR) AS media_source,
  CAST(NULL AS VARCHAR) AS group_key, CAST(NULL AS VARCHAR) AS campaign_key,
  CAST(NULL AS INTEGER) AS day_n, 0 AS installs,
  count(DISTINCT s.service_id) AS active, 0.0 AS revenue_usd, 0 AS clicks, 0 AS impressions,
  0.0 AS cost_usd, ${NO_KEYS}, ${NO_UNCONVERTED}, ${NO_COST_UNCONVERTED}
FROM active_installs AS s
GROUP BY s.day
UNION ALL
SELECT 'active_range' AS part, ${sqlString(from)} AS cohort_day, CAST(NULL AS VARCHAR) AS media_source,
  CAST(NULL AS VARCHAR) AS group_key, CAST(NULL AS VARCHAR) AS campaign_key,
  CAST(NULL AS INTEGER) AS day_n, 0 AS installs,
  count(DISTINCT s.service_id) AS active, 0.0 AS revenue_usd, 0 AS clicks, 0 AS impressions,
  0.0 AS cost_usd, ${NO_KEYS}, ${NO_UNCONVERTED}, ${NO_COST_UNCONVERTED}
FROM active_installs AS s
UNION ALL
SELECT 'unconverted_revenue' AS part, ${sqlString(from)} AS cohort_day,
  u.media_source, u.group_key, CAST(NULL AS VARCHAR) AS campaign_key, CAST(NULL AS INTEGER) AS day_n, 0 AS installs, 0 AS active,
  0.0 AS revenue_usd, 0 AS clicks,
  0 AS impressions, 0.0 AS cost_usd, ${NO_KEYS}, u.currency AS revenue_currency,
  u.revenue_events, u.revenue_amount, ${NO_COST_UNCONVERTED}
FROM unconverted_revenue AS u`;
};
