import { once } from "node:events";
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeAttribution, lakeEvent } from "../../../test/support/records.ts";
import { UnavailableError } from "../../domain/errors.ts";
import type { EngineEncoding } from "../../export/formats/writer.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE } from "../../lake/lake-tables.ts";
import type { SnapshotLocation } from "../../ports/lake.ts";
import type { ExportRecord } from "../../record/columns.ts";
import { COLUMN_NAMES } from "../../record/columns.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import {
  createDuckDbQueryEngine,
  type DiskBudget,
  type DuckDbQueryEngine,
} from "./query-engine.ts";
import { createReadWriteLock } from "./read-write-lock.ts";
import { partsOf } from "./snapshot-parts.ts";

const text = async (body: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
};

const collect = async (rows: AsyncIterable<ExportRecord>) => {
  const out: ExportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
};

const NUMERIC_LOOKING_APPS = ["123456789", "0x1F", "2026-01-01"];

describe("DuckDB query engine over the local lake", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  let engine: ReturnType<typeof createDuckDbQueryEngine>;
  const lakeFiles = createReadWriteLock();

  /** A page DuckDB writes itself; these snapshots are all of the current layout. */
  const encoded = async (
    snapshot: SnapshotLocation,
    offset: number,
    limit: number,
    encoding: EngineEncoding,
  ) => {
    const page = await engine.encodePage(snapshot, offset, limit, encoding);
    if (!page) throw new Error("DuckDB declined the page");
    return page;
  };

  /** An engine over the test's lake and folders, with `options` added. */
  const engineWith = (
    options: Partial<Parameters<typeof createDuckDbQueryEngine>[0]> = {},
  ): DuckDbQueryEngine =>
    createDuckDbQueryEngine({
      duckdb,
      lakeDir: join(dir, "lake"),
      snapshotDir: join(dir, "snapshots"),
      pageDir: join(dir, "pages"),
      lakeFiles,
      ...options,
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lake-"));
    duckdb = await DuckDBInstance.create(":memory:");
    const lakeDir = join(dir, "lake");
    const walDir = join(dir, "wal");
    engine = engineWith();
    const events = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir,
      walDir,
    });
    const attributions = await createLocalDeliveryStream({
      table: ATTRIBUTIONS_TABLE,
      duckdb,
      lakeDir,
      walDir,
    });
    const app = "com.example.a";
    await events.put([
      lakeEvent({
        app_id: app,
        event_id: "e3",
        service_id: "s1",
        event_time: "2026-11-02T10:00:00.000Z",
      }),
      lakeEvent({
        app_id: app,
        event_id: "e1",
        service_id: "s1",
        event_time: "2026-11-01T10:00:00.000Z",
        revenue: 4.99,
        currency: "EUR",
        revenue_usd: 5.4,
      }),
      lakeEvent({
        app_id: app,
        event_id: "e2",
        service_id: "s2",
        event_time: "2026-11-01T10:00:00.000Z",
      }),
      lakeEvent({
        app_id: app,
        event_id: "e0",
        service_id: "s2",
        event_time: "2026-10-30T10:00:00.000Z",
      }),
      lakeEvent({
        app_id: "com.example.b",
        event_id: "b1",
        event_time: "2026-11-01T10:00:00.000Z",
      }),
      // App ids DuckDB would read from a path as a number, a hex number and a date.
      ...NUMERIC_LOOKING_APPS.map((id) =>
        lakeEvent({ app_id: id, event_id: `n-${id}`, event_time: "2026-11-01T10:00:00.000Z" }),
      ),
    ]);
    await events.flush();
    // The same event delivered twice (an SDK retry): it must come out once.
    await events.put([
      lakeEvent({
        app_id: app,
        event_id: "e3",
        service_id: "s1",
        event_time: "2026-11-02T10:00:00.000Z",
      }),
    ]);
    await events.close();
    await attributions.put([
      lakeAttribution({
        app_id: app,
        service_id: "s1",
        media_source: "organic",
        attributed_at: "2026-11-01T09:00:00.000Z",
      }),
      lakeAttribution({
        app_id: app,
        service_id: "s1",
        media_source: "meta_ads",
        campaign_id: "c-9",
        click_to_first_open_hours: 3,
        matching_type: "network",
        confidence_score: "high",
        attributed_at: "2026-11-01T09:30:00.000Z",
      }),
    ]);
    await attributions.close();
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("materialises the app's events since the timestamp, once each, in export order", async () => {
    const snapshot = await engine.materialize({
      appId: "com.example.a",
      since: new Date("2026-11-01T00:00:00Z"),
      snapshotId: "s-1",
    });
    expect(snapshot.rowCount).toBe(3);
    const rows = await collect(engine.readPage(snapshot, 0, 10));
    expect(rows.map((r) => r.event_id)).toEqual(["e1", "e2", "e3"]);
    expect(Object.keys(rows[0] ?? {})).toEqual(COLUMN_NAMES);
    expect(rows[0]).toMatchObject({
      event_time: "2026-11-01T10:00:00.000Z",
      app_id: "com.example.a",
      revenue: 4.99,
      currency: "EUR",
      revenue_usd: 5.4,
    });
  });

  it("exports an app id as the text it is, whatever it looks like", async () => {
    for (const appId of NUMERIC_LOOKING_APPS) {
      const snapshot = await engine.materialize({
        appId,
        since: new Date("2026-11-01T00:00:00Z"),
        snapshotId: `s-id-${appId}`,
      });
      expect(await collect(engine.readPage(snapshot, 0, 10))).toEqual([
        expect.objectContaining({ app_id: appId, event_id: `n-${appId}` }),
      ]);
      const page = await encoded(snapshot, 0, 10, "ndjson");
      expect(JSON.parse(await text(page.body))).toMatchObject({ app_id: appId });
    }
  });

  it("joins the latest attribution of the install, and nulls when there is none", async () => {
    const snapshot = await engine.materialize({
      appId: "com.example.a",
      since: new Date("2026-11-01T00:00:00Z"),
      snapshotId: "s-2",
    });
    const [e1, e2] = await collect(engine.readPage(snapshot, 0, 2));
    expect(e1).toMatchObject({
      media_source: "meta_ads",
      campaign_id: "c-9",
      click_to_first_open_hours: 3,
      matching_type: "network",
      confidence_score: "high",
    });
    expect(e2?.media_source).toBeNull();
    expect(e2?.click_to_first_open_hours).toBeNull();
  });

  it("slices pages of the snapshot by offset and limit", async () => {
    const snapshot = await engine.materialize({
      appId: "com.example.a",
      since: new Date("2026-10-01T00:00:00Z"),
      snapshotId: "s-3",
    });
    const page1 = await collect(engine.readPage(snapshot, 0, 2));
    const page2 = await collect(engine.readPage(snapshot, 2, 2));
    const page3 = await collect(engine.readPage(snapshot, 4, 2));
    expect([...page1, ...page2].map((r) => r.event_id)).toEqual(["e0", "e1", "e2", "e3"]);
    expect(page3).toEqual([]);
  });

  /** Events of `app`'s install s1, [id, time, received], a lake file a delivery. */
  const deliver = async (app: string, walName: string, deliveries: string[][][]) => {
    const events = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir: join(dir, "lake"),
      walDir: join(dir, walName),
    });
    for (const [index, delivery] of deliveries.entries()) {
      if (index > 0) await events.flush();
      await events.put(
        delivery.map(([eventId, eventTime, receivedAt]) =>
          lakeEvent({
            app_id: app,
            event_id: eventId,
            service_id: "s1",
            event_time: eventTime,
            received_at: receivedAt,
          }),
        ),
      );
    }
    await events.close();
  };

  /**
   * `app`'s window made whole (one part, sorted at once) and made a part at a time by `inParts`:
   * the same rows (id and time) in the same order, `parts` parts, and the page at [from, from +
   * 3) that DuckDB writes itself, across the parts.
   */
  const expectMadeAlike = async (
    app: string,
    inParts: DuckDbQueryEngine,
    expected: { rows: string[][]; parts: number; page: string[]; from: number },
    since = new Date(0),
  ) => {
    for (const [made, maker] of [
      ["whole", engine],
      ["in parts", inParts],
    ] as const) {
      const snapshot = await maker.materialize({
        appId: app,
        since,
        snapshotId: `${app}-${made}`,
      });
      const all = await collect(maker.readPage(snapshot, 0, 10));
      expect(
        all.map((r) => [r.event_id, r.event_time]),
        made,
      ).toEqual(expected.rows);
      // Read to its end, the snapshot is whole.
      const parts = (await readdir(snapshot.location)).filter((name) => name.endsWith(".parquet"));
      expect(parts.length, made).toBe(made === "whole" ? 1 : expected.parts);
      // Its size, which a window made in parts may not have given with its first page.
      if (made === "whole") expect(snapshot.rowCount).toBe(expected.rows.length);
      expect(await maker.rowCountOf?.(snapshot), made).toBe(expected.rows.length);
      const page = await maker.encodePage(snapshot, expected.from, 3, "ndjson");
      if (!page) throw new Error("DuckDB declined the page");
      const lines = (await text(page.body)).trim().split("\n");
      expect(
        lines.map((line) => JSON.parse(line).event_id),
        made,
      ).toEqual(expected.page);
    }
  };

  const madeInParts = (sliceRows?: number) =>
    engineWith({ wholeBelowBytes: 0, ...(sliceRows === undefined ? {} : { sliceRows }) });

  it("keeps an event sent again on another day once, on the day of its first copy", async () => {
    const app = "com.example.days";
    // x1's first copy names 3 November; a later copy of it, 1 November.
    await deliver(app, "wal-cross-day", [
      [
        ["x1", "2026-11-03T08:00:00.000Z", "2026-11-03T08:00:01.000Z"],
        ["x0", "2026-11-01T09:00:00.000Z", "2026-11-01T09:00:01.000Z"],
        ["x2", "2026-11-02T09:00:00.000Z", "2026-11-02T09:00:01.000Z"],
        ["x3", "2026-11-03T09:00:00.000Z", "2026-11-03T09:00:01.000Z"],
      ],
      [["x1", "2026-11-01T08:00:00.000Z", "2026-11-04T08:00:00.000Z"]],
    ]);
    // A part a day, the event left out of the days after its first copy's.
    await expectMadeAlike(app, madeInParts(), {
      rows: [
        ["x0", "2026-11-01T09:00:00.000Z"],
        ["x2", "2026-11-02T09:00:00.000Z"],
        ["x1", "2026-11-03T08:00:00.000Z"],
        ["x3", "2026-11-03T09:00:00.000Z"],
      ],
      parts: 3,
      from: 1,
      page: ["x2", "x1", "x3"],
    });
  });

  it("makes a day in slices of time, an event sent again at another time kept once", async () => {
    const app = "com.example.slices";
    const at = (time: string) => `2026-11-05T${time}.000Z`;
    // Three deliveries, three files of one row group each, one after the other in time: y1 is
    // sent again at 10:00, a slice after its first copy's, and y4 again at its own time (an
    // SDK's retry).
    await deliver(app, "wal-slices", [
      [
        ["y1", at("08:00:00"), at("08:00:01")],
        ["y2", at("08:30:00"), at("08:30:01")],
      ],
      [
        ["y3", at("10:00:00"), at("10:00:01")],
        ["y1", at("10:00:00"), at("10:00:05")],
      ],
      [
        ["y4", at("12:00:00"), at("12:00:01")],
        ["y5", at("12:30:00"), at("12:30:01")],
        ["y4", at("12:00:00"), at("12:00:09")],
      ],
    ]);
    // A part a slice: 08:00 to 10:00, 10:00 to 12:00, and from 12:00.
    await expectMadeAlike(app, madeInParts(1), {
      rows: [
        ["y1", at("08:00:00")],
        ["y2", at("08:30:00")],
        ["y3", at("10:00:00")],
        ["y4", at("12:00:00")],
        ["y5", at("12:30:00")],
      ],
      parts: 3,
      from: 1,
      page: ["y2", "y3", "y4"],
    });
    // Slices of three rows or more, but the window's first a row group alone (the first page
    // waits for it only): 08:00 to 10:00, then the rest.
    const maker = madeInParts(3);
    const firstSmall = await maker.materialize({
      appId: app,
      since: new Date(0),
      snapshotId: `${app}-first-small`,
    });
    await collect(maker.readPage(firstSmall, 0, 10));
    expect((await partsOf(firstSmall.location)).map((part) => [part.first, part.end])).toEqual([
      [0, 2],
      [2, 5],
    ]);
  });

  it("leaves out of a window an event sent again whose first copy is dated before it", async () => {
    const app = "com.example.retried";
    // The copies of an event sent again, dated apart by the phone's clock: z1's first on the
    // day before the window, z4's the same day but before it; z2's later copy dated earlier.
    await deliver(app, "wal-retried", [
      [
        ["z1", "2026-11-09T23:30:00.000Z", "2026-11-09T23:30:01.000Z"],
        ["z4", "2026-11-10T00:10:00.000Z", "2026-11-10T00:10:01.000Z"],
        ["z2", "2026-11-10T08:00:00.000Z", "2026-11-10T08:00:01.000Z"],
        ["z3", "2026-11-10T10:00:00.000Z", "2026-11-10T10:00:01.000Z"],
      ],
      [
        ["z1", "2026-11-10T00:45:00.000Z", "2026-11-10T10:00:05.000Z"],
        ["z4", "2026-11-10T01:00:00.000Z", "2026-11-10T10:00:06.000Z"],
        ["z2", "2026-11-10T07:00:00.000Z", "2026-11-10T10:00:07.000Z"],
      ],
    ]);
    await expectMadeAlike(
      app,
      madeInParts(),
      {
        rows: [
          ["z2", "2026-11-10T08:00:00.000Z"],
          ["z3", "2026-11-10T10:00:00.000Z"],
        ],
        parts: 1,
        from: 0,
        page: ["z2", "z3"],
      },
      new Date("2026-11-10T00:30:00.000Z"),
    );
  });

  it("exports a number that is not finite as null, in rows and in pages it writes itself", async () => {
    // JSON cannot carry one, but a Parquet file in the lake can: a copy of an app's file with
    // infinite and NaN revenue, as another app's.
    const lake = join(dir, "lake", "events");
    const connection = await duckdb.connect();
    await mkdir(join(lake, "app_id=com.example.inf", "dt=2026-11-01"), { recursive: true });
    await connection.run(
      `COPY (SELECT * REPLACE (CAST('Infinity' AS DOUBLE) AS revenue, CAST('NaN' AS DOUBLE) AS revenue_usd)
         FROM read_parquet('${lake}/app_id=com.example.a/*/*.parquet', hive_partitioning = false) LIMIT 1)
       TO '${lake}/app_id=com.example.inf/dt=2026-11-01/part-inf.parquet' (FORMAT parquet)`,
    );
    connection.closeSync();
    const snapshot = await engine.materialize({
      appId: "com.example.inf",
      since: new Date(0),
      snapshotId: "s-inf",
    });
    const [row] = await collect(engine.readPage(snapshot, 0, 1));
    expect(row).toMatchObject({ revenue: null, revenue_usd: null });
    const page = await encoded(snapshot, 0, 1, "ndjson");
    expect(JSON.parse(await text(page.body))).toMatchObject({
      revenue: null,
      revenue_usd: null,
    });
  });

  it("answers an app with no data with an empty snapshot", async () => {
    const snapshot = await engine.materialize({
      appId: "com.example.none",
      since: new Date(0),
      snapshotId: "s-4",
    });
    expect(snapshot.rowCount).toBe(0);
    expect(await collect(engine.readPage(snapshot, 0, 10))).toEqual([]);
  });

  it("writes a page itself in the slice's order, and leaves no page file on disk", async () => {
    const snapshot = await engine.materialize({
      appId: "com.example.a",
      since: new Date("2026-10-01T00:00:00Z"),
      snapshotId: "s-5",
    });
    const pageFiles = async () => readdir(join(dir, "pages")).catch(() => []);
    const page = await encoded(snapshot, 1, 2, "ndjson");
    expect(page.rowCount).toBe(2);
    // Unlinked once opened: a slow client, a crash or a purge never finds the page's records.
    expect(await pageFiles()).toEqual([]);
    const lines = (await text(page.body)).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).event_id)).toEqual(["e1", "e2"]);

    const dropped = await encoded(snapshot, 0, 10, "csv");
    const closed = once(dropped.body, "close");
    dropped.body.destroy();
    await closed;
    expect(await pageFiles()).toEqual([]);
  });

  it("leaves a page past the last row to the service's writers", async () => {
    const snapshot = await engine.materialize({
      appId: "com.example.a",
      since: new Date("2026-10-01T00:00:00Z"),
      snapshotId: "s-6",
    });
    expect(snapshot.rowCount).toBeGreaterThan(0);
    expect(await engine.encodePage(snapshot, snapshot.rowCount ?? 0, 10, "csv")).toBeUndefined();
    expect(await collect(engine.readPage(snapshot, snapshot.rowCount ?? 0, 10))).toEqual([]);
  });

  it("refuses a snapshot past its disk budget with a 503, leaving nothing half-written", async () => {
    const budgeted = (diskBudget: DiskBudget) => engineWith({ diskBudget });
    const request = { appId: "com.example.a", since: new Date(0) };
    const before = await readdir(join(dir, "snapshots"));
    // A byte more than the snapshots already made take: refused once the first part is written.
    let used = 0;
    for (const name of await readdir(join(dir, "snapshots"), { recursive: true })) {
      const info = await stat(join(dir, "snapshots", name));
      if (info.isFile()) used += info.size;
    }
    const spent = budgeted({
      snapshotBytes: used + 1,
      reserveBytes: 0,
      pruneAfterMs: 30 * 60_000,
      pruneEveryMs: 60_000,
    });
    const refused = await spent
      .materialize({ ...request, snapshotId: "over-budget" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnavailableError);
    expect((refused as UnavailableError).statusCode).toBe(503);
    // Until the oldest snapshot is pruned, and a pruning interval more.
    expect((refused as UnavailableError).retryAfterSeconds).toBeGreaterThan(29 * 60 + 59);
    expect((refused as UnavailableError).retryAfterSeconds).toBeLessThanOrEqual(31 * 60);
    // A disk whose free space is under the reserve: refused as well.
    const full = budgeted({
      snapshotBytes: Number.MAX_SAFE_INTEGER,
      reserveBytes: Number.MAX_SAFE_INTEGER,
      pruneAfterMs: 0,
      pruneEveryMs: 60_000,
    });
    await expect(full.materialize({ ...request, snapshotId: "disk-full" })).rejects.toThrow(
      UnavailableError,
    );
    expect(await readdir(join(dir, "snapshots"))).toEqual(before);
    // Within budget, the same window is made.
    const roomy = budgeted({
      snapshotBytes: 2 ** 40,
      reserveBytes: 0,
      pruneAfterMs: 0,
      pruneEveryMs: 60_000,
    });
    expect((await roomy.materialize({ ...request, snapshotId: "fits" })).rowCount).toBe(4);
  });

  it("makes a snapshot only while no lake file is being put in place", async () => {
    let putInPlace = () => {};
    const purging = lakeFiles.write(
      () =>
        new Promise<void>((resolve) => {
          putInPlace = resolve;
        }),
    );
    let made = false;
    const making = engine
      .materialize({ appId: "com.example.a", since: new Date(0), snapshotId: "after-purge" })
      .then(() => {
        made = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(made).toBe(false);
    putInPlace();
    await purging;
    await making;
    expect(made).toBe(true);
  });
});
