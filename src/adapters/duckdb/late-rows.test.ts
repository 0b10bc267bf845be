/**
 * Rows taken days after their own day, as SDKs' offline queues send them: 20 apps each sending
 * events of 31 different days (and one a few hours ahead of the clock) at once. Both streams
 * name the same partitions, within the bound of OPEN_PARTITIONS_PER_APP an app whatever the
 * days, and the embedded lake reads them back whole: the export, made whole or a day at a
 * time in slices, holds each event once in time order, and a report of some days counts
 * each of their events once.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FirehoseClient, PutRecordBatchCommand } from "@aws-sdk/client-firehose";
import { DuckDBInstance } from "@duckdb/node-api";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { DAY_MS, HOUR_MS } from "../../domain/time.ts";
import {
  EVENTS_TABLE,
  type LakeRecord,
  OPEN_PARTITIONS_PER_APP,
  PARTITION_DAY_KEY,
} from "../../lake/lake-tables.ts";
import type { ExportRecord } from "../../record/columns.ts";
import { createFirehoseStream } from "../firehose/record-stream.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { createDuckDbQueryEngine } from "./query-engine.ts";
import { createReadWriteLock } from "./read-write-lock.ts";
import { createDuckDbReportEngine } from "./reports.ts";

const appOf = (n: number) => `com.example.late${n}`;
const APPS = Array.from({ length: 20 }, (_, n) => appOf(n));
/** When every event is taken: the oldest is 30 days before, as old as ingestion accepts. */
const RECEIVED = Date.parse("2026-11-29T10:00:00.000Z");
const DAYS = 31;
const PER_DAY = 3;

/** An app's events: PER_DAY on each of the DAYS days up to RECEIVED's, and one ahead of it. */
const eventsOf = (app: string): LakeRecord[] => {
  const times: number[] = [];
  for (let back = DAYS - 1; back >= 0; back--) {
    const day = Date.parse("2026-11-29T00:00:00.000Z") - back * DAY_MS;
    for (let n = 0; n < PER_DAY; n++) times.push(day + (12 + n) * HOUR_MS);
  }
  times.push(RECEIVED + 20 * HOUR_MS);
  return times.map((at, n) =>
    lakeEvent({
      app_id: app,
      event_id: `${app}-${n}`,
      service_id: `${app}-install`,
      event_time: new Date(at).toISOString(),
      received_at: new Date(RECEIVED + n).toISOString(),
    }),
  );
};

const collect = async (rows: AsyncIterable<ExportRecord>) => {
  const out: ExportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
};

describe("rows taken late", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  const lakeFiles = createReadWriteLock();
  const sent = new Map(APPS.map((app) => [app, eventsOf(app)]));
  const all = [...sent.values()].flat();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "late-rows-"));
    duckdb = await DuckDBInstance.create(":memory:");
    const stream = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir: join(dir, "lake"),
      walDir: join(dir, "wal"),
    });
    // One put: every app's events of every day open their partitions at once.
    await stream.put(all);
    await stream.close();
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  /** The embedded lake's partitions, `app/day`. */
  const lakePartitions = async () => {
    const table = join(dir, "lake", "events");
    const found: string[] = [];
    for (const app of await readdir(table)) {
      for (const day of await readdir(join(table, app))) {
        found.push(`${app.replace("app_id=", "")}/${day.replace("dt=", "")}`);
      }
    }
    return found.sort();
  };

  it("open the same partitions on both streams, within the bound whatever their days", async () => {
    const firehose = new FirehoseClient({ region: "eu-west-1" });
    const mock = mockClient(firehose);
    mock.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0 });
    await createFirehoseStream({ firehose, streamName: "events", table: EVENTS_TABLE }).put(all);
    // The keys the delivery stream's partitioning query reads (lib/lake-streams.ts).
    const keys = new Set<string>();
    for (const call of mock.commandCalls(PutRecordBatchCommand)) {
      for (const record of call.args[0].input.Records ?? []) {
        for (const line of Buffer.from(record.Data ?? [])
          .toString("utf8")
          .split("\n")) {
          if (line === "") continue;
          const parsed = JSON.parse(line) as LakeRecord;
          keys.add(`${parsed.app_id}/${parsed[PARTITION_DAY_KEY]}`);
        }
      }
    }
    const partitions = await lakePartitions();
    expect([...keys].sort()).toEqual(partitions);
    // Yesterday's (every day before it), today's and tomorrow's: 32 days in 3 partitions.
    expect(partitions.filter((p) => p.startsWith(`${appOf(0)}/`))).toEqual([
      `${appOf(0)}/2026-11-28`,
      `${appOf(0)}/2026-11-29`,
      `${appOf(0)}/2026-11-30`,
    ]);
    expect(partitions.length).toBeLessThanOrEqual(APPS.length * OPEN_PARTITIONS_PER_APP);
  });

  it.each([
    ["made whole", "whole", {}],
    ["made a day at a time, in slices", "sliced", { wholeBelowBytes: 0, sliceRows: 2 }],
  ])("export whole, once each, in time order, %s", async (_, made, options) => {
    const engine = createDuckDbQueryEngine({
      duckdb,
      lakeDir: join(dir, "lake"),
      snapshotDir: join(dir, "snapshots"),
      pageDir: join(dir, "pages"),
      lakeFiles,
      ...options,
    });
    for (const app of [appOf(0), appOf(19)]) {
      const snapshot = await engine.materialize({
        appId: app,
        since: new Date("2026-10-01T00:00:00.000Z"),
        snapshotId: `${app}-${made}`,
      });
      const rows = await collect(engine.readPage(snapshot, 0, 1_000));
      const events = sent.get(app) ?? [];
      expect(rows.map((row) => row.event_id)).toEqual(events.map((event) => event.event_id));
      expect(rows.map((row) => row.event_time)).toEqual(events.map((event) => event.event_time));
    }
    // A window from a day reads the late rows of that day and none before it.
    const since = new Date("2026-11-20T13:00:00.000Z");
    const snapshot = await engine.materialize({
      appId: appOf(3),
      since,
      snapshotId: `since-${made}`,
    });
    const rows = await collect(engine.readPage(snapshot, 0, 1_000));
    const expected = (sent.get(appOf(3)) ?? []).filter(
      (event) => Date.parse(String(event.event_time)) >= since.getTime(),
    );
    expect(rows.map((row) => row.event_id)).toEqual(expected.map((event) => event.event_id));
  });

  it("are counted by a report of their days, each once", async () => {
    const reports = createDuckDbReportEngine({ duckdb, lakeDir: join(dir, "lake"), lakeFiles });
    const report = await reports.overview({
      appId: appOf(5),
      from: "2026-11-01",
      to: "2026-11-10",
      excludeServiceIds: [],
    });
    expect(report.totals.events).toBe(10 * PER_DAY);
    expect(report.events_by_day.map((day) => [day.date, day.events])).toEqual(
      Array.from({ length: 10 }, (_, i) => [`2026-11-${String(i + 1).padStart(2, "0")}`, PER_DAY]),
    );
  });
});
