/**
 * The export query, for both engines: events of one app since a time, each event once, joined
 * with the latest attribution of its install, in export order. DuckDB and Athena (Trino) differ
 * only in how a timestamp is written out and read in; everything else is shared SQL.
 */
import { DAY_MS } from "../domain/time.ts";
import { type ColumnName, EXPORT_COLUMNS } from "../record/columns.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeOnlyAttributionColumn } from "./lake-tables.ts";

export type Dialect = "duckdb" | "athena";

/** The lake tables the export reads, and nothing else (its grants name these only). */
export const EXPORT_TABLES = [EVENTS_TABLE, ATTRIBUTIONS_TABLE] as const;

export interface ExportQueryInput {
  readonly dialect: Dialect;
  readonly appId: string;
  readonly since: Date;
  /**
   * The export's end, the present: its events are dated up to it, so that a job that pulls
   * from the latest time it has seen never passes events not yet dated. None for a report.
   */
  readonly until?: Date;
  /** SQL relations (table names or table functions) for the two lake tables. */
  readonly sources: { readonly events: string; readonly attributions: string };
  /** Installs whose data was deleted: their events are left out even before the purge. */
  readonly exclude?: Exclusion;
  /**
   * One UTC day of the window's `event_time`: its rows, in export order. The export order is by
   * `event_time`, so the days' results one after the other are the window's, and each day is
   * sorted alone: the work grows with the window, not faster. A day's rows lie in its own `dt`
   * partition and, for rows taken late, in the partitions after it (`lakeDay`): the sources
   * name the files to read (or the engine prunes by `dt`).
   */
  readonly day?: string;
  /**
   * With `day`: its rows with `event_time` in [from, to) only (either bound left out: none).
   * Slices of a day one after the other are the day, as days are the window.
   */
  readonly slice?: TimeSlice;
  /**
   * With `day`: a relation of the window's events held more than once (the rows of
   * `buildRepeatedEventsQuery`), so that each is exported once, at the time of its first copy,
   * whichever day or slice holds it, and a slice finds its repeated events there rather than
   * by grouping every key it reads.
   */
  readonly repeated?: string;
  /**
   * A relation of the latest attribution of each install of the rows read (as
   * `buildLatestAttributionsQuery` selects them), read instead of `sources.attributions`: a
   * day's slices share their day's, read once.
   */
  readonly latestAttributions?: string;
  /**
   * The export's columns to select, every one by default: a report reads a few, and the
   * events' other columns are then not read at all.
   */
  readonly columns?: readonly ColumnName[];
  /** Columns of the attributions table the export does not have, selected after the others. */
  readonly attributionColumns?: readonly LakeOnlyAttributionColumn[];
}

/** A range of `event_time`, `from` included and `to` not; a bound left out is none. */
export interface TimeSlice {
  readonly from?: Date;
  readonly to?: Date;
}

/**
 * The installs to leave out: listed in the query, or read by a query of their own that
 * returns a `service_id` column (for an engine that limits a query's length), together with
 * how many rows it must return. A list that cannot be read whole fails the query rather than
 * leave deleted installs in.
 */
export type Exclusion =
  | { readonly serviceIds: readonly string[] }
  | { readonly serviceIdsFrom: string; readonly count: number };

/** A SQL string literal; app ids are validated upstream, this keeps any value inert. */
export const sqlString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

const isoTime: Record<Dialect, (expr: string) => string> = {
  duckdb: (expr) => `strftime(${expr}, '%Y-%m-%dT%H:%M:%S.%gZ')`,
  athena: (expr) => `format_datetime(${expr}, 'yyyy-MM-dd''T''HH:mm:ss.SSS''Z''')`,
};

const timestampLiteral: Record<Dialect, (iso: string) => string> = {
  duckdb: (iso) => `TIMESTAMP ${sqlString(iso)}`,
  athena: (iso) => `from_iso8601_timestamp(${sqlString(iso)})`,
};

const firstBy: Record<Dialect, (value: string, order: string) => string> = {
  duckdb: (value, order) => `arg_min(${value}, ${order})`,
  athena: (value, order) => `min_by(${value}, ${order})`,
};

/** A 64-bit hash of an event's key, where the engine has one that takes two columns. */
const keyHash: Record<Dialect, string | undefined> = {
  duckdb: "hash(service_id, event_id)",
  athena: undefined,
};

