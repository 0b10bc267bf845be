/**
 * An install's row lies at its first open, which may be years before it was taken (an SDK
 * added to an app with users already). A window that starts before it is made a day at a time:
 * its days are those that hold rows, not every calendar day back to that first open, each of
 * which would be a query of its own over the file that holds it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { EVENTS_TABLE, type LakeRecord } from "../../lake/lake-tables.ts";
import type { ExportRecord } from "../../record/columns.ts";
import { createLocalDeliveryStream } from "../local-stream/delivery-stream.ts";
import { createDuckDbQueryEngine } from "./query-engine.ts";
import { createReadWriteLock } from "./read-write-lock.ts";

const APP = "com.example.early";
const RECEIVED = "2026-11-20T10:00:00.000Z";

/**
 * Taken together on the 20th, in the 19th's partition: installs first opened in 2023 and 2025,
 * an event of the 10th sent late, and the 19th's and 20th's own.
 */
const EVENTS: LakeRecord[] = [
  "2023-03-01T10:00:00.000Z",
  "2025-06-15T08:00:00.000Z",
  "2025-06-15T09:00:00.000Z",
  "2026-11-10T12:00:00.000Z",
  "2026-11-19T12:00:00.000Z",
  "2026-11-19T13:00:00.000Z",
  "2026-11-20T09:00:00.000Z",
].map((at, n) =>
  lakeEvent({
    app_id: APP,
    event_id: `e${n}`,
    service_id: `install-${n}`,
    event_name: n < 3 ? "service_install" : "service_login",
    event_time: at,
    received_at: RECEIVED,
  }),
);

const collect = async (rows: AsyncIterable<ExportRecord>) => {
  const out: ExportRecord[] = [];
  for await (const row of rows) out.push(row);
  return out;
};

/** A DuckDB instance whose connections count the queries they are given. */
const counting = (duckdb: DuckDBInstance) => {
  const counted = { queries: 0 };
  const instance = {
    connect: async () => {
      const connection = await duckdb.connect();
      return new Proxy(connection, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver);
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            if (name === "run" || name === "runAndReadAll" || name === "stream") {
              counted.queries++;
            }
            return value.apply(target, args);
          };
        },
      }) as DuckDBConnection;
    },
  } as unknown as DuckDBInstance;
  return { instance, counted };
};

describe("rows of first opens long before they were taken", () => {
  let dir: string;
  let duckdb: DuckDBInstance;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "early-rows-"));
    duckdb = await DuckDBInstance.create(":memory:");
    const stream = await createLocalDeliveryStream({
      table: EVENTS_TABLE,
      duckdb,
      lakeDir: join(dir, "lake"),
      walDir: join(dir, "wal"),
    });
    await stream.put(EVENTS);
    await stream.close();
  });

  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("are exported in time order, a day at a time, in queries of the days that hold rows", async () => {
    const { instance, counted } = counting(duckdb);
    const engine = createDuckDbQueryEngine({
      duckdb,
      snapshotDuckdb: instance,
      lakeDir: join(dir, "lake"),
      snapshotDir: join(dir, "snapshots"),
      pageDir: join(dir, "pages"),
      lakeFiles: createReadWriteLock(),
      wholeBelowBytes: 0,
      sliceRows: 2,
    });
    for (const [since, from] of [
      ["1970-01-01T00:00:00.000Z", 0],
      ["2025-06-15T08:30:00.000Z", 2],
    ] as const) {
      counted.queries = 0;
      const snapshot = await engine.materialize({
        appId: APP,
        since: new Date(since),
        snapshotId: `since-${from}`,
      });
      const rows = await collect(engine.readPage(snapshot, 0, 100));
      expect(rows.map((row) => row.event_id)).toEqual(
        EVENTS.slice(from).map((event) => event.event_id),
      );
      // Five days hold rows: a few queries each, and a few for the window. A query for each
      // calendar day back to the first open would be thousands.
      expect(counted.queries).toBeLessThan(40);
    }
    await engine.stop();
  });
});
