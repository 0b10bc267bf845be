import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { EVENTS_TABLE, lakeDay } from "../../lake/lake-tables.ts";
import { logger } from "../../logging/logger.ts";
import {
  expectAnsweredAfterSync,
  holdSyncs,
  PATIENT,
} from "../local-disk/held-syncs.test-support.ts";
import { createLocalDeliveryStream } from "./delivery-stream.ts";
import { recordKeys, writeAheadLine } from "./write-ahead.ts";

describe("local delivery stream", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  const lakeDir = () => join(dir, "lake");
  const walDir = () => join(dir, "wal");

  const lakeIds = async (): Promise<string[]> => {
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT event_id FROM read_parquet('${lakeDir()}/events/*/*/*.parquet') ORDER BY event_id`,
      );
      return reader.getRowsJS().map((row) => String(row[0]));
    } finally {
      connection.closeSync();
    }
  };

  /** The events stream over this test's folders. */
  const openStream = (buffering: { bufferRecords?: number; bufferIntervalMs?: number } = {}) =>
    createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir: lakeDir(),
      walDir: walDir(),
      ...buffering,
    });
  /** A put's line, as a process writes it, of one event of each id. */
  const putLine = (...eventIds: string[]) =>
    `${writeAheadLine(
      eventIds.map((eventId) => lakeEvent({ app_id: "com.a", event_id: eventId })),
      recordKeys(EVENTS_TABLE),
    )}\n`;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "stream-"));
    duckdb = await DuckDBInstance.create(":memory:");
  });

  afterEach(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps what concurrent puts acknowledged, and delivers it on flush", async () => {
    const stream = await openStream();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stream.put([lakeEvent({ app_id: "com.a", event_id: `e${String(i).padStart(2, "0")}` })]),
      ),
    );
    // Acknowledged, not yet in the lake: Parquet is written on flush.
    expect(await readdir(join(lakeDir(), "events"))).toEqual([]);
    await stream.close();
    expect(await lakeIds()).toEqual(
      Array.from({ length: 20 }, (_, i) => `e${String(i).padStart(2, "0")}`),
    );
    expect(await readdir(join(walDir(), "events"))).toEqual([]);
  });

  it("lays out a file of one partition as it lays out a file of several", async () => {
    const stream = await openStream();
    // One app's events of one UTC day, by two puts: written straight to its partition.
    await stream.put([lakeEvent({ app_id: "com.a", event_id: "one-1" })]);
    await stream.put([lakeEvent({ app_id: "com.a", event_id: "one-2", revenue: 1.5 })]);
    await stream.flush();
    // Two apps and two days in one put, and a third app in another: partitioned by DuckDB.
    await stream.put([
      lakeEvent({ app_id: "com.a", event_id: "many-1", event_time: "2026-11-02T00:00:00.000Z" }),
      lakeEvent({ app_id: "com.b", event_id: "many-2" }),
    ]);
    await stream.put([lakeEvent({ app_id: "com.c", event_id: "many-3" })]);
    await stream.close();

    const files = (await readdir(join(lakeDir(), "events"), { recursive: true }))
      .filter((file) => file.endsWith(".parquet"))
      .map((file) => file.replace(/part-[0-9a-f-]+\.parquet$/, "part.parquet"))
      .sort();
    expect(files).toEqual([
      "app_id=com.a/dt=2026-11-01/part.parquet",
      "app_id=com.a/dt=2026-11-02/part.parquet",
      "app_id=com.b/dt=2026-11-01/part.parquet",
      "app_id=com.c/dt=2026-11-01/part.parquet",
    ]);
    const connection = await duckdb.connect();
    try {
      // Each file's own columns, the partition keys left to the path.
      const reader = await connection.runAndReadAll(
        `SELECT DISTINCT string_agg(name || ' ' || type, ', ' ORDER BY name) AS columns
         FROM parquet_schema('${lakeDir()}/events/*/*/*.parquet')
         WHERE num_children IS NULL GROUP BY file_name`,
      );
      expect(reader.getRowsJS()).toHaveLength(1);
      const rows = await connection.runAndReadAll(
        `SELECT app_id, dt::VARCHAR, event_id, revenue FROM read_parquet('${lakeDir()}/events/*/*/*.parquet',
         hive_partitioning = true) ORDER BY event_id`,
      );
      expect(rows.getRowsJS()).toEqual([
        ["com.a", "2026-11-02", "many-1", null],
        ["com.b", "2026-11-01", "many-2", null],
        ["com.c", "2026-11-01", "many-3", null],
        ["com.a", "2026-11-01", "one-1", null],
        ["com.a", "2026-11-01", "one-2", 1.5],
      ]);
    } finally {
      connection.closeSync();
    }
  });

  it("lays each row in its lakeDay partition, late installs of any age too, put alone or with others", async () => {
    const stream = await openStream();
    const row = (id: string, event_time: string, received_at: string) =>
      lakeEvent({
        app_id: "com.a",
        event_id: id,
        event_name: "service_install",
        event_time,
        received_at,
      });
    const rows = [
      row("own", "2026-11-20T10:00:00.000Z", "2026-11-21T10:00:00.000Z"),
      row("floor", "2026-10-21T10:00:00.000Z", "2026-11-21T10:00:00.000Z"),
      row("month", "2026-10-19T10:00:00.000Z", "2026-11-21T10:00:00.000Z"),
      row("leap", "2024-02-03T10:00:00.000Z", "2026-11-21T10:00:00.000Z"),
      row("ahead", "2026-11-22T09:00:00.000Z", "2026-11-21T10:00:00.000Z"),
    ];
    // Several partitions in one put (DuckDB's SQL lays them), and each alone (the stream's own).
    await stream.put(rows);
    for (const one of rows) await stream.put([{ ...one, event_id: `${one.event_id}-alone` }]);
    await stream.close();
    const connection = await duckdb.connect();
    try {
      const laid = await connection.runAndReadAll(
        `SELECT event_id, dt::VARCHAR FROM read_parquet('${lakeDir()}/events/*/*/*.parquet',
         hive_partitioning = true) ORDER BY event_id`,
      );
      const expected = rows.flatMap((one) => [
        [one.event_id, lakeDay(EVENTS_TABLE, one)],
        [`${one.event_id}-alone`, lakeDay(EVENTS_TABLE, one)],
      ]);
      expect(laid.getRowsJS()).toEqual(
        expected.sort(([a], [b]) => String(a).localeCompare(String(b))),
      );
      expect(Object.fromEntries(expected)).toMatchObject({
        own: "2026-11-20",
        floor: "2026-11-20",
        month: "2026-10-31",
        leap: "2024-02-29",
        ahead: "2026-11-22",
      });
    } finally {
      connection.closeSync();
    }
  });

  it("answers a put only once the write-ahead file holding it is synced", async () => {
    const stream = await openStream();
    const syncs = await holdSyncs("sync", dir);
    try {
      await expectAnsweredAfterSync(
        syncs,
        stream.put([lakeEvent({ app_id: "com.a", event_id: "held" })]),
      );
    } finally {
      syncs.restore();
      await stream.close();
    }
    expect(await lakeIds()).toEqual(["held"]);
  });

  it("delivers on flush what was put before it, while puts keep coming during every sync", async () => {
    const stream = await openStream();
    const syncs = await holdSyncs("sync", dir);
    try {
      void stream.put([lakeEvent({ app_id: "com.a", event_id: "e0" })]);
      await vi.waitFor(() => expect(syncs.calls()).toBe(1), PATIENT);
      let flushed = false;
      void stream.flush().then(() => {
        flushed = true;
      });
      // A put during every later sync: the stream is never quiet.
      for (let group = 1; group <= 5; group++) {
        void stream.put([lakeEvent({ app_id: "com.a", event_id: `e${group}` })]);
        syncs.releaseOne();
        await vi.waitFor(() => expect(syncs.calls()).toBe(group + 1), PATIENT);
      }
      await vi.waitFor(() => expect(flushed).toBe(true), PATIENT);
      expect(await lakeIds()).toContain("e0");
    } finally {
      syncs.restore();
      await stream.close();
    }
    expect(await lakeIds()).toEqual(["e0", "e1", "e2", "e3", "e4", "e5"]);
  });

  it("delivers a dead process's write-ahead file on start, skipping a torn last line", async () => {
    const events = join(walDir(), "events");
    await mkdir(events, { recursive: true });
    const whole = putLine("kept-1") + putLine("kept-2");
    // pid 2^22 + 1 is above Linux's pid limit: that process is surely gone.
    await writeFile(
      join(events, "4194305-1-0.ndjson"),
      `${whole}{"shared":{"event_id":"torn","app_`,
    );
    const stream = await openStream();
    expect(await lakeIds()).toEqual(["kept-1", "kept-2"]);
    expect(await readdir(events)).toEqual([]);
    await stream.close();
  });

  it("delivers on start a file of its own pid, which a process before it had", async () => {
    // A container's service runs as the same pid every time it starts.
    const events = join(walDir(), "events");
    await mkdir(events, { recursive: true });
    await writeFile(join(events, `${process.pid}-1-0.ndjson`), putLine("same-pid"));
    const stream = await openStream();
    expect(await lakeIds()).toEqual(["same-pid"]);
    expect(await readdir(events)).toEqual([]);
    await stream.close();
  });

  it("takes at a flush no file of its own process but those it closed", async () => {
    const stream = await openStream();
    await stream.put([lakeEvent({ app_id: "com.a", event_id: "put" })]);
    // Named as this process names its files: appends may still be reaching such a file.
    const events = join(walDir(), "events");
    const own = `${process.pid}-${Date.now()}-999.ndjson`;
    await writeFile(join(events, own), putLine("not-closed"));
    await stream.flush();
    expect(await lakeIds()).toEqual(["put"]);
    expect(await readdir(events)).toEqual([own]);
    await stream.close();
  });

  it("clears on start the staging a dead process left, and no one else's", async () => {
    const staging = join(lakeDir(), ".staging");
    const left = ["4194305-events-a", `${process.ppid}-events-b`, "4194305-touches-c"];
    for (const name of left) await mkdir(join(staging, name, "app_id=com.a"), { recursive: true });
    const stream = await openStream();
    // A living process's delivery, and another table's, are theirs to finish.
    expect((await readdir(staging)).sort()).toEqual(
      [`${process.ppid}-events-b`, "4194305-touches-c"].sort(),
    );
    await stream.close();
  });

  it("delivers once the buffer holds its number of records, with no flush", async () => {
    // No interval passes in the test: the buffer's size alone delivers.
    const stream = await openStream({ bufferRecords: 3, bufferIntervalMs: 600_000 });
    await stream.put([lakeEvent({ app_id: "com.a", event_id: "b1" })]);
    await stream.put([
      lakeEvent({ app_id: "com.a", event_id: "b2" }),
      lakeEvent({ app_id: "com.a", event_id: "b3" }),
    ]);
    await expect.poll(lakeIds).toEqual(["b1", "b2", "b3"]);
    await stream.close();
  });

  it("delivers what it holds when its interval passes, with no flush", async () => {
    const stream = await openStream({ bufferIntervalMs: 50 });
    await stream.put([lakeEvent({ app_id: "com.a", event_id: "timed" })]);
    await expect.poll(lakeIds).toEqual(["timed"]);
    await stream.close();
  });

  it("delivers the file of a process still dying when the stream started, at a later flush", async () => {
    const events = join(walDir(), "events");
    await mkdir(events, { recursive: true });
    // A process alive while the stream starts, gone by its next flush.
    const dying = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    const exited = once(dying, "exit");
    await writeFile(join(events, `${dying.pid}-1-0.ndjson`), putLine("late-1"));
    const stream = await openStream();
    // Not taken at the start: its process was alive.
    expect(await readdir(events)).toEqual([`${dying.pid}-1-0.ndjson`]);
    dying.kill("SIGKILL");
    await exited;
    await stream.flush();
    expect(await lakeIds()).toEqual(["late-1"]);
    expect(await readdir(events)).toEqual([]);
    await stream.close();
  });

  it("leaves nothing in the staging folder when a delivery fails, and keeps the file to retry", async () => {
    const events = join(walDir(), "events");
    await mkdir(events, { recursive: true });
    // Written by hand past the stream's checks: DuckDB's strict read of the time fails.
    const bad = `${writeAheadLine(
      [lakeEvent({ app_id: "com.a", event_time: "not a time" })],
      recordKeys(EVENTS_TABLE),
    )}\n`;
    await writeFile(join(events, "4194305-1-0.ndjson"), bad);
    const failed = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    try {
      const stream = await openStream();
      expect(failed).toHaveBeenCalled();
      expect(await readdir(join(lakeDir(), ".staging"))).toEqual([]);
      expect(await readdir(events)).toContain("4194305-1-0.ndjson");
      await stream.close().catch(() => undefined);
    } finally {
      failed.mockRestore();
    }
  });

  it("refuses a put holding a record that does not fit the table, before writing any of it", async () => {
    const stream = await openStream();
    await expect(stream.put([lakeEvent({ app_id: "../etc" })])).rejects.toThrow(/app_id/);
    await expect(
      stream.put([lakeEvent({ app_id: "com.a", event_time: "yesterday" })]),
    ).rejects.toThrow(/event_time: expected timestamp/);
    // Delivery would fail on the text, and every file after it would wait.
    await expect(
      stream.put([
        lakeEvent({ app_id: "com.a", event_id: "fits" }),
        lakeEvent({ app_id: "com.a", event_id: "text", revenue: "4.99" }),
      ]),
    ).rejects.toThrow(/revenue: expected double/);
    await stream.put([lakeEvent({ app_id: "com.a", event_id: "after" })]);
    await stream.close();
    expect(await lakeIds()).toEqual(["after"]);
  });
});
