/**
 * The lake's tables, one entry each in LAKE_TABLES, their columns derived from the records of
 * src/record. These are the Parquet contract: the Glue tables (which Firehose uses for Parquet
 * conversion), the delivery streams of both runtimes, the DuckDB views, the purge and the
 * stack's outputs all map over LAKE_TABLES, so a new table is one entry here.
 */
import { APP_ID_PATTERN } from "../apps/registration.ts";
import { ATTRIBUTION_LIMITS } from "../domain/attribution.ts";
import { DAY_MS } from "../domain/time.ts";
import { INGEST_LIMITS } from "../ingest/limits.ts";
import type { LakeRecord } from "../ports/lake.ts";
import { EXPORT_COLUMNS, type ExportType } from "../record/columns.ts";
import { TOUCH_COLUMNS } from "../record/touch-columns.ts";

export type LakeType = "string" | "int" | "double" | "timestamp";

export interface LakeColumn {
  readonly name: string;
  readonly type: LakeType;
}

export interface LakeTable<Name extends string = string> {
  /** Names the table in Glue, its prefix in the lake, its stream and its outputs. */
  readonly name: Name;
  /** Data columns, stored in the Parquet files. */
  readonly columns: readonly LakeColumn[];
  /** The column of the row's own time: what queries bound, and, mostly, its `dt` partition. */
  readonly dateColumn: string;
  /**
   * The column of the time the service took the row (the date column itself where the service
   * sets it): with the date column, it names the row's `dt` partition (`lakeDay`).
   */
  readonly receivedColumn: string;
  /**
   * The column naming the install a row belongs to, which a deletion request's purge removes
   * rows by; null for a table whose rows name no install (touches).
   */
  readonly installColumn: "service_id" | null;
}

/** A table entry with its name kept as a literal, so LakeTableName is the union of them. */
const lakeTable = <const Name extends string>(table: LakeTable<Name>): LakeTable<Name> => table;

/**
 * Hive-style partition keys, in path order: `app_id=<app>/dt=<yyyy-mm-dd>/`. They are not data
 * columns (Glue forbids a column named like a partition key); readers take them from the path.
 */
export const PARTITION_KEYS: readonly LakeColumn[] = [
  { name: "app_id", type: "string" },
  { name: "dt", type: "string" },
];

const lakeTypeOf: Record<ExportType, LakeType> = {
  string: "string",
  integer: "int",
  number: "double",
};

// event_time is a string in the export but a timestamp in the lake, so it sorts and prunes.
const TIMESTAMP_COLUMNS = new Set(["event_time"]);

const columnsFrom = (source: "event" | "attribution"): LakeColumn[] =>
  EXPORT_COLUMNS.filter((c) => c.source === source && c.name !== "app_id").map((c) => ({
    name: c.name,
    type: TIMESTAMP_COLUMNS.has(c.name) ? "timestamp" : lakeTypeOf[c.type],
  }));

export const EVENTS_TABLE = lakeTable({
  name: "events",
  // Lake-only columns, not exported: the arrival time (which copy of a duplicate is kept),
  // the wire event type, and the stored parameters as JSON text (PII hashed, sealed values
  // still sealed).
  columns: [
    ...columnsFrom("event"),
    { name: "received_at", type: "timestamp" },
    { name: "event_type", type: "string" },
    { name: "parameters", type: "string" },
  ],
  dateColumn: "event_time",
  receivedColumn: "received_at",
  installColumn: "service_id",
});

