/**
 * The embedded lake query engine: DuckDB over the lake folder's Parquet files. A snapshot is the
 * sorted, de-duplicated export with its typed columns, written once as Parquet parts in window
 * order (snapshot-parts.ts), so each page is a cheap range read of a part or two. A large
 * window's is made a slice of a day at a time (day-slices.ts): its first page is answered once
 * its first slice is written, and the others are written meanwhile (snapshot-making.ts). Pages
 * in csv, tsv, ndjson and parquet are written by DuckDB itself into a file that is streamed
 * out and removed.
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat, statfs, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBDataChunk, DuckDBInstance } from "@duckdb/node-api";
import pLimit from "p-limit";
import { UnavailableError, ValidationError } from "../../domain/errors.ts";
import {
  buildExportQuery,
  buildLatestAttributionsQuery,
  buildRepeatedEventsQuery,
  readFrom,
  sqlString,
  type TimeSlice,
} from "../../lake/export-query.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, LAKE_LATE_DAYS } from "../../lake/lake-tables.ts";
import type { LakeQueryEngine, SnapshotLocation } from "../../ports/lake.ts";
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import {
  eventDays,
  fileTimes,
  groupsOfDay,
  planSlices,
  rowGroupTimes,
  withDaysHeld,
} from "./day-slices.ts";
import { appDir, appParquetFiles, filesRelation, parquetFilesUnder } from "./lake-sql.ts";
import { PageBody } from "./page-body.ts";
import { PAGE_ENCODINGS } from "./page-encodings.ts";
import type { ReadWriteLock } from "./read-write-lock.ts";
import { SnapshotMaking } from "./snapshot-making.ts";
import { COMPLETE, type Part, partName, readSnapshot, SNAPSHOT_SUFFIX } from "./snapshot-parts.ts";

export interface DuckDbQueryEngine extends LakeQueryEngine {
  encodePage: NonNullable<LakeQueryEngine["encodePage"]>;
  /** Deletes snapshot and page files last written before the given time. */
  prune(olderThan: Date): Promise<number>;
  /** Stops the snapshots being made (their pages get an error) before DuckDB is closed. */
  stop(): Promise<void>;
}

/**
 * Rows leave DuckDB for JavaScript as one JSON text each, made for the page's rows as it is
 * read: reading 25 typed values per row into JS costs several times more than V8's JSON.parse
 * of DuckDB's to_json. The JSON has the record's keys in column order, typed numbers and
 * explicit nulls, i.e. it is an ExportRecord.
 */
const RECORD_JSON = `to_json(struct_pack(${COLUMN_NAMES.map((name) => `${name} := ${name}`).join(", ")}))`;

const parseRecord = (json: string): ExportRecord => JSON.parse(json);

/**
 * Rows per row group of a snapshot's parts. DuckDB reads a page's row groups whole and pays a
 * cost per row group and column, so a 10,000-row page reads fastest from a few groups of
 * two pages each, not from groups of its own size (which DuckDB rounds up to 10,240, so that
 * nearly every page would span two). Larger groups make the day's writer hold more beside its
 * sort than the snapshot's memory allows, and the sort then spills.
 */
const SNAPSHOT_ROW_GROUP = 20_480;
/**
 * How a snapshot's part is written. Its pages read it on this machine, each of its row groups
 * once or twice: uncompressed, they spend nothing on decompression, and the version 2 encodings
 * (deltas of lengths and values) keep a part of random ids about the size snappy gave.
 */
const SNAPSHOT_PART_OPTIONS = `FORMAT parquet, PARQUET_VERSION V2, COMPRESSION uncompressed, ROW_GROUP_SIZE ${SNAPSHOT_ROW_GROUP}`;

/** The temporary table of the window's events held more than once, per snapshot connection. */
const REPEATED_TABLE = "repeated_events";
/** The temporary table of the latest attributions of a day's installs, for its slices. */
const DAY_ATTRIBUTIONS_TABLE = "day_attributions";

/**
 * Rows of a slice of a day (day-slices.ts), at least: DuckDB sorts this many within the
 * snapshot's memory, where a whole day of a large app spills; smaller slices add each one's
 * fixed cost (its query, its part) more often, and save no more.
 */
const SLICE_ROWS = 200_000;

/**
 * How often, at most, a snapshot being made counts the other snapshots' files against their
 * budget: a count lists every part of every snapshot, and a large window has hundreds.
 */
const DISK_CHECK_MS = 1_000;

