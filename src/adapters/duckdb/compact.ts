/**
 * Compacting the embedded lake. Delivery writes one Parquet file per partition each time it
 * flushes (every few seconds by default), so a day of steady traffic is thousands of small
 * files, and every query over that day opens each of them: the export's snapshot, the reports
 * and the purge all slow down with the count of files, not with the rows. Compaction merges a
 * partition's small files into files of about `targetBytes`; a file of half that or more is
 * left as it is, so each row is rewritten a few times at most.
 *
 * A merge is written beside the lake and put in place under the lake's write lock: its
 * journal (the sources and the merged file) is written first, so a merge stopped by a crash is
 * finished at the next start (`recover`), and no row is lost or held twice. A source that a
 * purge rewrote meanwhile (another file at the same path) or removed leaves the merge undone:
 * the purge's file stands, and the next run merges it.
 */
import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { sqlString } from "../../lake/export-query.ts";
import { LAKE_TABLES } from "../../lake/lake-tables.ts";
import { syncFile, syncFolder } from "../local-disk/sync.ts";
import { type Listed, listedFile, sameFile, tableDir } from "./lake-sql.ts";
import type { ReadWriteLock } from "./read-write-lock.ts";

/** The folder beside the lake's tables where merges are written and journaled. */
const WORK_DIR = ".compaction";

/** What one run did: partitions merged, the files they held before, and the files they hold now. */
export interface CompactionResult {
  readonly partitions: number;
  readonly filesBefore: number;
  readonly filesAfter: number;
}

export interface LakeCompactor {
  /** Merges the small files of every partition of every lake table. */
  compact(): Promise<CompactionResult>;
  /**
   * Ends a run under way: the merge being written is dropped (its sources stay), and no other
   * begins. The service calls it as it stops, so that a long run does not hold the stop up.
   */
  stop(): void;
  /** Finishes the merges a stop left journaled and drops those it left unjournaled. */
  recover(): Promise<void>;
}

/** A merge put in place, its paths from the lake's folder, so that a moved data folder keeps it. */
interface Journal {
  readonly staged: string;
  readonly target: string;
  readonly sources: readonly string[];
}

const subfolders = async (dir: string, prefix: string): Promise<string[]> =>
  (await readdir(dir, { withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isDirectory() && entry.name.startsWith(prefix))
    .map((entry) => join(dir, entry.name));

/**
 * Files a merge reads at most: DuckDB holds each file's schema and footer while it reads them
 * (the union of their columns is the merged file's), so the memory a merge takes grows with
 * their count. A partition of more is merged in rounds.
 */
export const MAX_FILES_PER_MERGE = 500;

/**
 * Small files in groups of at most `targetBytes` and MAX_FILES_PER_MERGE together, oldest
 * first; a file is never merged alone.
 */
export const mergeGroups = (
  files: readonly Listed[],
  targetBytes: number,
  maxFiles = MAX_FILES_PER_MERGE,
): (readonly Listed[])[] => {
  const small = files
    .filter((file) => file.size < targetBytes / 2)
    .sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
  const groups: Listed[][] = [];
  let group: Listed[] = [];
  let bytes = 0;
  for (const file of small) {
    if (group.length === maxFiles || (group.length > 0 && bytes + file.size > targetBytes)) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(file);
    bytes += file.size;
  }
  groups.push(group);
  return groups.filter((candidate) => candidate.length > 1);
};

/** Puts a journaled merge in place; each step may have been done already by a stopped run. */
const finish = async (lakeDir: string, journal: Journal) => {
  await Promise.all(journal.sources.map((source) => rm(join(lakeDir, source), { force: true })));
  await rename(join(lakeDir, journal.staged), join(lakeDir, journal.target)).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    },
  );
};