/** The attributions table's columns the export does not have. */
const ATTRIBUTION_LAKE_COLUMNS = [
  // For an app owner asking why an install went where it went: the status the SDK reads, the
  // method that won, the winning touch, and how many other touches the method found eligible.
  { name: "match_status", type: "string" },
  { name: "match_method", type: "string" },
  { name: "click_id", type: "string" },
  { name: "other_candidates", type: "int" },
  // For the cohorts report's cost: the install's cost when the touch that won it is paid per
  // install (CPI), as its link or network said, and in USD at the ECB rate of the install's day
  // (src/costs/touch-cost.ts); null otherwise.
  { name: "cost_model", type: "string" },
  { name: "cost_value", type: "double" },
  { name: "cost_currency", type: "string" },
  { name: "cost_usd", type: "double" },
  // 1 for the same device installing again, on any platform (the export's `install_type` says
  // so on iOS only): the reports count it apart from the installs.
  { name: "reinstall", type: "int" },
] as const satisfies readonly LakeColumn[];

/** A column of the attributions table the export does not have. */
export type LakeOnlyAttributionColumn = (typeof ATTRIBUTION_LAKE_COLUMNS)[number]["name"];

export const ATTRIBUTIONS_TABLE = lakeTable({
  name: "attributions",
  columns: [
    { name: "service_id", type: "string" },
    { name: "attributed_at", type: "timestamp" },
    ...columnsFrom("attribution"),
    ...ATTRIBUTION_LAKE_COLUMNS,
  ],
  dateColumn: "attributed_at",
  receivedColumn: "attributed_at",
  installColumn: "service_id",
});

export const TOUCHES_TABLE = lakeTable({
  name: "touches",
  columns: TOUCH_COLUMNS.map(({ name, type }) => ({ name, type })),
  dateColumn: "touch_time",
  receivedColumn: "received_at",
  // A click names no install: a deletion request cannot reach it (it expires with the lake's
  // retention of the table instead).
  installColumn: null,
});

/**
 * Apple's postbacks of an app (SKAdNetwork, AdAttributionKit; src/skadnetwork), one row each as
 * received, with its verification, for the owner's own queries beside the rest; those of no app
 * stay in their table only.
 */
export const APPLE_POSTBACKS_TABLE = lakeTable({
  name: "apple_postbacks",
  columns: [
    { name: "received_at", type: "timestamp" },
    { name: "kind", type: "string" },
    { name: "version", type: "string" },
    { name: "ad_network_id", type: "string" },
    { name: "source_identifier", type: "string" },
    { name: "app_store_id", type: "string" },
    { name: "transaction_id", type: "string" },
    { name: "redownload", type: "int" },
    { name: "source_app_id", type: "string" },
    { name: "source_domain", type: "string" },
    { name: "fidelity_type", type: "int" },
    { name: "did_win", type: "int" },
    { name: "postback_sequence_index", type: "int" },
    { name: "conversion_value", type: "int" },
    { name: "coarse_conversion_value", type: "string" },
    { name: "country_code", type: "string" },
    { name: "conversion_type", type: "string" },
    { name: "verification", type: "string" },
    { name: "environment", type: "string" },
  ],
  dateColumn: "received_at",
  receivedColumn: "received_at",
  // A postback names no install: Apple sends nothing that could.
  installColumn: null,
});

/**
 * Sessions the SDKs report (src/ingest/sessions.ts): when an install was active, for retention
 * and active users. Apart from `events`, whose rows are the export's.
 */
export const SESSIONS_TABLE = lakeTable({
  name: "sessions",
  columns: [
    { name: "service_id", type: "string" },
    { name: "session_id", type: "string" },
    { name: "started_at", type: "timestamp" },
    { name: "received_at", type: "timestamp" },
    { name: "os", type: "string" },
    { name: "country", type: "string" },
  ],
  dateColumn: "started_at",
  receivedColumn: "received_at",
  installColumn: "service_id",
});

/**
 * What campaigns cost (`POST /v1/costs`), each row as it was sent: a row sent again for the same
 * day and keys is a later row of the same key, and the latest by `received_at` is the cost as it
 * stands (the costs table keeps only that one). For the owner's own queries of cost beside the
 * events; kept by the day it was received.
 */
