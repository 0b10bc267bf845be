/**
 * The record stream contract (../contracts/record-stream.test-support.ts) over the embedded
 * delivery stream, read back from the Parquet files it writes to the lake folder.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { sqlString } from "../../lake/export-query.ts";
import type { LakeRecord } from "../../lake/lake-tables.ts";
import { describeRecordStreamContract } from "../contracts/record-stream.test-support.ts";
import { tableDir } from "../duckdb/lake-sql.ts";
import { createLocalDeliveryStream } from "./delivery-stream.ts";

describeRecordStreamContract("embedded delivery stream", async (table) => {
  const dir = await mkdtemp(join(tmpdir(), "stream-contract-"));
  const duckdb = await DuckDBInstance.create(":memory:");
  const lakeDir = join(dir, "lake");
  const stream = await createLocalDeliveryStream({
    table,
    duckdb,
    lakeDir,
    walDir: join(dir, "wal"),
  });
  const columns = table.columns.map((column) =>
    column.type === "timestamp"
      ? `strftime("${column.name}", '%Y-%m-%dT%H:%M:%S.%gZ') AS "${column.name}"`
      : `"${column.name}"`,
  );
  return {
    stream,
    async delivered() {
      await stream.flush();
      const connection = await duckdb.connect();
      try {
        const files = `${tableDir(lakeDir, table)}/**/*.parquet`;
        const glob = await connection.runAndReadAll(
          `SELECT count(*) FROM glob(${sqlString(files)})`,
        );
        if (Number(glob.getRows()[0]?.[0]) === 0) return [];
        const reader = await connection.runAndReadAll(
          `SELECT app_id, ${columns.join(", ")}
           FROM read_parquet(${sqlString(files)}, hive_partitioning = true)`,
        );
        return reader.getRowObjectsJS() as unknown as LakeRecord[];
      } finally {
        connection.closeSync();
      }
    },
    async close() {
      await stream.close();
      duckdb.closeSync();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
