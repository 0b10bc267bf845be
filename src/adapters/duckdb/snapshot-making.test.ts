/**
 * A large window's snapshot is made a day at a time while its first pages are served: the
 * first page is answered once the first day is written, a later page waits for its day, a
 * making that fails halfway fails the pages it had not written, and a snapshot whose making
 * stopped with its process is refused rather than served in part.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { UnavailableError, ValidationError } from "../../domain/errors.ts";
import { EVENTS_TABLE } from "../../lake/lake-tables.ts";
import type { ExportRecord } from "../../record/columns.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { createDuckDbQueryEngine, type DiskBudget } from "./query-engine.ts";
import { createReadWriteLock } from "./read-write-lock.ts";
import { SnapshotMaking } from "./snapshot-making.ts";
import { COMPLETE, partsOf } from "./snapshot-parts.ts";

type Listing = { parts: unknown[]; complete: boolean };
/**
 * What a read of a snapshot's files answers instead, if set (once): the interleaving of a page
 * with a making that ends while its files are read, made to happen.
 */
const listing = vi.hoisted(() => ({
  instead: undefined as undefined | ((read: Listing) => Promise<Listing>),
}));
vi.mock("./snapshot-parts.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./snapshot-parts.ts")>();
  return {
    ...actual,
    readSnapshot: async (location: string) => {
      const read = await actual.readSnapshot(location);
      const instead = listing.instead;
      listing.instead = undefined;
      return instead ? ((await instead(read)) as typeof read) : read;
    },
  };
});

const APP = "com.example.days";
/** Events on each of these days, two a day, so the window's parts hold 2, 2, 2 and 2 rows. */
const DAYS = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"];
const IDS = DAYS.flatMap((day) => [`${day}-a`, `${day}-b`]);

const collect = async (rows: AsyncIterable<ExportRecord>) => {
  const out: ExportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
};