export const COSTS_TABLE = lakeTable({
  name: "costs",
  columns: [
    { name: "day", type: "string" },
    { name: "media_source", type: "string" },
    { name: "campaign_id", type: "string" },
    { name: "campaign_name", type: "string" },
    { name: "adset_id", type: "string" },
    { name: "adset_name", type: "string" },
    { name: "ad_id", type: "string" },
    { name: "ad_name", type: "string" },
    { name: "country", type: "string" },
    { name: "amount", type: "double" },
    { name: "currency", type: "string" },
    { name: "amount_usd", type: "double" },
    { name: "impressions", type: "int" },
    { name: "clicks", type: "int" },
    { name: "received_at", type: "timestamp" },
  ],
  dateColumn: "received_at",
  receivedColumn: "received_at",
  // A cost names no install.
  installColumn: null,
});

export const LAKE_TABLES = [
  EVENTS_TABLE,
  ATTRIBUTIONS_TABLE,
  TOUCHES_TABLE,
  APPLE_POSTBACKS_TABLE,
  SESSIONS_TABLE,
  COSTS_TABLE,
] as const;

export type LakeTableName = (typeof LAKE_TABLES)[number]["name"];

/**
 * Where Firehose puts the records of a table it could not partition, convert or deliver (as
 * JSON documents holding each record's bytes), which `lake replay-errors` puts back on the
 * table's stream.
 */
export const errorPrefix = (table: LakeTableName): string => `firehose-errors/${table}/`;

/** The tables whose rows name an install: what a deletion request's purge rewrites. */
export const INSTALL_TABLES = LAKE_TABLES.filter((table) => table.installColumn !== null);

/**
 * One value per lake table, keyed by its name: how every runtime part that has one of a thing
 * per table (a Glue table, a stream, an output) builds them.
 */
export const perLakeTable = <T>(make: (table: LakeTable<LakeTableName>) => T) => {
  const made = {} as Record<LakeTableName, T>;
  for (const table of LAKE_TABLES) made[table.name] = make(table);
  return made;
};

/** The same, for values made asynchronously, one after another. */
export const perLakeTableAsync = async <T>(
  make: (table: LakeTable<LakeTableName>) => Promise<T>,
) => {
  const made = {} as Record<LakeTableName, T>;
  for (const table of LAKE_TABLES) made[table.name] = await make(table);
  return made;
};

export type { LakeRecord };

/**
 * How many days after its own day a row may be taken (an event up to 30 days old, a click as
 * old as the longest click window) and one for the device's clock: a row of day E lies in a
 * partition from E to E + LAKE_LATE_DAYS, so a query of days `from` to `to` reads the
 * partitions `from` to `to` + LAKE_LATE_DAYS.
 */
export const LAKE_LATE_DAYS =
  Math.max(INGEST_LIMITS.maxEventAgeDays, ATTRIBUTION_LIMITS.clickWindowDays.max) + 1;

const dayBefore = (iso: string): string =>
  new Date(Date.parse(iso) - DAY_MS).toISOString().slice(0, 10);

/**
 * The lake's first day: Athena projects the `dt` partitions from it (lib/lake-catalog.ts), so no
 * row may lie in a partition before it.
 */
export const LAKE_FIRST_DAY = "2020-01-01";

/** The last day of the month of `day` (`YYYY-MM-DD`). */
const lastDayOfMonth = (day: string): string => {
  const at = new Date(`${day}T00:00:00.000Z`);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0))
    .toISOString()
    .slice(0, 10);
};

/**
 * The `dt` partition of a row: the UTC day of its own time, or the day before the one the
 * service took it if that is later. A row taken today therefore lies in yesterday's, today's or
 * (up to a day ahead of the clock) tomorrow's partition, whatever day it says it is of, so each
 * app has at most four partitions open on a stream across a midnight (a delivery stream's open
 * partitions are bounded by the apps sending, not by the spread of their rows' days); and a row
 * is never in a partition before its own day, so a window from a day reads the partitions from
 * that day (late rows of earlier days are filtered by their time). Most rows, taken on their
 * day or the next, lie in their own day's partition.
 *
 * Every row lies at most LAKE_LATE_DAYS after its own day, so that a query reads no further.
 * Only an install's row can be taken later (its first open has no bound: a phone offline for
 * weeks after it, a server reporting an old install): such a row lies in the partition of the
 * last day of its own month, the nearest day of a grid that a month's late installs share, so
 * that a server sending a year of them opens twelve partitions, not 365. One older than the
 * lake's first day (LAKE_FIRST_DAY) keeps the day before it was taken: no report reads its day.
 */
