/**
 * A day of a large export cut into slices of `event_time`, each sorted alone: DuckDB sorts a
 * slice of a few hundred thousand rows within its memory, where a whole day's sort spills, and
 * the first pages leave once the first slice is written. Slices are planned from the row groups'
 * statistics in the day's files (their footers only), so that each slice reads its own row
 * groups; a day whose rows are not in time order would have every slice read it whole, and is
 * one slice.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString, type TimeSlice } from "../../lake/export-query.ts";

/** A row group's rows and the range of its `event_time`, in epoch milliseconds. */
export interface RowGroupTimes {
  readonly rows: number;
  readonly min: number;
  readonly max: number;
}

/** How much more a day's slices may read together than the day itself. */
const MOST_READ = 2;

/** Files above which a day's footers are not read to plan it: one slice, as delivered. */
const MOST_FILES = 64;

/**
 * Slices of `rows` rows or more, in time order, from a day's row groups: a slice ends where
 * the next row group (by its earliest time) starts. The first slice may hold fewer, down to
 * `firstRows`, so that the pages waiting for it start sooner. Every row is in one slice whatever
 * the bounds (they are filters; the statistics only say what each reads). A day whose groups
 * overlap so much that its slices would read more than `mostRead` times its rows is one slice.
 */
export const planSlices = (
  groups: readonly RowGroupTimes[],
  rows: number,
  { firstRows = rows, mostRead = MOST_READ }: { firstRows?: number; mostRead?: number } = {},
): TimeSlice[] => {
  const whole = [{}];
  const total = groups.reduce((sum, group) => sum + group.rows, 0);
  if (total < 2 * rows) return whole;
  const sorted = [...groups].sort((a, b) => a.min - b.min || a.max - b.max);
  const bounds: number[] = [];
  let held = 0;
  // Where the current slice's rows start: a group that starts there too joins it.
  let start = sorted[0]?.min ?? 0;
  for (const group of sorted) {
    if (held >= (bounds.length === 0 ? firstRows : rows) && group.min > start) {
      bounds.push(group.min);
      start = group.min;
      held = 0;
    }
    held += group.rows;
  }
  // The last slice too small: joined to the one before.
  if (bounds.length > 0 && held < rows / 2) bounds.pop();
  const slices: TimeSlice[] = [...bounds, undefined].map((to, index) => {
    const from = bounds[index - 1];
    return {
      ...(from === undefined ? {} : { from: new Date(from) }),
      ...(to === undefined ? {} : { to: new Date(to) }),
    };
  });
  const read = slices.reduce(
    (sum, slice) =>
      sum +
      groups
        .filter(
          (group) =>
            (slice.from === undefined || group.max >= slice.from.getTime()) &&
            (slice.to === undefined || group.min < slice.to.getTime()),
        )
        .reduce((rowsRead, group) => rowsRead + group.rows, 0),
    0,
  );
  return slices.length > 1 && read <= mostRead * total ? slices : whole;
};

/**
 * The `event_time` range of each row group of a day's files, from their footers; none when
 * there are too many files to read them all, or a group has no statistics.
 */
export const rowGroupTimes = async (
  connection: DuckDBConnection,
  files: readonly string[],
): Promise<RowGroupTimes[]> => {
  if (files.length === 0 || files.length > MOST_FILES) return [];
  const reader = await connection.runAndReadAll(
    `SELECT row_group_num_rows AS rows,
            epoch_ms(TRY_CAST(stats_min_value AS TIMESTAMP)) AS min,
            epoch_ms(TRY_CAST(stats_max_value AS TIMESTAMP)) AS max
     FROM parquet_metadata([${files.map(sqlString).join(", ")}])
     WHERE path_in_schema = 'event_time'`,
  );
  const groups: RowGroupTimes[] = [];
  for (const [rows, min, max] of reader.getRows()) {
    if (min === null || max === null) return [];
    groups.push({ rows: Number(rows), min: Number(min), max: Number(max) });
  }
  return groups;
};

/** A file of a window, with the `dt` partition it lies in and the range of its `event_time`. */
export interface FileTimes {
  readonly file: string;
  readonly dt: string;
  /** Epoch milliseconds; undefined where its footer has no statistics. */
  readonly min?: number;
  readonly max?: number;
  /** The days of `event_time` it holds rows of, where read from its rows (withDaysHeld). */
  readonly days?: readonly string[];
}

const DAY = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const dayMs = (day: string): number => Date.parse(`${day}T00:00:00.000Z`);

