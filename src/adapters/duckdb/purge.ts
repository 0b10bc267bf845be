/**
 * Purging installs from the embedded lake: every Parquet file of the app that holds one of
 * their rows is rewritten without them (written beside, then renamed over, so a reader sees the
 * old file or the new one, never half of one), and export snapshots holding their records are
 * deleted (a tombstone already keeps new snapshots clean). Export pages are never on disk past
 * their opening (query-engine.ts), so there are none to look at.
 */
import { readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { sqlString } from "../../lake/export-query.ts";
import { INSTALL_TABLES } from "../../lake/lake-tables.ts";
import type { LakePurger } from "../../ports/lake.ts";
import { appParquetFiles, listedFile, sameFile } from "./lake-sql.ts";
import type { ReadWriteLock } from "./read-write-lock.ts";
import { partsOf, SNAPSHOT_SUFFIX } from "./snapshot-parts.ts";

/** Passes over an app's files before a purge that keeps meeting moved files gives up for now. */
const MAX_PASSES = 5;

export const createDuckDbPurger = (options: {
  duckdb: DuckDBInstance;
  lakeDir: string;
  snapshotDir: string;
  /** Shared with the query engine (see there): a rewritten file is put in place alone. */
  lakeFiles: ReadWriteLock;
}): LakePurger => ({
  async purgeInstalls(appId, serviceIds) {
    if (serviceIds.length === 0) return { filesRewritten: 0 };
    const connection = await options.duckdb.connect();
    const count = async (sql: string): Promise<number> =>
      Number((await connection.runAndReadAll(sql)).getRowsJS()[0]?.[0] ?? 0);
    const ids = `(${serviceIds.map(sqlString).join(", ")})`;
    let filesRewritten = 0;
    try {
      // A file merged by a compaction while it was rewritten here is not put back: its rows
      // are in the merged file now, which the next pass finds.
      for (let pass = 1; ; pass++) {
        let moved = false;
        for (const table of INSTALL_TABLES) {
          for (const path of await appParquetFiles(options.lakeDir, table, appId)) {
            const file = await listedFile(path);
            if (!file) {
              moved = true;
              continue;
            }
            // Without hive_partitioning, so app_id and dt stay in the path, not in the rewritten file.
            const source = `read_parquet(${sqlString(path)}, hive_partitioning = false)`;
            const rewritten = `${path}.purge`;
            try {
              if ((await count(`SELECT count(*) FROM ${source} WHERE service_id IN ${ids}`)) === 0)
                continue;
              // NOT IN alone would be null for a row without a service id, and drop it.
              await connection.run(
                `COPY (SELECT * FROM ${source} WHERE service_id IS NULL OR service_id NOT IN ${ids})
                 TO ${sqlString(rewritten)} (FORMAT parquet)`,
              );
            } catch (error) {
              // Removed while it was read: merged into another file, which a next pass reads.
              if (await sameFile(file)) throw error;
              await rm(rewritten, { force: true });
              moved = true;
              continue;
            }
            const replaced = await options.lakeFiles.write(async () => {
              if (!(await sameFile(file))) return false;
              await rename(rewritten, path);
              return true;
            });
            if (replaced) filesRewritten += 1;
            else {
              await rm(rewritten, { force: true });
              moved = true;
            }
          }
        }
        if (!moved) break;
        if (pass === MAX_PASSES) {
          throw new Error(
            `The lake's files of ${appId} kept moving under the purge; it runs again`,
          );
        }
      }
      for (const name of await readdir(options.snapshotDir).catch(() => [])) {
        if (!name.endsWith(SNAPSHOT_SUFFIX)) continue;
        const snapshot = join(options.snapshotDir, name);
        try {
          const parts = (await partsOf(snapshot)).map((part) => sqlString(part.path));
          if (parts.length === 0) continue;
          const holds = await count(
            // Another app's install may have the same id: its snapshots are not this purge's.
            `SELECT count(*) FROM read_parquet([${parts.join(", ")}])
             WHERE app_id = ${sqlString(appId)} AND service_id IN ${ids}`,
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
