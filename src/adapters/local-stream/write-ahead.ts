/**
 * The write-ahead file's lines and how DuckDB reads them back as lake rows.
 *
 * One line holds one put, so a line torn by a crash loses only a put that was never
 * acknowledged, and the put's records stand or fall together:
 *
 *     {"shared":{"app_id":"com.a","service_id":"s1",…},"rows":[{"event_id":"e1",…},…]}
 *
 * `shared` holds the columns whose value is the same in every record of the put (one install
 * and one arrival time make about half of an event's columns), each of `rows` the others: a
 * record is its row over `shared`. Both are written by `JSON.stringify` with the column names as
 * its replacer, so nothing is copied to build them, and the line is well under half the
 * records' own JSON: less to write, to sync, and for DuckDB to parse on delivery.
 */
import { open } from "node:fs/promises";
import { sqlString } from "../../lake/export-query.ts";
import {
  LAKE_FIRST_DAY,
  LAKE_LATE_DAYS,
  type LakeRecord,
  type LakeTable,
  lakeDay,
} from "../../lake/lake-tables.ts";
import { DUCKDB_TYPES } from "../duckdb/lake-sql.ts";

/** Every key a record of the table has: its columns and the partition key `app_id`. */
export const recordKeys = (table: LakeTable): string[] => [
  ...table.columns.map((column) => column.name),
  "app_id",
];

/** One put's line, without its newline; `records` must not be empty. */
export const writeAheadLine = (records: readonly LakeRecord[], keys: readonly string[]): string => {
  const [first] = records;
  if (!first) throw new RangeError("a write-ahead line holds at least one record");
  const shared: string[] = [];
  const own: string[] = [];
  for (const key of keys) {
    const value = first[key];
    (records.every((record) => record[key] === value) ? shared : own).push(key);
  }
  return `{"shared":${JSON.stringify(first, shared)},"rows":${JSON.stringify(records, own)}}`;
};

/**
 * The one partition (app and `lakeDay`) of a file's records, and whether they are late (of a day
 * before their partition's), or null for more than one. Late rows are written to files of
 * their own: a file of a day's rows then holds that day's times only, and a query of another
 * day passes it by from its statistics.
 */
export type Partition = {
  readonly appId: string;
  readonly dt: string;
  readonly late: boolean;
} | null;

const samePartition = (a: NonNullable<Partition>, b: NonNullable<Partition>): boolean =>
  a.appId === b.appId && a.dt === b.dt && a.late === b.late;

/**
 * The one partition of a put's records; undefined for none. The records must have passed the
 * table's `recordChecker`, which vouches for the date and received columns: ISO 8601 UTC times,
 * date first.
 */
export const partitionOf = (
  records: readonly LakeRecord[],
  table: LakeTable,
): Partition | undefined => {
  let where: Partition | undefined;
  for (const record of records) {
    const dt = lakeDay(table, record);
    const here = {
      appId: record.app_id,
      dt,
      late: dt !== String(record[table.dateColumn]).slice(0, 10),
    };
    if (where === undefined) where = here;
    else if (where && !samePartition(where, here)) return null;
  }
  return where;
};

/** The one partition of two sets of records together: null unless both have the same one. */
export const joinedPartition = (a: Partition | undefined, b: Partition): Partition =>
  a === undefined || (a && b && samePartition(a, b)) ? b : null;

/**
 * Cuts a line torn by a crash or by a failed append off the end of a write-ahead file, and
 * answers the size of its whole lines; undefined when there is no such file. Only the last line
 * can be torn, and it was never acknowledged (the file is synced before the answer).
 */
export const trimTornTail = async (path: string): Promise<number | undefined> => {
  const file = await open(path, "r+").catch((error: unknown) => {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!file) return undefined;
  try {
    const { size } = await file.stat();
    const chunk = Buffer.alloc(64 * 1024);
    // Backwards from the end, a chunk at a time, to the last newline: the first chunk read
    // holds it unless a torn line is longer.
    let whole = 0;
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await file.read(chunk, 0, end - start, start);
      const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (newline >= 0) {
        whole = start + newline + 1;
        break;
      }
      end = start;
    }
    if (whole < size) await file.truncate(whole);
    return whole;
  } finally {
    await file.close();
  }
};

/**
 * `lakeDay` in SQL, over a row's date and received columns (the delivery stream's tests hold the
 * two to the same answers).
 */
export const lakeDaySql = (table: LakeTable): string => {
  const own = `CAST("${table.dateColumn}" AS DATE)`;
  if (table.receivedColumn === table.dateColumn) return `strftime(${own}, '%Y-%m-%d')`;
  const floor = `CAST("${table.receivedColumn}" - INTERVAL 1 DAY AS DATE)`;
  return `strftime(CASE WHEN ${own} >= ${floor} THEN ${own} WHEN ${floor} - ${own} <= ${LAKE_LATE_DAYS} OR last_day(${own}) < DATE '${LAKE_FIRST_DAY}' THEN ${floor} ELSE last_day(${own}) END, '%Y-%m-%d')`;
};

/**
 * The typed rows of a write-ahead file of whole lines (see `trimTornTail`), with their
 * partition keys `app_id` and `dt` (`lakeDay`) and `late`, true for a row of a day before its
 * partition's. DuckDB's JSON reader gives each value its column's type as
 * it parses, which costs less than reading text and casting it, and it reads
 * strictly: a value that does not fit its column fails the read, where a lenient read would
 * store it as null and an event without its time would leave every export. Timestamps arrive
 * as ISO 8601 UTC strings ("…Z") and are stored as UTC TIMESTAMPs.
 */
export const writeAheadRows = (table: LakeTable, path: string): string => {
  const keys = recordKeys(table);
  const types = new Map(table.columns.map((c) => [c.name, DUCKDB_TYPES[c.type]]));
  const typeOf = (key: string) => types.get(key) ?? "VARCHAR"; // app_id
  const struct = `STRUCT(${keys.map((key) => `"${key}" ${typeOf(key)}`).join(", ")})`;
  const overlaid = keys.map((key) => `coalesce(r."${key}", s."${key}") AS "${key}"`);
  return `WITH lines AS (
  SELECT * FROM read_json(${sqlString(path)}, format = 'newline_delimited',
    columns = {'shared': '${struct}', 'rows': '${struct}[]'})
), records AS (
  SELECT ${overlaid.join(", ")} FROM (SELECT "shared" AS s, unnest("rows") AS r FROM lines)
)
SELECT *, dt <> strftime("${table.dateColumn}", '%Y-%m-%d') AS late
FROM (SELECT ${keys.map((key) => `"${key}"`).join(", ")}, ${lakeDaySql(table)} AS dt FROM records)`;
};