/**
 * The first day of `event_time` whose rows a partition holds as rows taken late (`lakeDay`):
 * `lateDays` before its own. Only an install's row taken later, whose first open lies before
 * the lake's first day, lies before it (in the partition of the day before it was taken).
 */
const lateFrom = (dt: string, lateDays: number): number => dayMs(dt) - lateDays * DAY;

/**
 * The window's days of `event_time` from `since`, each with the files that may hold rows of it,
 * in order. A file holds rows of the days it is known to (`days`), or else of the days its
 * times span, never after its partition's (a row lies in its own day's partition or a later
 * one: `lakeDay`); a file without statistics is read for every day its partition may hold,
 * `lateDays` back.
 */
export const eventDays = (
  files: readonly FileTimes[],
  since: string,
  lateDays: number,
): { day: string; files: string[] }[] => {
  const byDay = new Map<string, string[]>();
  const add = (day: string, file: string) => {
    const held = byDay.get(day);
    if (held) held.push(file);
    else byDay.set(day, [file]);
  };
  for (const { file, dt, min, max, days } of files) {
    if (days !== undefined) {
      for (const day of days) if (day >= since && day <= dt) add(day, file);
      continue;
    }
    const first = min === undefined ? lateFrom(dt, lateDays) : dayMs(dayOf(min));
    const last = Math.min(dayMs(dt), max === undefined ? dayMs(dt) : dayMs(dayOf(max)));
    for (let at = Math.max(first, dayMs(since)); at <= last; at += DAY) add(dayOf(at), file);
  }
  return [...byDay.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, dayFiles]) => ({ day, files: dayFiles }));
};

/**
 * `files` with the days each holds rows of (`days`) where its times reach back before its
 * partition's late days (from `since`), read from their `event_time` columns in one query.
 * Each of a window's days is a query of its own over the files that may hold it: the span of
 * such a file's times would make one of every calendar day back to its oldest first open,
 * each reading the file again, where the days it holds are few.
 */
export const withDaysHeld = async (
  connection: DuckDBConnection,
  files: readonly FileTimes[],
  since: string,
  lateDays: number,
): Promise<FileTimes[]> => {
  const reachesBack = (file: FileTimes) =>
    file.min !== undefined &&
    file.min < lateFrom(file.dt, lateDays) &&
    (file.max === undefined || file.max >= dayMs(since));
  const back = files.filter(reachesBack);
  if (back.length === 0) return [...files];
  const reader = await connection.runAndReadAll(
    `SELECT DISTINCT filename, strftime(event_time, '%Y-%m-%d') AS day
     FROM read_parquet([${back.map((file) => sqlString(file.file)).join(", ")}],
       filename = true, union_by_name = true, hive_partitioning = false)
     WHERE event_time >= TIMESTAMP ${sqlString(since)}`,
  );
  const days = new Map<string, string[]>(back.map((file) => [file.file, []]));
  for (const [file, day] of reader.getRows()) days.get(String(file))?.push(String(day));
  return files.map((file) => {
    const held = days.get(file.file);
    return held ? { ...file, days: held.sort() } : file;
  });
};

/** The range of `event_time` of each of `files`, from their footers (undefined: no statistics). */
export const fileTimes = async (
  connection: DuckDBConnection,
  files: readonly string[],
): Promise<Map<string, { min?: number; max?: number }>> => {
  const times = new Map<string, { min?: number; max?: number }>();
  if (files.length === 0) return times;
  const reader = await connection.runAndReadAll(
    `SELECT file_name,
            epoch_ms(min(TRY_CAST(stats_min_value AS TIMESTAMP))) AS min,
            epoch_ms(max(TRY_CAST(stats_max_value AS TIMESTAMP))) AS max,
            count(*) = count(stats_min_value) AND count(*) = count(stats_max_value) AS whole
     FROM parquet_metadata([${files.map(sqlString).join(", ")}])
     WHERE path_in_schema = 'event_time'
     GROUP BY file_name`,
  );
  for (const [file, min, max, whole] of reader.getRows()) {
    if (whole !== true || min === null || max === null) continue;
    times.set(String(file), { min: Number(min), max: Number(max) });
  }
  return times;
};

/** The row groups of `groups` that may hold rows of `day`. */
export const groupsOfDay = (groups: readonly RowGroupTimes[], day: string): RowGroupTimes[] => {
  const start = dayMs(day);
  return groups.filter((group) => group.max >= start && group.min < start + DAY);
};
