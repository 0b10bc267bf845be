/**
 * The record stream's contract (RecordStream in src/ports/lake.ts), one suite for both
 * adapters behind the port: the embedded delivery stream and Firehose. Each adapter's test
 * file calls `describeRecordStreamContract` with a factory of its own side; the `it`s are the
 * same. A side's `delivered` reads back what reached its destination: the lake's Parquet files
 * on the embedded runtime, the objects Firehose wrote to its bucket on AWS.
 *
 * Where each side puts a record (the `app_id=…/dt=…` partitions, Parquet) is not part of the
 * shared contract: on AWS Firehose's dynamic partitioning and Parquet conversion do it, which
 * no local server has (the embedded layout is held by the delivery stream's own tests).
 */
import { describe, expect, it } from "vitest";
import type { LakeRecord, LakeTable } from "../../lake/lake-tables.ts";
import type { RecordStream } from "../../ports/lake.ts";

/** A table with a column of each lake type, partitioned by the date of `happened_at`. */
export const CONTRACT_TABLE: LakeTable = {
  name: "contract_rows",
  columns: [
    { name: "row_id", type: "string" },
    { name: "count", type: "int" },
    { name: "amount", type: "double" },
    { name: "happened_at", type: "timestamp" },
    { name: "note", type: "string" },
  ],
  dateColumn: "happened_at",
  receivedColumn: "happened_at",
  installColumn: null,
};

export interface RecordStreamUnderTest {
  readonly stream: RecordStream;
  /**
   * Every record that reached the destination so far, as a stream carries it: `app_id` and the
   * table's columns, timestamps as ISO 8601 strings, nulls as null.
   */
  delivered(): Promise<LakeRecord[]>;
  close(): Promise<void>;
}

export type RecordStreamFactory = (table: LakeTable) => Promise<RecordStreamUnderTest>;

const row = (n: number, overrides: Partial<LakeRecord> = {}): LakeRecord => ({
  app_id: n % 2 === 0 ? "com.example.even" : "com.example.odd",
  row_id: `row-${String(n).padStart(5, "0")}`,
  count: n,
  amount: n + 0.25,
  // Two UTC days, so two partitions of each app.
  happened_at: new Date(Date.UTC(2026, 10, 1 + (n % 2), 23, 59, 59, n % 1000)).toISOString(),
  note: `note ${n}`,
  ...overrides,
});

const byRowId = (a: LakeRecord, b: LakeRecord) => String(a.row_id).localeCompare(String(b.row_id));

export const describeRecordStreamContract = (name: string, factory: RecordStreamFactory): void => {
  describe(`record stream contract: ${name}`, () => {
    const withStream = async (test: (side: RecordStreamUnderTest) => Promise<void>) => {
      const side = await factory(CONTRACT_TABLE);
      try {
        await test(side);
      } finally {
        await side.close();
      }
    };

    it("delivers every record put, with its values as put", () =>
      withStream(async (side) => {
        const records = [
          row(1),
          row(2),
          row(3, { note: 'two\nlines, a "quote", a tab\t and é ✓ 🎉' }),
          row(4, { count: null, amount: null, note: null }),
          row(5, { count: -2_147_483_648, amount: -0.5 }),
        ];
        await side.stream.put(records.slice(0, 2));
        await side.stream.put(records.slice(2));
        expect((await side.delivered()).sort(byRowId)).toEqual(records);
      }));

    it("delivers each record of a large put", () =>
      withStream(async (side) => {
        const records = Array.from({ length: 1_500 }, (_, n) => row(n));
        await side.stream.put(records);
        const delivered = (await side.delivered()).sort(byRowId);
        expect(delivered).toHaveLength(records.length);
        expect(delivered).toEqual(records);
      }));

    it("resolves a put of nothing, and delivers nothing", () =>
      withStream(async (side) => {
        await side.stream.put([]);
        expect(await side.delivered()).toEqual([]);
      }));

    it.each([
      ["a number column holding a fraction", { count: 1.5 }],
      ["a number column holding text", { amount: "1.5" }],
      ["a time that is not an ISO 8601 UTC string", { happened_at: "2026-11-01 10:00:00" }],
      ["no date column, which names its partition", { happened_at: null }],
      ["an app_id that is not an app id", { app_id: "../escape" }],
    ] as const)("refuses a put with a record holding %s, and delivers none of it", (_, bad) =>
      withStream(async (side) => {
        await expect(side.stream.put([row(1), row(2, bad)])).rejects.toThrow(TypeError);
        expect(await side.delivered()).toEqual([]);
      }),
    );
  });
};
