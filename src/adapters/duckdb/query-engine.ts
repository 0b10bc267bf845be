/**
 * The embedded lake query engine: DuckDB over the lake folder's Parquet files. A snapshot is the
 * sorted, de-duplicated export written once to a Parquet file with its row position, so each
 * page is a cheap range read of it.
 */
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { buildExportQuery, sqlString } from "../../lake/export-query.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeTable } from "../../lake/tables.ts";
import type { LakeQueryEngine, SnapshotLocation } from "../../ports/lake.ts";
import { EXPORT_COLUMNS, type ExportRecord } from "../../record/columns.ts";
import { appFilesRelation, emptyRelation } from "./lake-sql.ts";

export interface DuckDbQueryEngine extends LakeQueryEngine {
  /** Deletes snapshot files last written before the given time. */
  prune(olderThan: Date): Promise<number>;
}

const SNAPSHOT_ROW_GROUP = 10_000;

const toRecord = (row: Record<string, unknown>): ExportRecord => {
  const record: Record<string, string | number | null> = {};
  for (const column of EXPORT_COLUMNS) {
    const value = row[column.name];
    if (value === null || value === undefined) record[column.name] = null;
    else if (column.type === "string") record[column.name] = String(value);
    else record[column.name] = Number(value);
  }
  return record as ExportRecord;
};

export const createDuckDbQueryEngine = (options: {
  duckdb: DuckDBInstance;
  lakeDir: string;
  snapshotDir: string;
}): DuckDbQueryEngine => {
  const { duckdb, lakeDir, snapshotDir } = options;

  const hasFiles = async (table: LakeTable, appId: string): Promise<boolean> => {
    const entries = await readdir(join(lakeDir, table.name, `app_id=${appId}`), {
      recursive: true,
    }).catch(() => []);
    return entries.some((name) => name.endsWith(".parquet"));
  };

  const source = async (table: LakeTable, appId: string) =>
    (await hasFiles(table, appId)) ? appFilesRelation(lakeDir, table, appId) : emptyRelation(table);

  return {
    async materialize({ appId, since, snapshotId }) {
      await mkdir(snapshotDir, { recursive: true });
      const query = buildExportQuery({
        dialect: "duckdb",
        appId,
        since,
        withPosition: true,
        sources: {
          events: await source(EVENTS_TABLE, appId),
          attributions: await source(ATTRIBUTIONS_TABLE, appId),
        },
      });
      const location = join(snapshotDir, `${snapshotId}.parquet`);
      const connection = await duckdb.connect();
      try {
        const result = await connection.run(
          `COPY (${query}) TO ${sqlString(location)} (FORMAT parquet, ROW_GROUP_SIZE ${SNAPSHOT_ROW_GROUP})`,
        );
        return { location, rowCount: result.rowsChanged };
      } finally {
        connection.closeSync();
      }
    },

    async *readPage(snapshot: SnapshotLocation, offset: number, limit: number) {
      const connection = await duckdb.connect();
      try {
        // Row groups carry min/max of pos, so DuckDB reads only the groups of this page.
        const result = await connection.stream(
          `SELECT * EXCLUDE (pos) FROM read_parquet(${sqlString(snapshot.location)})
           WHERE pos >= ${offset} AND pos < ${offset + limit} ORDER BY pos`,
        );
        for await (const rows of result.yieldRowObjects()) {
          for (const row of rows) yield toRecord(row);
        }
      } finally {
        connection.closeSync();
      }
    },

    async prune(olderThan) {
      const names = await readdir(snapshotDir).catch(() => []);
      let removed = 0;
      for (const name of names) {
        const path = join(snapshotDir, name);
        const info = await stat(path).catch(() => undefined);
        if (info && info.mtime < olderThan) {
          await rm(path, { force: true });
          removed += 1;
        }
      }
      return removed;
    },
  };
};
