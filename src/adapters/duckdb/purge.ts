/**
 * Purging an install from the embedded lake: every Parquet file of the app that holds one of
 * its rows is rewritten without them (written beside, then renamed over, so a reader sees the
 * old file or the new one, never half of one), and export snapshots holding its records are
 * deleted (a tombstone already keeps new snapshots clean). Export pages are never on disk past
 * their opening (query-engine.ts), so there are none to look at.
 */
import { readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { sqlString } from "../../lake/export-query.ts";
import { INSTALL_TABLES } from "../../lake/lake-tables.ts";
import type { LakePurger } from "../../ports/lake.ts";
import { appParquetFiles } from "./lake-sql.ts";
import type { ReadWriteLock } from "./read-write-lock.ts";
import { partsOf, SNAPSHOT_SUFFIX } from "./snapshot-parts.ts";

export const createDuckDbPurger = (options: {
  duckdb: DuckDBInstance;
  lakeDir: string;
  snapshotDir: string;
  /** Shared with the query engine (see there): a rewritten file is put in place alone. */
  lakeFiles: ReadWriteLock;
}): LakePurger => ({
  async purgeInstall(appId, serviceId) {
    const connection = await options.duckdb.connect();
    const count = async (sql: string): Promise<number> =>
      Number((await connection.runAndReadAll(sql)).getRowsJS()[0]?.[0] ?? 0);
    const id = sqlString(serviceId);
    let filesRewritten = 0;
    try {
      for (const table of INSTALL_TABLES) {
        for (const file of await appParquetFiles(options.lakeDir, table, appId)) {
          // Without hive_partitioning, so app_id and dt stay in the path, not in the rewritten file.
          const source = `read_parquet(${sqlString(file)}, hive_partitioning = false)`;
          if ((await count(`SELECT count(*) FROM ${source} WHERE service_id = ${id}`)) === 0)
            continue;
          const rewritten = `${file}.purge`;
          await connection.run(
            `COPY (SELECT * FROM ${source} WHERE service_id IS DISTINCT FROM ${id})
             TO ${sqlString(rewritten)} (FORMAT parquet)`,
          );
          await options.lakeFiles.write(() => rename(rewritten, file));
          filesRewritten += 1;
        }
      }
      for (const name of await readdir(options.snapshotDir).catch(() => [])) {
        if (!name.endsWith(SNAPSHOT_SUFFIX)) continue;
        const snapshot = join(options.snapshotDir, name);
        try {
          const parts = (await partsOf(snapshot)).map((part) => sqlString(part.path));
          if (parts.length === 0) continue;
          const holds = await count(
            `SELECT count(*) FROM read_parquet([${parts.join(", ")}]) WHERE service_id = ${id}`,
          );
          // A page of a snapshot is whole or not at all: the snapshot goes, not the part.
          if (holds > 0) await rm(snapshot, { recursive: true, force: true });
        } catch (error) {
          // Pruned since the folder was listed: nothing left to purge.
          if (await stat(snapshot).catch(() => undefined)) throw error;
        }
      }
    } finally {
      connection.closeSync();
    }
    return { filesRewritten };
  },
});
