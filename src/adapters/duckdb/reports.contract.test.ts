/**
 * The report engine contract (../contracts/reports.test-support.ts) over DuckDB, its lake laid
 * by the embedded delivery streams, beside the export's DuckDB engine over the same lake.
 * Athena's side does not run here: the contract's header says why.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, TOUCHES_TABLE } from "../../lake/lake-tables.ts";
import { describeReportEngineContract } from "../contracts/reports.test-support.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { createDuckDbQueryEngine } from "./query-engine.ts";
import { createReadWriteLock } from "./read-write-lock.ts";
import { createDuckDbReportEngine } from "./reports.ts";

describeReportEngineContract("DuckDB over the lake folder", async (lake) => {
  const dir = await mkdtemp(join(tmpdir(), "reports-contract-"));
  const duckdb = await DuckDBInstance.create(":memory:");
  const lakeDir = join(dir, "lake");
  const walDir = join(dir, "wal");
  const stream = (table: typeof EVENTS_TABLE | typeof ATTRIBUTIONS_TABLE | typeof TOUCHES_TABLE) =>
    createLocalDeliveryStream({ table, duckdb, lakeDir, walDir });
  const events = await stream(EVENTS_TABLE);
  for (const delivery of lake.events) {
    await events.put(delivery);
    await events.flush();
  }
  await events.close();
  for (const [table, records] of [
    [ATTRIBUTIONS_TABLE, lake.attributions],
    [TOUCHES_TABLE, lake.touches],
  ] as const) {
    const delivery = await stream(table);
    await delivery.put(records);
    await delivery.close();
  }
  const lakeFiles = createReadWriteLock();
  return {
    reports: createDuckDbReportEngine({ duckdb, lakeDir, lakeFiles }),
    exports: createDuckDbQueryEngine({
      duckdb,
      lakeDir,
      snapshotDir: join(dir, "snapshots"),
      pageDir: join(dir, "pages"),
      lakeFiles,
    }),
    async close() {
      duckdb.closeSync();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