export const lakeDay = (table: LakeTable, record: LakeRecord): string => {
  const own = String(record[table.dateColumn]).slice(0, 10);
  if (table.receivedColumn === table.dateColumn) return own;
  const floor = dayBefore(String(record[table.receivedColumn]));
  if (own >= floor) return own;
  if ((Date.parse(floor) - Date.parse(own)) / DAY_MS <= LAKE_LATE_DAYS) return floor;
  const monthEnd = lastDayOfMonth(own);
  return monthEnd < LAKE_FIRST_DAY ? floor : monthEnd;
};

/**
 * Partitions one app can hold open on a stream at once (`lakeDay`), but for installs taken more
 * than LAKE_LATE_DAYS after their first open, which open one more for each month of those
 * first opens.
 */
export const OPEN_PARTITIONS_PER_APP = 4;

/**
 * The key each record carries on Firehose naming its `dt` (`lakeDay`), which the stream's
 * partitioning query reads; not a column, so Parquet conversion leaves it out.
 */
export const PARTITION_DAY_KEY = "partition_dt";

/**
 * Every column of a table, null: records start from it, so a column added to the table is
 * present (null) in every writer until it fills it.
 */
export const nullColumns = (table: LakeTable): Record<string, null> =>
  Object.fromEntries(table.columns.map((column) => [column.name, null]));

/**
 * What a value of each type looks like on the stream; null (or no key) fits every type. Text
 * is any JSON value but a string holding half a surrogate pair: JSON carries it, but no reader
 * of the stream's files decodes it, and the file would never be delivered, nor any after it.
 */
const FITS: Record<LakeType, (value: string | number) => boolean> = {
  string: (value) => typeof value !== "string" || value.isWellFormed(),
  // INTEGER in DuckDB, int in Glue: 32 bits.
  int: (value) => typeof value === "number" && (value | 0) === value,
  double: (value) => typeof value === "number" && Number.isFinite(value),
  // The shape of `Date.prototype.toISOString()`, which writes every time the lake holds.
  timestamp: (value) =>
    typeof value === "string" &&
    value.length === 24 &&
    value.charCodeAt(10) === 84 && // T
    value.charCodeAt(23) === 90, // Z
};

/**
 * A check of a table's records, made once per stream: it throws a TypeError unless `app_id` is
 * an app id (it names a folder), every column of a record holds a value of its type (text
 * whole Unicode text) and the date and received columns (which name the `dt` partition) are set. A stream (the embedded one
 * and Firehose's) checks its records before it takes any: the Parquet writers read each value
 * as its column's type, and one that does not fit would stop the delivery of its file (and,
 * embedded, of every file after it) once it had been acknowledged.
 */
export const recordChecker = (table: LakeTable): ((record: LakeRecord) => void) => {
  const checked = table.columns.map((column) => ({ ...column, fits: FITS[column.type] }));
  return (record) => {
    if (!APP_ID_PATTERN.test(record.app_id)) throw new TypeError("app_id is not a valid app id");
    for (const column of checked) {
      const value = record[column.name];
      if (value !== null && value !== undefined && !column.fits(value)) {
        throw new TypeError(
          `${table.name}.${column.name}: expected ${column.type}, got ${JSON.stringify(value)}`,
        );
      }
    }
    for (const column of new Set([table.dateColumn, table.receivedColumn])) {
      if (typeof record[column] !== "string") {
        throw new TypeError(`${table.name}.${column} is required: it names the partition`);
      }
    }
  };
};