export const createDuckDbCompactor = (options: {
  duckdb: DuckDBInstance;
  lakeDir: string;
  /** Shared with the query engine, the reports and the purge: a merge runs alone, when free. */
  lakeFiles: ReadWriteLock;
  /** About the size of a merged file; a file of half this or more is not merged again. */
  targetBytes: number;
  /** MAX_FILES_PER_MERGE by default. */
  maxFilesPerMerge?: number;
}): LakeCompactor => {
  const { duckdb, lakeDir, lakeFiles, targetBytes } = options;
  const workDir = join(lakeDir, WORK_DIR);
  let stopping = false;
  const writing = new Set<{ interrupt(): void }>();

  const listed = async (partition: string): Promise<Listed[]> => {
    const names = (await readdir(partition)).filter((name) => name.endsWith(".parquet"));
    const files = await Promise.all(names.map((name) => listedFile(join(partition, name))));
    return files.filter((file): file is Listed => file !== undefined);
  };

  /** Writes the group's rows into one file beside the lake, flushed; false when stopped. */
  const write = async (sources: readonly Listed[], staged: string): Promise<boolean> => {
    const files = `[${sources.map((source) => sqlString(source.path)).join(", ")}]`;
    const connection = await duckdb.connect();
    writing.add(connection);
    try {
      const expected = Number(
        (
          await connection.runAndReadAll(
            `SELECT sum(num_rows) FROM parquet_file_metadata(${files})`,
          )
        ).getRowsJS()[0]?.[0] ?? 0,
      );
      // Without hive_partitioning, so app_id and dt stay in the path, not in the merged file.
      const written = await connection.run(
        `COPY (SELECT * FROM read_parquet(${files}, hive_partitioning = false, union_by_name = true))
         TO ${sqlString(staged)} (FORMAT parquet)`,
      );
      if (Number(written.rowsChanged) !== expected) {
        throw new Error(`Compaction: ${written.rowsChanged} rows written of ${expected}`);
      }
    } catch (error) {
      await rm(staged, { force: true });
      if (stopping) return false;
      throw error;
    } finally {
      writing.delete(connection);
      connection.closeSync();
    }
    // The merged file whole on the disk before a journal names it.
    await syncFile(staged);
    return true;
  };

  /**
   * One group into one file; false when a source changed meanwhile and the merge was dropped,
   * or when the lake was busy. All of it under the lake's write side: a merge never runs beside
   * a snapshot being made or a report, so their memory and its own are never taken at once. It
   * does not wait for the lake either, which would hold up every reader behind it (a report
   * behind a long export's snapshot): a busy lake is merged at the next run.
   */
  const merge = async (partition: string, sources: readonly Listed[]): Promise<boolean> =>
    (await lakeFiles.writeIfFree(async () => {
      const id = randomUUID();
      const staged = join(workDir, `${id}.parquet`);
      if (!(await write(sources, staged))) return false;
      const unchanged = await Promise.all(sources.map(sameFile));
      if (!unchanged.every(Boolean)) {
        await rm(staged, { force: true });
        return false;
      }
      const journal: Journal = {
        staged: relative(lakeDir, staged),
        target: relative(lakeDir, join(partition, `part-${id}.parquet`)),
        sources: sources.map((source) => relative(lakeDir, source.path)),
      };
      const journalPath = join(workDir, `${id}.json`);
      await writeFile(`${journalPath}.part`, JSON.stringify(journal));
      await syncFile(`${journalPath}.part`);
      await rename(`${journalPath}.part`, journalPath);
      await syncFolder(workDir);
      await finish(lakeDir, journal);
      // The merge in place on the disk before its journal goes.
      await syncFolder(partition);
      await rm(journalPath);
      return true;
    })) ?? false;

  return {
    async compact() {
      await mkdir(workDir, { recursive: true });
      let partitions = 0;
      let filesBefore = 0;
      let filesAfter = 0;
      const failures: unknown[] = [];
      for (const table of LAKE_TABLES) {
        for (const app of await subfolders(tableDir(lakeDir, table), "app_id=")) {
          for (const partition of await subfolders(app, "dt=")) {
            // A partition that cannot be merged now (a file DuckDB cannot read) holds up no other.
            try {
              let files = await listed(partition);
              const before = files.length;
              let merged = false;
              // Rounds until no two small files are left: each merge leaves one file of several.
              for (let round = true; round; files = await listed(partition)) {
                round = false;
                for (const group of mergeGroups(files, targetBytes, options.maxFilesPerMerge)) {
                  if (stopping) break;
                  if (await merge(partition, group)) merged = round = true;
                }
              }
              if (!merged) continue;
              partitions += 1;
              filesBefore += before;
              filesAfter += files.length;
            } catch (error) {
              failures.push(error);
            }
          }
        }
      }
      if (failures.length > 0) {
        throw new AggregateError(failures, `Compaction failed in ${failures.length} partitions`);
      }
      return { partitions, filesBefore, filesAfter };
    },
    stop() {
      stopping = true;
      for (const connection of writing) connection.interrupt();
    },
    async recover() {
      const names = await readdir(workDir).catch(() => []);
      for (const name of names.filter((entry) => entry.endsWith(".json"))) {
        const journal = JSON.parse(await readFile(join(workDir, name), "utf8")) as Journal;
        await finish(lakeDir, journal);
        await rm(join(workDir, name));
      }
      // What is left was never journaled: merges stopped before they were put in place.
      for (const name of await readdir(workDir).catch(() => [])) {
        await rm(join(workDir, name), { force: true });
      }
    },
  };
};
