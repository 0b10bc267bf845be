/**
 * The query engine contract (../contracts/query-engine.test-support.ts) over DuckDB, its lake
 * laid by the embedded delivery streams. Athena's side does not run here: the contract's
 * header says why.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE } from "../../lake/lake-tables.ts";
import { describeQueryEngineContract } from "../contracts/query-engine.test-support.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { createDuckDbQueryEngine } from "./query-engine.ts";
import { createReadWriteLock } from "./read-write-lock.ts";

describeQueryEngineContract("DuckDB over the lake folder", async (lake) => {
  const dir = await mkdtemp(join(tmpdir(), "engine-contract-"));
  const duckdb = await DuckDBInstance.create(":memory:");
  const lakeDir = join(dir, "lake");
  const walDir = join(dir, "wal");
  const events = await createLocalDeliveryStream({ table: EVENTS_TABLE, duckdb, lakeDir, walDir });
  for (const delivery of lake.events) {
    await events.put(delivery);
    await events.flush();
  }
  await events.close();
  const attributions = await createLocalDeliveryStream({
    table: ATTRIBUTIONS_TABLE,
    duckdb,
    lakeDir,
    walDir,
  });
  await attributions.put(lake.attributions);
  await attributions.close();
  return {
    engine: createDuckDbQueryEngine({
      duckdb,
      lakeDir,
      snapshotDir: join(dir, "snapshots"),
      pageDir: join(dir, "pages"),
      lakeFiles: createReadWriteLock(),
    }),
    async close() {
      duckdb.closeSync();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