/**
 * Where the engine hashes an event's key, a condition on `source`'s rows that every key held
 * more than once meets. Grouping every key of a large window by its text takes memory DuckDB
 * must spill; grouping their 64-bit hashes first leaves the text of the few repeated to group
 * (a collision only adds one).
 */
const repeatedKeyHashes = (dialect: Dialect, source: string): string | undefined => {
  const hash = keyHash[dialect];
  return hash === undefined
    ? undefined
    : `${hash} IN (SELECT ${hash} AS key_hash FROM ${source} GROUP BY key_hash HAVING count(*) > 1)`;
};

/**
 * A common table expression that is read where it is named: DuckDB would otherwise keep a
 * result named twice (the rows, and their repeated keys) in memory whole.
 */
const inlined: Record<Dialect, string> = { duckdb: "AS NOT MATERIALIZED", athena: "AS" };

/** A common table expression kept once where it is named twice: DuckDB's; Trino inlines. */
const materialized: Record<Dialect, string> = { duckdb: "AS MATERIALIZED", athena: "AS" };

const finiteTest: Record<Dialect, (expr: string) => string> = {
  duckdb: (expr) => `isfinite(${expr})`,
  athena: (expr) => `is_finite(${expr})`,
};

/** The export's columns; `event_time` as its text, or as the timestamp when `timeAsText` is not. */
const selectList = (
  dialect: Dialect,
  timeAsText: boolean,
  columns: readonly ColumnName[] | undefined,
): string =>
  EXPORT_COLUMNS.filter((c) => columns === undefined || columns.includes(c.name))
    .map((c) => {
      if (c.name === "event_time") {
        return `${timeAsText ? isoTime[dialect]("ev.event_time") : "ev.event_time"} AS event_time`;
      }
      const value = `${c.source === "event" ? "ev" : "att"}.${c.name}`;
      // JSON has no infinities or NaN: a number that is not finite is exported as null, alike
      // in every format.
      if (c.type === "number") {
        return `CASE WHEN ${finiteTest[dialect](value)} THEN ${value} END AS ${c.name}`;
      }
      return `${value} AS ${c.name}`;
    })
    .join(",\n  ");

/** The condition leaving out `exclude`'s installs, by their `column` (the events' by default). */
export const exclusionFilter = (
  exclude: Exclusion | undefined,
  column = "events.service_id",
): string => {
  if (!exclude) return "";
  if ("serviceIdsFrom" in exclude) {
    const { serviceIdsFrom, count } = exclude;
    // A failed cast is the portable way to stop a query with a message.
    const readWhole = `CAST(CASE WHEN (SELECT count(*) FROM (${serviceIdsFrom}) AS excluded) = ${count} THEN '1' ELSE 'the list of installs to leave out was not read whole' END AS integer)`;
    return `\n    AND ${column} NOT IN (${serviceIdsFrom})\n    AND 1 = ${readWhole}`;
  }
  const { serviceIds } = exclude;
  return serviceIds.length > 0
    ? `\n    AND ${column} NOT IN (${serviceIds.map(sqlString).join(", ")})`
    : "";
};

/**
 * `name`: the rows of `source`, with `rank` 1 on the first of each `key` by `order`. Only
 * the keys held more than once (an SDK's retry, a delivery made twice, an install attributed
 * again) go through the window that ranks them: they are few, and a window over every key of
 * a large window holds them all in memory at once, where the grouping and the join spill.
 * `repeated` names those keys' copies found beforehand, at their times (a slice's rows of
 * `buildRepeatedEventsQuery`): only the copies at the time of each key's first are ranked,
 * and the rows read are not grouped again. Otherwise `candidates`, where given, is a condition
 * on `source` that every repeated key meets, so that only those rows' keys are grouped.
 */
const firstOfEach = (
  name: string,
  source: string,
  key: string,
  order: string,
  rank: string,
  repeated?: string,
  candidates?: string,
) => {
  const columns = key.split(", ");
  const on = columns.map((column) => `repeated.${column} = ${source}.${column}`).join(" AND ");
  const partition = columns.map((column) => `${source}.${column}`).join(", ");
  const found =
    repeated === undefined
      ? {
          keys: `SELECT ${key} FROM ${source}${candidates ? ` WHERE ${candidates}` : ""} GROUP BY ${key} HAVING count(*) > 1`,
          at: "",
          first: "",
        }
      : {
          keys: repeated,
          at: ` AND repeated.event_time = ${source}.event_time`,
          first: `\n  WHERE repeated.first_time = ${source}.event_time`,
        };
  return `${name}_repeated AS (
  ${found.keys}
),
${name} AS (
  SELECT ${source}.*, 1 AS ${rank}
  FROM ${source} LEFT JOIN ${name}_repeated AS repeated ON ${on}
  WHERE repeated.${columns[0]} IS NULL
  UNION ALL
  SELECT ${source}.*, row_number() OVER (PARTITION BY ${partition} ORDER BY ${source}.${order}) AS ${rank}
  FROM ${source} JOIN ${name}_repeated AS repeated ON ${on}${found.at}${found.first}
)`;
};

