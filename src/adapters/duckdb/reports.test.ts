import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeAttribution, lakeEvent } from "../../../test/support/records.ts";
import { sqlString } from "../../lake/export-query.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  type LakeTable,
  nullColumns,
  TOUCHES_TABLE,
} from "../../lake/lake-tables.ts";
import { buildOverviewQuery } from "../../reports/queries.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { appDir } from "./lake-sql.ts";
import { createReadWriteLock } from "./read-write-lock.ts";
import { createDuckDbReportEngine } from "./reports.ts";

const APP = "com.example.paths";

describe("DuckDB reports", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  let lakeDir: string;
  const lakeFiles = createReadWriteLock();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "reports-"));
    duckdb = await DuckDBInstance.create(":memory:");
    lakeDir = join(dir, "lake");
    const events: LakeRecord[] = [];
    const attributions: LakeRecord[] = [];
    const touches: LakeRecord[] = [];
    // Path p<n> is the link of n installs' winning touches, n from 1 to 12; the second one's
    // touch has params that are not JSON, so the path counts n - 1 installs (p1 and p2 tie).
    for (let path = 1; path <= 12; path++) {
      for (let n = 0; n < path; n++) {
        const serviceId = `s-${path}-${n}`;
        const clickId = `c-${path}-${n}`;
        events.push(
          lakeEvent({
            app_id: APP,
            event_id: `i-${serviceId}`,
            service_id: serviceId,
            event_name: "service_install",
            event_time: "2026-11-10T12:00:00.000Z",
          }),
        );
        attributions.push(
          lakeAttribution({
            app_id: APP,
            service_id: serviceId,
            media_source: "meta_ads",
            matching_type: "network",
            match_status: "matched",
            click_id: clickId,
          }),
        );
        touches.push({
          ...nullColumns(TOUCHES_TABLE),
          app_id: APP,
          click_id: clickId,
          touch_type: "click",
          // The first one the longest click window before the install, and a day more.
          touch_time: n === 0 ? "2026-10-10T12:00:00.000Z" : "2026-11-09T12:00:00.000Z",
          received_at: n === 0 ? "2026-10-10T12:00:01.000Z" : "2026-11-09T12:00:01.000Z",
          source: "network",
          params: n === 1 ? "not json" : JSON.stringify({ deep_link_path: `/p${path}` }),
        });
      }
    }
    // An event sent again, its copies dated either side of the window's first moment: first
    // the evening before.
    for (const [eventTime, receivedAt] of [
      ["2026-11-09T23:30:00.000Z", "2026-11-09T23:30:01.000Z"],
      ["2026-11-10T00:30:00.000Z", "2026-11-10T00:31:00.000Z"],
    ]) {
      events.push(
        lakeEvent({
          app_id: APP,
          event_id: "sent-again",
          service_id: "s-1-0",
          event_name: "purchase",
          event_time: eventTime,
          received_at: receivedAt,
        }),
      );
    }
    const walDir = join(dir, "wal");
    for (const [table, records] of [
      [EVENTS_TABLE, events],
      [ATTRIBUTIONS_TABLE, attributions],
      [TOUCHES_TABLE, touches],
    ] as const) {
      const stream = await createLocalDeliveryStream({ table, duckdb, lakeDir, walDir });
      await stream.put(records);
      await stream.close();
    }
    // A file no query of November may open, though it reads the day before for earlier copies
    // of its events: DuckDB would fail on it.
    const outside = join(appDir(lakeDir, EVENTS_TABLE, APP), "dt=2026-10-30");
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, "part-broken.parquet"), "not parquet");
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  const engine = () => createDuckDbReportEngine({ duckdb, lakeDir, lakeFiles });
  const overview = (from = "2026-11-10", to = "2026-11-30") =>
    engine().overview({ appId: APP, from, to, excludeServiceIds: [] });

  it("names the ten paths of the most installs, read from the winning touches' params", async () => {
    const report = await overview();
    expect(report.totals.paid_installs).toBe(78);
    expect(report.deep_link_paths).toEqual(
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map((n) => ({ deep_link_path: `/p${n}`, installs: n - 1 })),
    );
  });

  it("counts an event sent again on its first copy's day, not on a later copy's", async () => {
    expect((await overview()).totals).toMatchObject({ installs: 78, events: 78 });
    expect((await overview("2026-11-09")).totals).toMatchObject({ installs: 78, events: 79 });
  });

  it("opens the window's partitions only", async () => {
    await expect(overview("2026-10-31", "2026-11-30")).rejects.toThrow();
    await expect(overview("2026-11-01", "2026-11-30")).resolves.toMatchObject({
      totals: { installs: 78 },
    });
    await expect(
      engine().latestEvents({ appId: APP, limit: 1, today: "2026-11-11", excludeServiceIds: [] }),
    ).resolves.toHaveLength(1);
  });

  it("plans the overview as hash joins over unsorted rows: no loop over pairs, no sort", async () => {
    // November's partitions: not the broken file of October.
    const relation = (table: LakeTable) =>
      `read_parquet(${sqlString(`${appDir(lakeDir, table, APP)}/dt=2026-11-*/*.parquet`)}, hive_partitioning = true)`;
    const query = buildOverviewQuery({
      dialect: "duckdb",
      appId: APP,
      from: "2026-11-01",
      to: "2026-11-30",
      sources: {
        events: relation(EVENTS_TABLE),
        attributions: relation(ATTRIBUTIONS_TABLE),
        touches: relation(TOUCHES_TABLE),
      },
      exclude: { serviceIds: ["s-1-0"] },
    });
    const connection = await duckdb.connect();
    try {
      const plan = (await connection.runAndReadAll(`EXPLAIN (FORMAT json) ${query}`))
        .getRowObjectsJS()
        .map((row) => String(row.explain_value))
        .join("\n");
      const operators = new Set([...plan.matchAll(/"name":\s*"([A-Z_]+)"/g)].map((m) => m[1]));
      expect(operators).toContain("HASH_JOIN");
      expect(operators).toContain("READ_PARQUET");
      for (const slow of ["NESTED_LOOP_JOIN", "BLOCKWISE_NL_JOIN", "CROSS_PRODUCT", "ORDER_BY"]) {
        expect(operators).not.toContain(slow);
      }
    } finally {
      connection.closeSync();
    }
  });

  it("waits for a purge replacing lake files", async () => {
    let purged = false;
    let release = () => {};
    const purge = lakeFiles.write(
      () =>
        new Promise<void>((resolve) => {
          release = () => {
            purged = true;
            resolve();
          };
        }),
    );
    const report = overview().then(() => purged);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await purge;
    expect(await report).toBe(true);
  });
});
