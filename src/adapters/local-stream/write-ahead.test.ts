import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { EVENTS_TABLE, type LakeRecord } from "../../lake/lake-tables.ts";
import {
  joinedPartition,
  partitionOf,
  recordKeys,
  trimTornTail,
  writeAheadLine,
  writeAheadRows,
} from "./write-ahead.ts";

const KEYS = recordKeys(EVENTS_TABLE);

describe("write-ahead lines", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  let files = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "write-ahead-"));
    duckdb = await DuckDBInstance.create(":memory:");
  });
  afterAll(async () => {
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  /** The records DuckDB reads back from a file of these lines, as the lake would store them. */
  const readBack = async (text: string) => {
    const path = join(dir, `wal-${files++}.ndjson`);
    await writeFile(path, text);
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT event_id, strftime(event_time, '%Y-%m-%dT%H:%M:%S.%gZ') AS event_time,
           event_name, service_id, country, revenue, currency, revenue_usd, parameters, app_id, dt
         FROM (${writeAheadRows(EVENTS_TABLE, path)}) ORDER BY event_id`,
      );
      return reader.getRowObjectsJS();
    } finally {
      connection.closeSync();
    }
  };

  /** What `readBack` should give for records: their values, with the partition date. */
  const expected = (records: readonly LakeRecord[]) =>
    [...records]
      .sort((a, b) => String(a.event_id).localeCompare(String(b.event_id)))
      .map((r) => ({
        event_id: r.event_id,
        event_time: r.event_time,
        event_name: r.event_name,
        service_id: r.service_id,
        country: r.country,
        revenue: r.revenue,
        currency: r.currency,
        revenue_usd: r.revenue_usd,
        parameters: r.parameters,
        app_id: r.app_id,
        dt: String(r.event_time).slice(0, 10),
      }));

  const purchase = (id: string, revenue: number): LakeRecord =>
    lakeEvent({
      app_id: "com.a",
      event_id: id,
      service_id: "install-1",
      received_at: "2026-11-01T12:00:01.000Z",
      event_name: "service_purchase",
      revenue,
      currency: "EUR",
      revenue_usd: revenue * 1.1,
      parameters: JSON.stringify({ revenue, currency: "EUR", sku: `sku-${id}` }),
    });

  it("writes a put as one line: what its records share once, the rest a row each", () => {
    const line = writeAheadLine([purchase("e1", 1.5), purchase("e2", 2.5)], KEYS);
    const parsed = JSON.parse(line);
    expect(parsed.shared).toMatchObject({ app_id: "com.a", service_id: "install-1" });
    expect(parsed.shared).not.toHaveProperty("event_id");
    expect(parsed.rows).toHaveLength(2);
    expect(Object.keys(parsed.rows[0]).sort()).toEqual([
      "event_id",
      "parameters",
      "revenue",
      "revenue_usd",
    ]);
    expect(line).not.toContain("\n");
  });

  it("reads back every record of a put as it was, numbers exactly", async () => {
    const records = [purchase("e1", 4.99), purchase("e2", 0.1 + 0.2), purchase("e3", -1e-7)];
    expect(await readBack(`${writeAheadLine(records, KEYS)}\n`)).toEqual(expected(records));
  });

  it("reads back a put of one record", async () => {
    const records = [purchase("only", 3)];
    expect(await readBack(`${writeAheadLine(records, KEYS)}\n`)).toEqual(expected(records));
  });

  it("reads back every put of a file of many lines", async () => {
    const first = [purchase("a-1", 1), purchase("a-2", 2)];
    const second = [purchase("b-1", 3)];
    const text = `${writeAheadLine(first, KEYS)}\n${writeAheadLine(second, KEYS)}\n`;
    expect(await readBack(text)).toEqual(expected([...first, ...second]));
  });

  it.each([
    ["a number", { revenue: "lots" }],
    ["a time", { event_time: "2026-02-30T10:00:00.000Z" }],
  ])(
    "fails the read of a file holding %s that does not parse, rather than store null",
    async (_, fields) => {
      const records = [purchase("fits", 1), { ...purchase("does-not", 2), ...fields }];
      await expect(readBack(`${writeAheadLine(records, KEYS)}\n`)).rejects.toThrow(
        /JSON transform/,
      );
    },
  );

  it("reads back any put as it was, whatever its records share", async () => {
    const value = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(fc.constant(null), arbitrary);
    const record = fc.record({
      service_id: fc.constantFrom("install-1", "install-2"),
      country: value(fc.constantFrom("DE", "FR")),
      revenue: value(fc.double({ noNaN: true, noDefaultInfinity: true })),
      currency: value(fc.constantFrom("EUR", "USD")),
      parameters: value(fc.json()),
      event_time: fc.constantFrom("2026-11-01T12:00:00.000Z", "2026-11-02T23:59:59.999Z"),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 20 }), async (drawn) => {
        const records = drawn.map((fields, i) =>
          lakeEvent({ app_id: "com.a", ...fields, event_id: `e${String(i).padStart(2, "0")}` }),
        );
        expect(await readBack(`${writeAheadLine(records, KEYS)}\n`)).toEqual(
          // -0 is stored as 0 by the JSON both ways.
          expected(records).map((r) => ({ ...r, revenue: r.revenue === 0 ? 0 : r.revenue })),
        );
      }),
      { numRuns: 40 },
    );
  });
});

describe("trimTornTail", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "torn-tail-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const trimmed = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    const size = await trimTornTail(path);
    const left = await readFile(path, "utf8");
    expect(size).toBe(Buffer.byteLength(left));
    return left;
  };

  it("cuts a torn last line and leaves the whole ones", async () => {
    expect(await trimmed("torn", '{"a":1}\n{"b":2}\n{"c":')).toBe('{"a":1}\n{"b":2}\n');
  });

  it("leaves a file of whole lines as it is", async () => {
    expect(await trimmed("whole", '{"a":1}\n{"b":2}\n')).toBe('{"a":1}\n{"b":2}\n');
  });

  it("empties a file holding only a torn line", async () => {
    expect(await trimmed("only-torn", '{"a":')).toBe("");
  });

  it("finds the last newline behind a torn line longer than one read", async () => {
    const torn = `{"long":"${"x".repeat(200_000)}`;
    expect(await trimmed("long", `{"a":1}\n${torn}`)).toBe('{"a":1}\n');
  });

  it("leaves a missing file missing", async () => {
    const path = join(dir, "missing");
    expect(await trimTornTail(path)).toBeUndefined();
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
  });
});