/** A time bound as a literal of the dialect: stored in UTC without zone, DuckDB's without "Z". */
const timeLiteral = (dialect: Dialect, at: Date): string =>
  timestampLiteral[dialect](
    dialect === "duckdb" ? at.toISOString().replace("Z", "") : at.toISOString(),
  );

/** The conditions on `alias` of `input`'s day and slice of it, each on a line of its own. */
const dayAndSlice = (input: ExportQueryInput, alias: string): string => {
  const { dialect, slice } = input;
  const start = input.day === undefined ? undefined : new Date(`${input.day}T00:00:00.000Z`);
  const bound = (operator: string, at: Date | undefined) =>
    at ? `\n    AND ${alias}.event_time ${operator} ${timeLiteral(dialect, at)}` : "";
  const day = start
    ? `\n    AND ${alias}.dt >= ${sqlString(input.day ?? "")}${bound(">=", start)}${bound("<", new Date(start.getTime() + DAY_MS))}`
    : "";
  return `${day}${bound(">=", slice?.from)}${bound("<", slice?.to)}`;
};

/**
 * How long before a window its events' earlier copies are looked for. Each request's `sent_at`
 * dates an event on the service's clock, so the copies of an event sent again may be dated
 * apart: by the request's time on the way, or by much more when the phone's clock was set
 * right between its tries. An event is exported at its first copy's time, so a window that
 * starts between two copies reads the earlier one, and leaves the event to the window before.
 */
export const EARLIER_COPIES_DAYS = 1;
export const EARLIER_COPIES_MS = EARLIER_COPIES_DAYS * DAY_MS;

/** Where the window's rows are read from: `since`, less the time earlier copies are sought. */
export const readFrom = (since: Date): Date => new Date(since.getTime() - EARLIER_COPIES_MS);

/** The events' columns the window's rows are bounded, de-duplicated and joined by. */
const WINDOW_KEY_COLUMNS = ["app_id", "dt", "service_id", "event_id", "event_time", "received_at"];

/**
 * The window's rows of the app, before de-duplication, and the copies before it of its events
 * sent again (`readFrom`), which its de-duplication reads and leaves out: `src`'s definition.
 */
const windowRows = (input: ExportQueryInput): string => {
  const { dialect, appId, sources, columns } = input;
  const from = readFrom(input.since);
  const read =
    columns === undefined
      ? "*"
      : [
          ...new Set([
            ...WINDOW_KEY_COLUMNS,
            ...EXPORT_COLUMNS.filter((c) => c.source === "event" && columns.includes(c.name)).map(
              (c) => c.name,
            ),
          ]),
        ].join(", ");
  return `SELECT ${read}
  FROM ${sources.events} AS events
  WHERE events.app_id = ${sqlString(appId)}
    AND events.dt >= ${sqlString(from.toISOString().slice(0, 10))}
    AND events.event_time >= ${timeLiteral(dialect, from)}${
      input.until ? `\n    AND events.event_time <= ${timeLiteral(dialect, input.until)}` : ""
    }${dayAndSlice(input, "events")}${exclusionFilter(input.exclude)}`;
};

/**
 * The copies of the window's events held more than once: one row for each event (`service_id`,
 * `event_id`) and time it is held at (`dt`, `event_time`), with the time of its first copy by
 * `received_at` (`first_time`), in time order. A day, or a slice of one, of an export made a
 * part at a time reads its own rows of it (`repeated`): it keeps each event at its first time
 * wherever the other copies are, and groups none of the keys it reads. An SDK's retry or a
 * delivery made twice repeats an event, so these are few.
 */
