import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { EVENTS_TABLE } from "../../lake/lake-tables.ts";
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

describe("DuckDB purge of several installs of an app", () => {
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

  it("rewrites the lake without any of them, in one pass, and keeps every other row", async () => {
    const lakeDir = join(dir, "lake");
    const snapshotDir = join(dir, "snapshots");
    const lakeFiles = createReadWriteLock();
    const events = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir,
      walDir: join(dir, "wal"),
    });
    await events.put(
      ["x", "stays", "y", "x"].map((serviceId, i) =>
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
      lakeDir,
      snapshotDir,
      pageDir: join(dir, "pages"),
      lakeFiles,
    });
    await engine.materialize({ appId: APP, since: new Date(0), snapshotId: "holds-y" });
    const purger = createDuckDbPurger({ duckdb, lakeDir, snapshotDir, lakeFiles });

    expect(await purger.purgeInstalls(APP, ["x", "y"], 1)).toEqual({ filesRewritten: 1 });
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT service_id FROM read_parquet('${lakeDir}/**/*.parquet') ORDER BY event_id`,
      );
      expect(reader.getRowsJS()).toEqual([["stays"]]);
    } finally {
      connection.closeSync();
    }
    expect(await readdir(snapshotDir)).toEqual([]);
  });
});

describe("DuckDB purge, what it leaves as it was", () => {
  let dir: string;
  let duckdb: DuckDBInstance;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "purge-leaves-"));
    duckdb = await DuckDBInstance.create(":memory:");
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("leaves files without the install, rows without an install, other apps' snapshots and what is no snapshot", async () => {
    const lakeDir = join(dir, "lake");
    const snapshotDir = join(dir, "snapshots");
    const lakeFiles = createReadWriteLock();
    const events = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir,
      walDir: join(dir, "wal"),
    });
    const OTHER_APP = "com.example.other";
    await events.put([
      lakeEvent({
        app_id: APP,
        event_id: "e1",
        service_id: "x",
        event_time: "2026-11-01T10:00:00.000Z",
      }),
      lakeEvent({
        app_id: APP,
        event_id: "e2",
        service_id: null,
        event_time: "2026-11-01T10:00:00.000Z",
      }),
      // Another day's file, which holds no row of the install.
      lakeEvent({
        app_id: APP,
        event_id: "e3",
        service_id: "stays",
        event_time: "2026-11-02T10:00:00.000Z",
      }),
      // Another app's install of the same id.
      lakeEvent({
        app_id: OTHER_APP,
        event_id: "e4",
        service_id: "x",
        event_time: "2026-11-01T10:00:00.000Z",
      }),
    ]);
    await events.close();
    const engine = createDuckDbQueryEngine({
      duckdb,
      lakeDir,
      snapshotDir,
      pageDir: join(dir, "pages"),
      lakeFiles,
    });
    await engine.materialize({ appId: OTHER_APP, since: new Date(0), snapshotId: "other" });
    await writeFile(join(snapshotDir, "notes.txt"), "kept");
    const purger = createDuckDbPurger({ duckdb, lakeDir, snapshotDir, lakeFiles });

    expect(await purger.purgeInstalls(APP, [], 1)).toEqual({ filesRewritten: 0 });
    expect(await purger.purgeInstalls(APP, ["x"], 1)).toEqual({ filesRewritten: 1 });
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT event_id, service_id FROM read_parquet('${lakeDir}/**/*.parquet') ORDER BY event_id`,
      );
      expect(reader.getRowsJS()).toEqual([
        ["e2", null],
        ["e3", "stays"],
        ["e4", "x"],
      ]);
    } finally {
      connection.closeSync();
    }
    expect((await readdir(snapshotDir)).sort()).toEqual(
      [`other${SNAPSHOT_SUFFIX}`, "notes.txt"].sort(),
    );
  });
});
