/**
 * The embedded lake query engine: DuckDB over the lake folder's Parquet files. A snapshot is the
 * sorted, de-duplicated export written once to a Parquet file with its row position, its typed
 * columns and each record's JSON, so each page is a cheap range read of it. Pages in csv, tsv,
 * ndjson and parquet are written by DuckDB itself into a file that is streamed out and removed.
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBDataChunk, DuckDBInstance } from "@duckdb/node-api";
import { buildExportQuery, sqlString } from "../../lake/export-query.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeTable } from "../../lake/tables.ts";
import type { LakeQueryEngine, SnapshotLocation } from "../../ports/lake.ts";
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import { appFilesRelation, appParquetFiles, emptyRelation } from "./lake-sql.ts";
import { PAGE_ENCODINGS } from "./page-encodings.ts";
import type { ReadWriteLock } from "./read-write-lock.ts";

export interface DuckDbQueryEngine extends LakeQueryEngine {
  encodePage: NonNullable<LakeQueryEngine["encodePage"]>;
  /** Deletes snapshot and page files last written before the given time. */
  prune(olderThan: Date): Promise<number>;
}

/**
 * The snapshot file's layout: pos, then the typed columns, in pos order. Written by one COPY
 * of the export query: a column computed over it (such as each row's JSON) would make DuckDB
 * hold the sorted window in memory rather than spill it.
 */
export const SNAPSHOT_SUFFIX = ".v3.parquet";

const SNAPSHOT_ROW_GROUP = 10_000;
const PAGE_READ_BYTES = 256 * 1024;

/**
 * Rows leave DuckDB for JavaScript as one JSON text each, made for the page's rows as it is
 * read: reading 25 typed values per row into JS costs several times more than V8's JSON.parse
 * of DuckDB's to_json. The JSON has the record's keys in column order, typed numbers and
 * explicit nulls, i.e. it is an ExportRecord.
 */
const RECORD_JSON = `to_json(struct_pack(${COLUMN_NAMES.map((name) => `${name} := ${name}`).join(", ")}))`;

const parseRecord = (json: string): ExportRecord => JSON.parse(json);

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
}): DuckDbQueryEngine => {
  const { duckdb, lakeDir, snapshotDir, pageDir, lakeFiles } = options;

  const hasFiles = async (table: LakeTable, appId: string): Promise<boolean> =>
    (await appParquetFiles(lakeDir, table, appId)).length > 0;

  const source = async (table: LakeTable, appId: string) =>
    (await hasFiles(table, appId)) ? appFilesRelation(lakeDir, table, appId) : emptyRelation(table);

  const pageRange = (snapshot: SnapshotLocation, offset: number, limit: number) =>
    `read_parquet(${sqlString(snapshot.location)}) WHERE pos >= ${offset} AND pos < ${offset + limit}`;

  return {
    async materialize({ appId, since, snapshotId, excludeServiceIds }) {
      await mkdir(snapshotDir, { recursive: true });
      const query = buildExportQuery({
        dialect: "duckdb",
        appId,
        since,
        exclude: { serviceIds: excludeServiceIds ?? [] },
        withPosition: true,
        sources: {
          events: await source(EVENTS_TABLE, appId),
          attributions: await source(ATTRIBUTIONS_TABLE, appId),
        },
      });
      const location = join(snapshotDir, `${snapshotId}${SNAPSHOT_SUFFIX}`);
      // Written beside and renamed, so a reader (a purge) never meets a half-written snapshot.
      const staged = `${location}.partial`;
      const connection = await (options.snapshotDuckdb ?? duckdb).connect();
      try {
        const result = await lakeFiles.read(() =>
          connection.run(
            `COPY (${query}) TO ${sqlString(staged)} (FORMAT parquet, ROW_GROUP_SIZE ${SNAPSHOT_ROW_GROUP})`,
          ),
        );
        await rename(staged, location);
        return { location, rowCount: result.rowsChanged };
      } catch (error) {
        await rm(staged, { force: true });
        throw error;
      } finally {
        connection.closeSync();
      }
    },

    async *readPage(snapshot: SnapshotLocation, offset: number, limit: number) {
      const connection = await duckdb.connect();
      let next: Promise<DuckDBDataChunk | null> | undefined;
      try {
        // Row groups carry min/max of pos, so DuckDB reads only the groups of this page. The
        // file is written in pos order and DuckDB preserves insertion order without ORDER BY,
        // which lets the first rows go out before the page is read whole.
        const result = await connection.stream(
          `SELECT ${RECORD_JSON} AS record FROM ${pageRange(snapshot, offset, limit)}`,
        );
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
      if (!snapshot.location.endsWith(SNAPSHOT_SUFFIX)) return undefined;
      await mkdir(pageDir, { recursive: true });
      const path = join(pageDir, `page-${randomUUID()}.${encoding}`);
      const { select, options } = PAGE_ENCODINGS[encoding];
      const connection = await duckdb.connect();
      let rowCount: number;
      try {
        const result = await connection.run(
          `COPY (SELECT ${select} FROM ${pageRange(snapshot, offset, limit)} ORDER BY pos)
           TO ${sqlString(path)} (${options})`,
        );
        rowCount = result.rowsChanged;
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      } finally {
        connection.closeSync();
      }
      const file = await open(path);
      // Large reads: each one is a trip to the thread pool, and the file is read whole.
      const body = file.createReadStream({ highWaterMark: PAGE_READ_BYTES });
      // The open file stays readable once unlinked, and the space is freed when it is closed
      // (read to the end, or the consumer gone). Where an open file cannot be unlinked
      // (Windows), it is removed once closed.
      await rm(path).catch(() => body.once("close", () => void rm(path, { force: true })));
      return { body, rowCount };
    },

    async prune(olderThan) {
      let removed = 0;
      // Page files are left only by a process that stopped while DuckDB wrote one.
      for (const dir of [snapshotDir, pageDir]) {
        for (const name of await readdir(dir).catch(() => [])) {
          const path = join(dir, name);
          const info = await stat(path).catch(() => undefined);
          if (info?.isFile() && info.mtime < olderThan) {
            await rm(path, { force: true });
            removed += 1;
          }
        }
      }
      return removed;
    },
  };
};
