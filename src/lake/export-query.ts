/**
 * The export query, for both engines: events of one app since a time, each event once, joined
 * with the latest attribution of its install, in export order. DuckDB and Athena (Trino) differ
 * only in how a timestamp is written out and read in; everything else is shared SQL.
 */
import { EXPORT_COLUMNS } from "../record/columns.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE } from "./tables.ts";

export type Dialect = "duckdb" | "athena";

/** The lake tables the export reads, and nothing else (its grants name these only). */
export const EXPORT_TABLES = [EVENTS_TABLE, ATTRIBUTIONS_TABLE] as const;

export interface ExportQueryInput {
  readonly dialect: Dialect;
  readonly appId: string;
  readonly since: Date;
  /** SQL relations (table names or table functions) for the two lake tables. */
  readonly sources: { readonly events: string; readonly attributions: string };
  /** Adds `pos`, the 0-based row number in export order, as the first column. */
  readonly withPosition?: boolean;
  /** Installs whose data was deleted: their events are left out even before the purge. */
  readonly exclude?: Exclusion;
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

const finiteTest: Record<Dialect, (expr: string) => string> = {
  duckdb: (expr) => `isfinite(${expr})`,
  athena: (expr) => `is_finite(${expr})`,
};

const selectList = (dialect: Dialect): string =>
  EXPORT_COLUMNS.map((c) => {
    if (c.name === "event_time") return `${isoTime[dialect]("ev.event_time")} AS event_time`;
    const value = `${c.source === "event" ? "ev" : "att"}.${c.name}`;
    // JSON has no infinities or NaN: a number that is not finite is exported as null, alike
    // in every format.
    if (c.type === "number") {
      return `CASE WHEN ${finiteTest[dialect](value)} THEN ${value} END AS ${c.name}`;
    }
    return `${value} AS ${c.name}`;
  }).join(",\n  ");

const exclusionFilter = (exclude: Exclusion | undefined): string => {
  if (!exclude) return "";
  if ("serviceIdsFrom" in exclude) {
    const { serviceIdsFrom, count } = exclude;
    // A failed cast is the portable way to stop a query with a message.
    const readWhole = `CAST(CASE WHEN (SELECT count(*) FROM (${serviceIdsFrom}) AS excluded) = ${count} THEN '1' ELSE 'the list of installs to leave out was not read whole' END AS integer)`;
    return `\n    AND service_id NOT IN (${serviceIdsFrom})\n    AND 1 = ${readWhole}`;
  }
  const { serviceIds } = exclude;
  return serviceIds.length > 0
    ? `\n    AND service_id NOT IN (${serviceIds.map(sqlString).join(", ")})`
    : "";
};

/**
 * `name`: the rows of `source`, with `rank` 1 on the first of each `key` by `order`. Only
 * the keys held more than once (an SDK's retry, a delivery made twice, an install attributed
 * again) go through the window that ranks them: they are few, and a window over every key of
 * a large window holds them all in memory at once, where the grouping and the join spill.
 */
const firstOfEach = (name: string, source: string, key: string, order: string, rank: string) => {
  const columns = key.split(", ");
  const on = columns.map((column) => `repeated.${column} = ${source}.${column}`).join(" AND ");
  return `${name}_repeated AS (
  SELECT ${key} FROM ${source} GROUP BY ${key} HAVING count(*) > 1
),
${name} AS (
  SELECT ${source}.*, 1 AS ${rank}
  FROM ${source} LEFT JOIN ${name}_repeated AS repeated ON ${on}
  WHERE repeated.${columns[0]} IS NULL
  UNION ALL
  SELECT ${source}.*, row_number() OVER (PARTITION BY ${columns.map((column) => `${source}.${column}`).join(", ")} ORDER BY ${source}.${order}) AS ${rank}
  FROM ${source} JOIN ${name}_repeated AS repeated ON ${on}
)`;
};

export const buildExportQuery = (input: ExportQueryInput): string => {
  const { dialect, appId, since, sources } = input;
  const sinceIso = since.toISOString();
  // Timestamps are stored in UTC without zone; DuckDB reads the literal without its "Z".
  const sinceLiteral = timestampLiteral[dialect](
    dialect === "duckdb" ? sinceIso.replace("Z", "") : sinceIso,
  );
  const order = "ev.event_time, ev.event_id";
  const position = input.withPosition
    ? `row_number() OVER (ORDER BY ${order}) - 1 AS pos,\n  `
    : "";
  const tombstones = exclusionFilter(input.exclude);
  return `WITH src AS (
  SELECT *
  FROM ${sources.events}
  WHERE app_id = ${sqlString(appId)}
    AND dt >= ${sqlString(sinceIso.slice(0, 10))}
    AND event_time >= ${sinceLiteral}${tombstones}
),
${firstOfEach("ev", "src", "service_id, event_id", "received_at", "copy_no")},
att_src AS (
  SELECT *
  FROM ${sources.attributions}
  WHERE app_id = ${sqlString(appId)}
),
${firstOfEach("att", "att_src", "service_id", "attributed_at DESC", "version_no")}
SELECT
  ${position}${selectList(dialect)}
FROM ev
LEFT JOIN att ON att.service_id = ev.service_id AND att.version_no = 1
WHERE ev.copy_no = 1
ORDER BY ${order}`;
};