describe("a snapshot made while its first pages are served", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  const lakeFiles = createReadWriteLock();
  const snapshotDir = () => join(dir, "snapshots");
  const engineWith = (options: { diskBudget?: DiskBudget } = {}) =>
    createDuckDbQueryEngine({
      duckdb,
      lakeDir: join(dir, "lake"),
      snapshotDir: snapshotDir(),
      pageDir: join(dir, "pages"),
      lakeFiles,
      // Every window is "large": answered from its first day.
      wholeBelowBytes: 0,
      ...options,
    });
  const request = (snapshotId: string) => ({ appId: APP, since: new Date(0), snapshotId });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "making-"));
    duckdb = await DuckDBInstance.create(":memory:");
    const events = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir: join(dir, "lake"),
      walDir: join(dir, "wal"),
    });
    await events.put(
      IDS.map((id) =>
        lakeEvent({
          app_id: APP,
          event_id: id,
          event_time: `${id.slice(0, 10)}T${id.endsWith("a") ? "08" : "09"}:00:00.000Z`,
        }),
      ),
    );
    await events.close();
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers once the first day is written, and a later page waits for its day", async () => {
    const engine = engineWith();
    const snapshot = await engine.materialize(request("progressive"));
    // The window's size is not known yet: the other days are still being written.
    expect(snapshot.rowCount).toBeUndefined();
    expect((await partsOf(snapshot.location)).length).toBeLessThan(DAYS.length);
    // Asked at once, before their days are written.
    const [last, page, beyond] = await Promise.all([
      collect(engine.readPage(snapshot, 6, 10)),
      engine.encodePage(snapshot, 2, 4, "ndjson"),
      engine.encodePage(snapshot, 8, 10, "csv"),
    ]);
    expect(last.map((row) => row.event_id)).toEqual(IDS.slice(6));
    const lines: string[] = [];
    for await (const chunk of page?.body ?? []) lines.push(...String(chunk).trim().split("\n"));
    expect(lines.map((line) => JSON.parse(line).event_id)).toEqual(IDS.slice(2, 6));
    expect(page?.rowCount).toBe(4);
    // Past the last row: the service's writers write the empty page.
    expect(beyond).toBeUndefined();
    expect(await readdir(snapshot.location)).toContain(COMPLETE);
    expect((await collect(engine.readPage(snapshot, 0, 10))).map((row) => row.event_id)).toEqual(
      IDS,
    );
  });

  it("makes a small window whole before its first page, which then gives its size", async () => {
    const engine = createDuckDbQueryEngine({
      duckdb,
      lakeDir: join(dir, "lake"),
      snapshotDir: snapshotDir(),
      pageDir: join(dir, "pages"),
      lakeFiles,
    });
    const snapshot = await engine.materialize(request("whole"));
    expect(snapshot.rowCount).toBe(IDS.length);
    expect(await readdir(snapshot.location)).toContain(COMPLETE);
  });

  it("fails the pages it had not written when the disk budget stops it halfway", async () => {
    // The budget: what the snapshots take now, and one day's part more (the parts of this
    // window are alike), so the second part takes it past.
    const used = async () => {
      let bytes = 0;
      for (const name of await readdir(snapshotDir(), { recursive: true })) {
        const info = await stat(join(snapshotDir(), String(name)));
        if (info.isFile()) bytes += info.size;
      }
      return bytes;
    };
    const measuring = engineWith();
    const whole = await measuring.materialize(request("measure"));
    await collect(measuring.readPage(whole, 0, IDS.length));
    const [firstPart] = await partsOf(whole.location);
    const partBytes = (await stat(firstPart?.path ?? "")).size;
    const engine = engineWith({
      diskBudget: {
        snapshotBytes: (await used()) + partBytes + 1,
        reserveBytes: 0,
        pruneAfterMs: 30 * 60_000,
        pruneEveryMs: 60_000,
      },
    });
    const snapshot = await engine.materialize(request("halfway"));
    expect(snapshot.rowCount).toBeUndefined();
    const failed = await collect(engine.readPage(snapshot, 2, 2)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(UnavailableError);
    expect((failed as UnavailableError).statusCode).toBe(503);
    expect((failed as UnavailableError).retryAfterSeconds).toBeGreaterThan(0);
    // Nothing of it is left, and every later page gets the same answer.
    expect(await readdir(snapshotDir())).not.toContain("halfway.v5");
    await expect(engine.encodePage(snapshot, 0, 2, "csv")).rejects.toThrow(UnavailableError);
    // Pruning forgets the failure once it is older than the snapshots pruned.
    await engine.prune(new Date(Date.now() + 1000));
    await expect(engine.encodePage(snapshot, 0, 2, "csv")).rejects.toThrow(ValidationError);
  });

  it("serves the last page of a making that ends while the page's files are listed", async () => {
    const engine = engineWith();
    const snapshot = await engine.materialize(request("ending"));
    expect(snapshot.rowCount).toBeUndefined();
    // The page's wait ends with the last day's part, before the making marks itself complete;
    // the files are listed then, without the mark, and the making ends (marked, and forgotten)
    // before the listing is read.
    listing.instead = async (read) => {
      await engine.stop();
      expect(await readdir(snapshot.location)).toContain(COMPLETE);
      return { ...read, complete: false };
    };
    const rows = await collect(engine.readPage(snapshot, 0, IDS.length));
    expect(listing.instead).toBeUndefined();
    expect(rows.map((row) => row.event_id)).toEqual(IDS);
  });

  it("refuses a snapshot whose making stopped with its process, rather than serve part of it", async () => {
    const making = engineWith();
    const made = await making.materialize(request("interrupted"));
    await collect(making.readPage(made, 0, IDS.length));
    // As a process that stopped before the last day leaves it.
    await rm(join(made.location, COMPLETE));
    const restarted = engineWith();
    const refused = await restarted.encodePage(made, 0, 2, "csv").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).message).toMatch(/start the export again/);
    await expect(collect(restarted.readPage(made, 0, 2))).rejects.toThrow(ValidationError);
  });

  it("stops its makings before DuckDB is closed: each is then whole or gone", async () => {
    const engine = engineWith();
    const snapshot = await engine.materialize(request("stopped"));
    await engine.stop();
    const names = await readdir(snapshotDir());
    if (names.includes("stopped.v5")) {
      expect(await readdir(snapshot.location)).toContain(COMPLETE);
    } else {
      await expect(collect(engine.readPage(snapshot, 0, 10))).rejects.toThrow();
    }
  });
});

describe("SnapshotMaking", () => {
  it("lets a wait for rows go once they are written, or once the last day is", async () => {
    const making = new SnapshotMaking();
    const settled: string[] = [];
    void making.until(2).then(() => settled.push("2"));
    void making.until(5).then(() => settled.push("5"));
    making.advance(3);
    await Promise.resolve();
    expect(settled).toEqual(["2"]);
    making.finish();
    await Promise.resolve();
    expect(settled).toEqual(["2", "5"]);
    await expect(making.until(100)).resolves.toBeUndefined();
  });

  it("fails every wait, and every later one, with the making's error", async () => {
    const making = new SnapshotMaking();
    const waiting = making.until(1);
    making.fail(new Error("disk full"));
    await expect(waiting).rejects.toThrow("disk full");
    await expect(making.until(0)).rejects.toThrow("disk full");
    expect(making.failedAt).toBeGreaterThan(0);
  });
});