describe("a write-ahead file's partition", () => {
  const at = (app_id: string, event_time: string) => lakeEvent({ app_id, event_time });

  it("is the one app and UTC day of a put's records, or null for more than one", () => {
    expect(partitionOf([], EVENTS_TABLE)).toBeUndefined();
    expect(
      partitionOf(
        [at("com.a", "2026-11-01T00:00:00.000Z"), at("com.a", "2026-11-01T23:59:59.999Z")],
        EVENTS_TABLE,
      ),
    ).toEqual({ appId: "com.a", dt: "2026-11-01", late: false });
    const twoDays = [
      at("com.a", "2026-11-01T23:59:59.999Z"),
      at("com.a", "2026-11-02T00:00:00.000Z"),
    ];
    expect(partitionOf(twoDays, EVENTS_TABLE)).toBeNull();
    const twoApps = [
      at("com.a", "2026-11-01T10:00:00.000Z"),
      at("com.b", "2026-11-01T10:00:00.000Z"),
    ];
    expect(partitionOf(twoApps, EVENTS_TABLE)).toBeNull();
  });

  it("keeps a put's late records (of a day before their partition's) apart from its own day's", () => {
    const received_at = "2026-11-10T08:00:00.000Z";
    const late = (event_time: string) => lakeEvent({ app_id: "com.a", event_time, received_at });
    // Taken on the 10th: the 9th's partition at the earliest.
    expect(
      partitionOf(
        [late("2026-11-01T10:00:00.000Z"), late("2026-11-05T10:00:00.000Z")],
        EVENTS_TABLE,
      ),
    ).toEqual({
      appId: "com.a",
      dt: "2026-11-09",
      late: true,
    });
    expect(partitionOf([late("2026-11-09T10:00:00.000Z")], EVENTS_TABLE)).toEqual({
      appId: "com.a",
      dt: "2026-11-09",
      late: false,
    });
    expect(
      partitionOf(
        [late("2026-11-01T10:00:00.000Z"), late("2026-11-09T10:00:00.000Z")],
        EVENTS_TABLE,
      ),
    ).toBeNull();
  });

  it("of a whole file stays one only while every put's is the same", () => {
    const a = { appId: "com.a", dt: "2026-11-01", late: false };
    expect(joinedPartition(undefined, a)).toEqual(a);
    expect(joinedPartition(a, { ...a })).toEqual(a);
    expect(joinedPartition(a, { ...a, dt: "2026-11-02" })).toBeNull();
    expect(joinedPartition(a, { ...a, appId: "com.b" })).toBeNull();
    expect(joinedPartition(a, { ...a, late: true })).toBeNull();
    expect(joinedPartition(a, null)).toBeNull();
    expect(joinedPartition(null, a)).toBeNull();
  });
});
