import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { EVENTS_TABLE, type LakeRecord } from "../../lake/lake-tables.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { createDuckDbPurger } from "./purge.ts";
import { createDuckDbQueryEngine } from "./query-engine.ts";
import { createReadWriteLock } from "./read-write-lock.ts";
import { SNAPSHOT_SUFFIX } from "./snapshot-parts.ts";

const APP = "com.example.purge";

describe("DuckDB purge of an install", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  const lakeDir = () => join(dir, "lake");
  const lakeFiles = createReadWriteLock();
  const snapshotDir = () => join(dir, "snapshots");

  /** Rows of the lake's Parquet files that name the install. */
  const rowsOf = async (folder: string, serviceId: string): Promise<number> => {
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${folder}/**/*.parquet')
         WHERE service_id = '${serviceId}'`,
      );
      return Number(reader.getRowObjectsJS()[0]?.n ?? 0);
    } finally {
      connection.closeSync();
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "purge-"));
    duckdb = await DuckDBInstance.create(":memory:");
    const events = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir: lakeDir(),
      walDir: join(dir, "wal"),
    });
    await events.put(
      ["gone", "stays", "gone"].map((serviceId, i) =>
        lakeEvent({
          app_id: APP,
          event_id: `e${i}`,
          service_id: serviceId,
          event_time: "2026-11-01T10:00:00.000Z",
        }),
      ),
    );
    await events.close();
    const engine = createDuckDbQueryEngine({
      duckdb,
      lakeDir: lakeDir(),
      snapshotDir: snapshotDir(),
      pageDir: join(dir, "pages"),
      lakeFiles,
    });
    // A snapshot that holds the install, one that leaves it out, and one still being written.
    await engine.materialize({ appId: APP, since: new Date(0), snapshotId: "current" });
    await engine.materialize({
      appId: APP,
      since: new Date(0),
      snapshotId: "clean",
      excludeServiceIds: ["gone"],
    });
    // Its first day's part is being written beside its name.
    await mkdir(join(snapshotDir(), `writing${SNAPSHOT_SUFFIX}`));
    await writeFile(join(snapshotDir(), `writing${SNAPSHOT_SUFFIX}`, "part.parquet"), "not yet");
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("rewrites the lake without the install and drops the snapshots that hold it", async () => {
    expect(await rowsOf(lakeDir(), "gone")).toBe(2);
    const purger = createDuckDbPurger({
      duckdb,
      lakeDir: lakeDir(),
      snapshotDir: snapshotDir(),
      lakeFiles,
    });
    // While a snapshot is being made from the lake, the rewritten file waits beside the old one.
    let snapshotMade = () => {};
    const making = lakeFiles.read(
      () =>
        new Promise<void>((resolve) => {
          snapshotMade = resolve;
        }),
    );
    const purging = purger.purgeInstalls(APP, ["gone"], 1);
    const waitingBeside = async () =>
      (await readdir(lakeDir(), { recursive: true })).some((f) => f.endsWith(".parquet.purge"));
    await expect.poll(waitingBeside).toBe(true);
    expect(await rowsOf(lakeDir(), "gone")).toBe(2);
    snapshotMade();
    await making;
    expect(await purging).toEqual({ filesRewritten: 1 });
    expect(await waitingBeside()).toBe(false);
    expect(await rowsOf(lakeDir(), "gone")).toBe(0);
    expect(await rowsOf(lakeDir(), "stays")).toBe(1);
    expect((await readdir(snapshotDir())).sort()).toEqual([
      `clean${SNAPSHOT_SUFFIX}`,
      `writing${SNAPSHOT_SUFFIX}`,
    ]);
  });
});

describe("DuckDB purge of installs of an app", () => {
  let dir: string;
  let duckdb: DuckDBInstance;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "purge-several-"));
    duckdb = await DuckDBInstance.create(":memory:");
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  /** A lake of its own holding `records`, with its query engine and its purger. */
  const lakeOf = async (name: string, records: LakeRecord[]) => {
    const lakeDir = join(dir, name, "lake");
    const snapshotDir = join(dir, name, "snapshots");
    const lakeFiles = createReadWriteLock();
    const events = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir,
      walDir: join(dir, name, "wal"),
    });
    await events.put(records);
    await events.close();
    const engine = createDuckDbQueryEngine({
      duckdb,
      lakeDir,
      snapshotDir,
      pageDir: join(dir, name, "pages"),
      lakeFiles,
    });
    const purger = createDuckDbPurger({ duckdb, lakeDir, snapshotDir, lakeFiles });
    /** The lake's rows' columns, in the order of their events' ids. */
    const rows = async (columns: string) => {
      const connection = await duckdb.connect();
      try {
        const reader = await connection.runAndReadAll(
          `SELECT ${columns} FROM read_parquet('${lakeDir}/**/*.parquet') ORDER BY event_id`,
        );
        return reader.getRowsJS();
      } finally {
        connection.closeSync();
      }
    };
    return { snapshotDir, engine, purger, rows };
  };

  const event = (eventId: string, serviceId: string | null, day = "2026-11-01", appId = APP) =>
    lakeEvent({
      app_id: appId,
      event_id: eventId,
      service_id: serviceId,
      event_time: `${day}T10:00:00.000Z`,
    });

  it("rewrites the lake without any of them, in one pass, and keeps every other row", async () => {
    const lake = await lakeOf(
      "several",
      ["x", "stays", "y", "x"].map((serviceId, i) => event(`e${i}`, serviceId)),
    );
    await lake.engine.materialize({ appId: APP, since: new Date(0), snapshotId: "holds-y" });

    expect(await lake.purger.purgeInstalls(APP, ["x", "y"], 1)).toEqual({ filesRewritten: 1 });
    expect(await lake.rows("service_id")).toEqual([["stays"]]);
    expect(await readdir(lake.snapshotDir)).toEqual([]);
  });

  it("leaves files without the install, rows without an install, other apps' snapshots and what is no snapshot", async () => {
    const OTHER_APP = "com.example.other";
    const lake = await lakeOf("leaves", [
      event("e1", "x"),
      event("e2", null),
      // Another day's file, which holds no row of the install.
      event("e3", "stays", "2026-11-02"),
      // Another app's install of the same id.
      event("e4", "x", "2026-11-01", OTHER_APP),
    ]);
    await lake.engine.materialize({ appId: OTHER_APP, since: new Date(0), snapshotId: "other" });
    await writeFile(join(lake.snapshotDir, "notes.txt"), "kept");

    expect(await lake.purger.purgeInstalls(APP, [], 1)).toEqual({ filesRewritten: 0 });
    expect(await lake.purger.purgeInstalls(APP, ["x"], 1)).toEqual({ filesRewritten: 1 });
    expect(await lake.rows("event_id, service_id")).toEqual([
      ["e2", null],
      ["e3", "stays"],
      ["e4", "x"],
    ]);
    expect((await readdir(lake.snapshotDir)).sort()).toEqual(
      [`other${SNAPSHOT_SUFFIX}`, "notes.txt"].sort(),
    );
  });
});