/**
 * Page queries DuckDB runs at once: a parquet page's writer alone can take most of the page
 * instance's memory, so more clients than this wait their turn rather than run it out. A page
 * takes a few tens of milliseconds, and its bytes are sent while the next one is written.
 */
const PAGES_AT_ONCE = 1;

/**
 * A query of the rows of positions [offset, offset + limit) of `parts`, in position order, with
 * `select` as its columns; undefined past the last part. A page within one part is read in
 * file order, which DuckDB keeps; one across several parts is ordered by part and row number.
 * `select` is applied once, over the parts' rows together: DuckDB binds and plans a select
 * list for each place it is written, and a long one (tsv's lines) cost more to plan for each
 * of a page's parts than to run.
 */
const pageQuery = (
  parts: readonly Part[],
  offset: number,
  limit: number,
  select: string,
): string | undefined => {
  const end = offset + limit;
  const slices = parts
    .filter((part) => part.first < end && part.end > offset)
    .map((part, index) => {
      const from = Math.max(offset, part.first) - part.first;
      const to = Math.min(end, part.end) - part.first;
      return `SELECT ${index} AS part, file_row_number, * EXCLUDE (file_row_number)
        FROM read_parquet(${sqlString(part.path)}, file_row_number = true)
        WHERE file_row_number >= ${from} AND file_row_number < ${to}`;
    });
  const [only] = slices;
  if (only === undefined) return undefined;
  return slices.length === 1
    ? `SELECT ${select} FROM (${only})`
    : `SELECT ${select} FROM (${slices.join("\nUNION ALL\n")}) ORDER BY part, file_row_number`;
};

export interface DiskBudget {
  /** The snapshots' files together, the one being made included. */
  readonly snapshotBytes: number;
  /** Free space on the snapshots' disk that a snapshot being made must leave. */
  readonly reserveBytes: number;
  /** How long after it was made a snapshot is removed (the runtime's pruning). */
  readonly pruneAfterMs: number;
  /** How often the runtime prunes, and so the longest a freed snapshot waits to be removed. */
  readonly pruneEveryMs: number;
}

/** A full disk's Retry-After where no pruning is known: the disk may be freed by anything. */
const RETRY_SECONDS_WITHOUT_BUDGET = 60;

/** DuckDB's errors when a write finds the disk, or its spill budget, full. */
const DISK_FULL = /No space left on device|max_temp_directory_size|Could not write all bytes/i;

const fullDisk = (what: string, retryAfterSeconds: number) =>
  new UnavailableError(
    `There is no disk space for ${what} now; retry after the time Retry-After gives, when expired snapshots have been removed.`,
    retryAfterSeconds,
  );