export const buildRepeatedEventsQuery = (
  input: Omit<ExportQueryInput, "day" | "slice" | "repeated" | "latestAttributions">,
): string => {
  const { dialect } = input;
  const candidates = repeatedKeyHashes(dialect, "src");
  const copies = `SELECT service_id, event_id, dt, event_time, received_at FROM src${
    candidates
      ? `
  WHERE ${candidates}`
      : ""
  }`;
  return `WITH src ${inlined[dialect]} (
  ${windowRows(input)}
),
copies ${materialized[dialect]} (
  ${copies}
),
repeated AS (
  SELECT service_id, event_id, ${firstBy[dialect]("event_time", "received_at")} AS first_time
  FROM copies
  GROUP BY service_id, event_id
  HAVING count(*) > 1
)
SELECT DISTINCT copies.service_id, copies.event_id, copies.dt, copies.event_time, repeated.first_time
FROM copies JOIN repeated ON repeated.service_id = copies.service_id AND repeated.event_id = copies.event_id
ORDER BY copies.event_time`;
};

/**
 * The attributions of the installs among the rows read (a semi-join on them: the join holds
 * them in memory beside the sort, and every install an app ever had would not fit beside a
 * day's sort), `version_no` 1 on the latest of each: the `att` of the export query.
 */
const attributionsOfRows = (input: ExportQueryInput): string => {
  const { dialect, appId, sources } = input;
  return `att_src ${inlined[dialect]} (
  SELECT *
  FROM ${sources.attributions}
  WHERE app_id = ${sqlString(appId)}
    AND service_id IN (SELECT service_id FROM src)
),
${firstOfEach("att", "att_src", "service_id", "attributed_at DESC", "version_no")}`;
};

/**
 * The latest attribution of each install among the rows `input` reads, once: a relation for
 * `latestAttributions`, so that a day's slices do not each read the app's attributions.
 */
export const buildLatestAttributionsQuery = (
  input: Omit<ExportQueryInput, "slice" | "repeated" | "latestAttributions">,
): string => `WITH src ${inlined[input.dialect]} (
  ${windowRows(input)}
),
${attributionsOfRows(input)}
SELECT * FROM att WHERE version_no = 1`;

/**
 * The export's rows, of the whole window, of one `day`, or of a slice of one, joined with the
 * latest attribution of their install, in no order; `event_time` as its text unless not
 * `timeAsText`.
 */
const exportRows = (input: ExportQueryInput, timeAsText: boolean): string => {
  const { dialect } = input;
  const repeated =
    input.day === undefined || input.repeated === undefined
      ? undefined
      : `SELECT service_id, event_id, event_time, first_time
  FROM ${input.repeated} AS copies
  WHERE true${dayAndSlice(input, "copies")}`;
  const att =
    input.latestAttributions === undefined
      ? attributionsOfRows(input)
      : `att AS (SELECT * FROM ${input.latestAttributions})`;
  const lakeOnly = (input.attributionColumns ?? []).map((name) => `,\n  att.${name} AS ${name}`);
  return `WITH src ${inlined[dialect]} (
  ${windowRows(input)}
),
${firstOfEach("ev", "src", "service_id, event_id", "received_at", "copy_no", repeated, repeatedKeyHashes(dialect, "src"))},
${att}
SELECT
  ${selectList(dialect, timeAsText, input.columns)}${lakeOnly.join("")}
FROM ev
LEFT JOIN att ON att.service_id = ev.service_id AND att.version_no = 1
WHERE ev.copy_no = 1
  AND ev.event_time >= ${timeLiteral(dialect, input.since)}`;
};

/** The export's rows in no order, `event_time` as its text: the export's records. */
export const buildExportRowsQuery = (input: ExportQueryInput): string => exportRows(input, true);

/**
 * The export's rows in no order, `event_time` as its timestamp: what reports group, by day,
 * which the timestamp gives without the text of every row's time being written first.
 */
export const buildReportRowsQuery = (input: ExportQueryInput): string => exportRows(input, false);

const EXPORT_ORDER = "ORDER BY ev.event_time, ev.event_id";

/** The export's rows in export order: by `event_time`, then `event_id`. */
export const buildExportQuery = (input: ExportQueryInput): string => {
  if (input.dialect === "athena") return `${exportRows(input, true)}\n${EXPORT_ORDER}`;
  // DuckDB sorts the rows with all their columns: the time's 8 bytes cost less to carry than
  // its text, which is written once the rows are in order (a projection keeps its input's).
  return `SELECT * REPLACE (${isoTime.duckdb("event_time")} AS event_time)
FROM (
${exportRows(input, false)}
${EXPORT_ORDER}
) AS sorted`;
};
