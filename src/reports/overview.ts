/**
 * The overview's answer from its query's rows (./queries.ts): each row is a group of one
 * grouping set, which its `grouping_id` names; each part of the answer is one set's rows,
 * sorted. Both engines' rows come here, as values of whatever type the engine reads
 * (DuckDB's bigints, Athena's CSV text).
 */
import type { OverviewReport } from "../ports/reports.ts";
import {
  groupingIdOf,
  OVERVIEW_KEYS,
  OVERVIEW_MEASURES,
  OVERVIEW_SETS,
  type OverviewKey,
  type OverviewSet,
} from "./queries.ts";

type Measure = (typeof OVERVIEW_MEASURES)[number];

/** One row of the overview query. */
export type OverviewRow = { readonly set: OverviewSet } & {
  readonly [K in OverviewKey]: string | null;
} & { readonly [M in Measure]: number };

const SET_OF_ID = new Map<number, OverviewSet>(
  Object.entries(OVERVIEW_SETS).map(([set, keys]) => [groupingIdOf(keys), set as OverviewSet]),
);

const numberOf = (name: string, value: unknown): number => {
  const parsed =
    typeof value === "bigint" ? Number(value) : typeof value === "string" ? Number(value) : value;
  if (typeof parsed !== "number" || !Number.isFinite(parsed) || value === "") {
    throw new Error(`overview result column ${name} is not a number: ${String(value)}`);
  }
  return parsed;
};

const textOf = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

/**
 * A result row read by an engine (column name to value) as an OverviewRow; throws on a row
 * that is not one, rather than let a chart miss it.
 */
export const overviewRowOf = (values: Readonly<Record<string, unknown>>): OverviewRow => {
  const id = numberOf("grouping_id", values.grouping_id);
  const set = SET_OF_ID.get(id);
  if (set === undefined) throw new Error(`overview result row of no grouping set: ${id}`);
  const keys = Object.fromEntries(OVERVIEW_KEYS.map((key) => [key, textOf(values[key])]));
  const measures = Object.fromEntries(
    OVERVIEW_MEASURES.map((measure) => [measure, numberOf(measure, values[measure])]),
  );
  return { set, ...keys, ...measures } as OverviewRow;
};

/** Sums of doubles carry binary noise (0.1 + 0.2): money is shown to a millionth. */
const money = (value: number): number => Math.round(value * 1e6) / 1e6;

const byText = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;

/** A key every row of its set has: a day, a path. */
const required = (row: OverviewRow, key: OverviewKey): string => {
  const value = row[key];
  if (value === null) throw new Error(`overview ${row.set} row without its ${key}`);
  return value;
};

export const overviewReport = (
  window: { readonly from: string; readonly to: string },
  rows: readonly OverviewRow[],
): OverviewReport => {
  const of = (set: OverviewSet) => rows.filter((row) => row.set === set);
  const total = of("totals")[0];
  // Rows of the install sets that hold no install are groups of other events.
  const withInstalls = (set: OverviewSet) => of(set).filter((row) => row.installs > 0);
  return {
    from: window.from,
    to: window.to,
    totals: {
      installs: total?.installs ?? 0,
      paid_installs: total?.paid_installs ?? 0,
      organic_installs: total?.organic_installs ?? 0,
      reinstalls: total?.reinstalls ?? 0,
      events: total?.events ?? 0,
      revenue_usd: money(total?.revenue_usd ?? 0),
    },
    installs_by_day: withInstalls("installs_by_day")
      .map((row) => ({
        date: required(row, "day"),
        media_source: row.media_source,
        installs: row.installs,
      }))
      .sort(
        (a, b) =>
          byText(a.date, b.date) ||
          b.installs - a.installs ||
          byText(a.media_source, b.media_source),
      ),
    match_status: withInstalls("match_status")
      .map((row) => ({ status: required(row, "status"), installs: row.installs }))
      .sort((a, b) => b.installs - a.installs || byText(a.status, b.status)),
    match_method: withInstalls("match_method")
      .map((row) => ({ method: required(row, "method"), installs: row.installs }))
      .sort((a, b) => b.installs - a.installs || byText(a.method, b.method)),
    events_by_day: of("events_by_day")
      .map((row) => ({
        date: required(row, "day"),
        event_name: row.event_name,
        events: row.events,
      }))
      .sort(
        (a, b) =>
          byText(a.date, b.date) || b.events - a.events || byText(a.event_name, b.event_name),
      ),
    revenue_by_day: of("revenue_by_day")
      .map((row) => ({ date: required(row, "day"), revenue_usd: money(row.revenue_usd) }))
      .sort((a, b) => byText(a.date, b.date)),
    campaigns: of("campaigns")
      .map((row) => ({
        media_source: row.media_source,
        campaign: row.campaign,
        installs: row.installs,
        reinstalls: row.reinstalls,
        events: row.events,
        revenue_usd: money(row.revenue_usd),
        revenue_per_install: row.installs > 0 ? money(row.revenue_usd / row.installs) : 0,
      }))
      .sort(
        (a, b) =>
          b.installs - a.installs ||
          b.revenue_usd - a.revenue_usd ||
          byText(a.media_source, b.media_source) ||
          byText(a.campaign, b.campaign),
      ),
    deep_link_paths: withInstalls("deep_link_paths")
      .map((row) => ({ deep_link_path: required(row, "deep_link_path"), installs: row.installs }))
      .sort((a, b) => b.installs - a.installs || byText(a.deep_link_path, b.deep_link_path)),
    revenue_events_unconverted: total?.revenue_events_unconverted ?? 0,
    revenue_unconverted: of("revenue_unconverted")
      .filter((row) => row.currency !== null && row.revenue_events_unconverted > 0)
      .map((row) => ({
        currency: required(row, "currency"),
        events: row.revenue_events_unconverted,
        amount: money(row.revenue_unconverted),
      }))
      .sort((a, b) => b.events - a.events || byText(a.currency, b.currency)),
    countries: of("countries")
      .map((row) => ({
        country: row.country,
        installs: row.installs,
        events: row.events,
        revenue_usd: money(row.revenue_usd),
      }))
      .sort(
        (a, b) => b.installs - a.installs || b.events - a.events || byText(a.country, b.country),
      ),
  };
};