export const createDuckDbQueryEngine = (options: {
  duckdb: DuckDBInstance;
  /** Makes the snapshots; `duckdb` by default. */
  snapshotDuckdb?: DuckDBInstance;
  lakeDir: string;
  snapshotDir: string;
  /** Where DuckDB writes pages; apart from the snapshots, which a purge reads. */
  pageDir: string;
  /**
   * Shared with the purge: a snapshot is made from the lake files under its read side, a purge
   * puts a rewritten file in place under its write side. DuckDB opens a file more than once in
   * a query, and a file replaced in between would be read as half of each.
   */
  lakeFiles: ReadWriteLock;
  /** What the snapshots may take; without it, only the disk's own size bounds them. */
  diskBudget?: DiskBudget;
  /**
   * A window whose lake files take less than this is made whole, as one part sorted at once,
   * before its first page is answered, which then gives the window's size; a larger one is
   * made a slice of a day at a time, and answers once its first slice is written. Without it,
   * every window is made whole.
   */
  wholeBelowBytes?: number;
  /** Rows of a slice of a large window's day; SLICE_ROWS by default. */
  sliceRows?: number;
}): DuckDbQueryEngine => {
  const { duckdb, lakeDir, snapshotDir, pageDir, lakeFiles } = options;
  const wholeBelowBytes = options.wholeBelowBytes ?? Number.POSITIVE_INFINITY;
  const sliceRows = options.sliceRows ?? SLICE_ROWS;
  // Snapshots being made by this process, by location: finished ones leave (their `complete`
  // file says it), failed ones stay until pruned, so their pages get the failure.
  const making = new Map<string, SnapshotMaking>();
  const stoppers = new Set<() => Promise<void>>();
  // Pages read as rows (readPage) stream a chunk at a time and are not held to it: a slow
  // client would keep a turn for as long as it reads.
  const pages = pLimit(PAGES_AT_ONCE);
  // A write that found the disk full: space comes back as the runtime prunes.
  const retryAfterFullDisk = options.diskBudget
    ? Math.ceil(options.diskBudget.pruneEveryMs / 1000)
    : RETRY_SECONDS_WITHOUT_BUDGET;

  /** What the snapshots' files take together, and when the oldest was last written. */
  const snapshotsOnDisk = async () => {
    let used = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (const name of await readdir(snapshotDir, { recursive: true }).catch(() => [])) {
      const info = await stat(join(snapshotDir, String(name))).catch(() => undefined);
      if (!info?.isFile()) continue;
      used += info.size;
      oldest = Math.min(oldest, info.mtimeMs);
    }
    return { used, oldest };
  };

  /**
   * Refuses with a 503 when the snapshots take their budget (counted now, or as given) or the
   * disk's free space is under the reserve. Retry-After: until the oldest snapshot is pruned,
   * at most a pruning interval later.
   */
  const checkDisk = async (counted?: { used: number; oldest: number }) => {
    const budget = options.diskBudget;
    if (!budget) return;
    const { used, oldest } = counted ?? (await snapshotsOnDisk());
    const disk = await statfs(snapshotDir);
    const free = disk.bavail * disk.bsize;
    if (used < budget.snapshotBytes && free >= budget.reserveBytes) return;
    const pruned = Number.isFinite(oldest) ? oldest + budget.pruneAfterMs - Date.now() : 0;
    throw fullDisk(
      "this export's snapshot",
      Math.max(0, Math.ceil(pruned / 1000)) + Math.ceil(budget.pruneEveryMs / 1000),
    );
  };

  /**
   * The parts of a snapshot that hold positions [offset, end), once written: a page of a
   * snapshot being made waits for them, or for its end. A snapshot neither complete nor being
   * made here stopped with the process that was making it.
   */
  const partsFor = async (snapshot: SnapshotLocation, end: number): Promise<Part[]> => {
    await making.get(snapshot.location)?.until(end);
    // Asked before its files are read: a making that ends while they are read has written its
    // mark of completion before it leaves `making`, but after the listing may have been taken.
    const beingMade = making.has(snapshot.location);
    const again = "start the export again without it, at offset 0";
    const { parts, complete } = await readSnapshot(snapshot.location).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      throw new ValidationError(`snapshot: it has been removed; ${again}`);
    });
    if (!complete && !beingMade) {
      throw new ValidationError(
        `snapshot: its making was stopped before it was finished; ${again}`,
      );
    }
    return parts;
  };

  /**
   * The window's partitions, in order: its `dt` partitions from the day it is read from (a row
   * is never in a partition before its own day), those before its own first day holding only
   * earlier copies of its events (`readFrom`).
   */
  const windowDays = async (
    appId: string,
    since: Date,
  ): Promise<{ day: string; files: string[]; bytes: number }[]> => {
    const first = `dt=${readFrom(since).toISOString().slice(0, 10)}`;
    const app = appDir(lakeDir, EVENTS_TABLE, appId);
    const names = await readdir(app).catch(() => []);
    const days = names.filter((name) => name.startsWith("dt=") && name >= first).sort();
    return Promise.all(
      days.map(async (name) => {
        const files = await parquetFilesUnder(join(app, name));
        const sizes = await Promise.all(files.map((file) => stat(file).then((info) => info.size)));
        return {
          day: name.slice("dt=".length),
          files,
          bytes: sizes.reduce((sum, size) => sum + size, 0),
        };
      }),
    );
  };

  return {
    async materialize({ appId, since, until, snapshotId, excludeServiceIds }) {
      await mkdir(snapshotDir, { recursive: true });
      const query = {
        dialect: "duckdb" as const,
        appId,
        since,
        until,
        exclude: { serviceIds: excludeServiceIds ?? [] },
      };
      const location = join(snapshotDir, `${snapshotId}${SNAPSHOT_SUFFIX}`);
      const connection = await (options.snapshotDuckdb ?? duckdb).connect();
      try {
        await checkDisk();
        await mkdir(location, { recursive: true });
      } catch (error) {
        connection.closeSync();
        throw error;
      }
      const progress = new SnapshotMaking();
      making.set(location, progress);
      // Set by a stop: the making ends before its next day (DuckDB's interrupt ends a query
      // under way, not one about to start).
      let stopping = false;
      let windowBytes = 0;
      let listed: () => void = () => undefined;
      const daysListed = new Promise<void>((resolve) => {
        listed = resolve;
      });
      // Parts are written into the snapshot's folder, each beside and renamed once whole, so
      // a page or a purge never meets half of one; `complete` is written after the last.
      const make = lakeFiles.read(async () => {
        const attributions = filesRelation(
          ATTRIBUTIONS_TABLE,
          await appParquetFiles(lakeDir, ATTRIBUTIONS_TABLE, appId),
        );
        // Each query opens the files of its own days only, however much history the app has.
        const days = await windowDays(appId, since);
        const sinceDay = since.toISOString().slice(0, 10);
        windowBytes = days
          .filter(({ day }) => day >= sinceDay)
          .reduce((sum, day) => sum + day.bytes, 0);
        listed();
        // A small window is one part, sorted whole: a page of it never reads several. A large
        // one is made a day at a time, each day in slices of time sorted alone, so that its
        // first pages come after its first slice and a sort never holds more than a slice.
        const whole = windowBytes < wholeBelowBytes;
        if (!whole) {
          const windowEvents = filesRelation(
            EVENTS_TABLE,
            days.flatMap((day) => day.files),
          );
          await connection.run(
            `CREATE OR REPLACE TEMP TABLE ${REPEATED_TABLE} AS ${buildRepeatedEventsQuery({
              ...query,
              sources: { events: windowEvents, attributions },
            })}`,
          );
        }
        const windowFiles = days.flatMap((day) => day.files);
        // A day of `event_time` is read from the files that may hold it: its own partition's,
        // and the late rows' of the partitions after it (`lakeDay`), found from the footers.
        let steps: readonly { files: string[]; day?: string }[] = [{ files: windowFiles }];
        if (!whole) {
          const times = await fileTimes(connection, windowFiles);
          const files = days.flatMap(({ day, files: held }) =>
            held.map((file) => ({ file, dt: day, ...times.get(file) })),
          );
          steps = eventDays(
            await withDaysHeld(connection, files, sinceDay, LAKE_LATE_DAYS),
            sinceDay,
            LAKE_LATE_DAYS,
          );
        }
        let position = 0;
        // The snapshots' files as last counted, and this one's parts written since.
        let counted = { ...(await snapshotsOnDisk()), at: Date.now() };
        let writtenSince = 0;
        const writePart = async (partQuery: string) => {
          if (stopping) throw new UnavailableError("The service is stopping.", 1);
          const part = join(location, "part.parquet");
          const result = await connection.run(
            `COPY (${partQuery}) TO ${sqlString(part)} (${SNAPSHOT_PART_OPTIONS})`,
          );
          const rows = Number(result.rowsChanged);
          if (rows === 0) {
            await rm(part, { force: true });
            return;
          }
          const name = join(location, partName(position, position + rows));
          await rename(part, name);
          position += rows;
          // The budget counts the parts written so far: a window too large stops here. The
          // other snapshots are counted again now and then, this one's parts as they come.
          writtenSince += (await stat(name)).size;
          if (Date.now() - counted.at >= DISK_CHECK_MS) {
            counted = { ...(await snapshotsOnDisk()), at: Date.now() };
            writtenSince = 0;
          }
          await checkDisk({ used: counted.used + writtenSince, oldest: counted.oldest });
          progress.advance(position);
        };
        for (const { day, files } of steps) {
          if (files.length === 0) continue;
          const sources = { events: filesRelation(EVENTS_TABLE, files), attributions };
          if (day === undefined) {
            await writePart(buildExportQuery({ ...query, sources }));
            continue;
          }
          // The window's first slice is a row group: the first page waits for it alone.
          const slices: TimeSlice[] = planSlices(
            groupsOfDay(await rowGroupTimes(connection, files), day),
            sliceRows,
            {
              firstRows: position === 0 ? 1 : sliceRows,
            },
          );
          const sliced = slices.length > 1;
          if (sliced) {
            await connection.run(
              `CREATE OR REPLACE TEMP TABLE ${DAY_ATTRIBUTIONS_TABLE} AS ${buildLatestAttributionsQuery({ ...query, sources, day })}`,
            );
          }
          for (const slice of slices) {
            await writePart(
              buildExportQuery({
                ...query,
                sources,
                day,
                slice,
                repeated: REPEATED_TABLE,
                ...(sliced ? { latestAttributions: DAY_ATTRIBUTIONS_TABLE } : {}),
              }),
            );
          }
        }
        await writeFile(join(location, COMPLETE), "");
        progress.finish();
      });
      const made = make
        .then(() => making.delete(location))
        .catch(async (error: unknown) => {
          await rm(location, { recursive: true, force: true });
          progress.fail(
            error instanceof Error && DISK_FULL.test(error.message)
              ? fullDisk("this export's snapshot", retryAfterFullDisk)
              : error,
          );
        })
        .finally(() => {
          listed();
          // Its temporary tables go with it.
          connection.closeSync();
          stoppers.delete(stop);
        });
      const stop = async () => {
        stopping = true;
        connection.interrupt();
        await made;
      };
      stoppers.add(stop);
      await daysListed;
      // A small window whole, so its first page gives its size; a large one from its first slice.
      if (windowBytes < wholeBelowBytes) await made;
      try {
        await progress.until(1);
      } catch (error) {
        making.delete(location);
        throw error;
      }
      return { location, ...(progress.done ? { rowCount: progress.written } : {}) };
    },

    async rowCountOf(snapshot: SnapshotLocation) {
      const progress = making.get(snapshot.location);
      if (progress) return progress.done ? progress.written : undefined;
      // Its parts are named by their positions: a finished snapshot's size is the last one's end.
      const { parts, complete } = await readSnapshot(snapshot.location).catch(() => ({
        parts: [],
        complete: false,
      }));
      return complete ? (parts.at(-1)?.end ?? 0) : undefined;
    },

    async *readPage(snapshot: SnapshotLocation, offset: number, limit: number) {
      const connection = await duckdb.connect();
      let next: Promise<DuckDBDataChunk | null> | undefined;
      try {
        const parts = await partsFor(snapshot, offset + limit);
        const query = pageQuery(parts, offset, limit, `${RECORD_JSON} AS record`);
        if (query === undefined) return;
        const result = await connection.stream(query);
        // The next chunk is fetched while this one is encoded: DuckDB works on its own threads.
        next = result.fetchChunk();
        for (;;) {
          const chunk = await next;
          if (!chunk || chunk.rowCount === 0) break;
          next = result.fetchChunk();
          for (const json of chunk.getColumnValues(0)) {
            if (typeof json === "string") yield parseRecord(json);
          }
        }
      } finally {
        // A consumer that stops early leaves a fetch in flight; let it settle before closing.
        await next?.catch(() => undefined);
        connection.closeSync();
      }
    },

    async encodePage(snapshot, offset, limit, encoding) {
      const { select, options } = PAGE_ENCODINGS[encoding];
      const query = pageQuery(await partsFor(snapshot, offset + limit), offset, limit, select);
      // Past the last part: no rows, which the service's writers encode.
      if (query === undefined) return undefined;
      await mkdir(pageDir, { recursive: true });
      const path = join(pageDir, `page-${randomUUID()}.${encoding}`);
      const connection = await duckdb.connect();
      let rowCount: number;
      try {
        const result = await pages(() =>
          connection.run(`COPY (${query}) TO ${sqlString(path)} (${options})`),
        );
        rowCount = result.rowsChanged;
      } catch (error) {
        await rm(path, { force: true });
        throw error instanceof Error && DISK_FULL.test(error.message)
          ? fullDisk("this page", retryAfterFullDisk)
          : error;
      } finally {
        connection.closeSync();
      }
      const body = new PageBody(await open(path));
      // The open file stays readable once unlinked, and the space is freed when it is closed
      // (read to the end, or the consumer gone). Where an open file cannot be unlinked
      // (Windows), it is removed once closed.
      await rm(path).catch(() => body.once("close", () => void rm(path, { force: true })));
      return { body, rowCount };
    },

    async prune(olderThan) {
      let removed = 0;
      for (const [location, progress] of making) {
        const failedAt = progress.failedAt;
        if (failedAt !== undefined && failedAt < olderThan.getTime()) making.delete(location);
      }
      // Page files are left only by a process that stopped while DuckDB wrote one.
      for (const dir of [snapshotDir, pageDir]) {
        for (const name of await readdir(dir).catch(() => [])) {
          const path = join(dir, name);
          const info = await stat(path).catch(() => undefined);
          // A snapshot still being made is as new as its last part, whatever its folder says.
          const progress = making.get(path);
          const beingMade = progress !== undefined && progress.failedAt === undefined;
          if (info && info.mtime < olderThan && !beingMade) {
            await rm(path, { recursive: true, force: true });
            removed += 1;
          }
        }
      }
      return removed;
    },

    async stop() {
      await Promise.all([...stoppers].map((stop) => stop()));
    },
  };
};
