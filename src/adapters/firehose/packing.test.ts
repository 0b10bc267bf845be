import { describe, expect, it } from "vitest";
import {
  FIREHOSE_LIMITS,
  type PackingLimits,
  packLines,
  RecordTooLargeError,
  toBatches,
  toLines,
} from "./packing.ts";

const SMALL: PackingLimits = { recordBytes: 10, batchRecords: 3, batchBytes: 25 };
const line = (bytes: number) => Buffer.from(`${"x".repeat(bytes - 1)}\n`);

describe("Firehose packing", () => {
  it("writes one JSON line per record, newlines inside values escaped", () => {
    const [only] = toLines([{ app_id: "a", note: "two\nlines", n: 1.5, x: null }], FIREHOSE_LIMITS);
    expect(only?.toString()).toBe('{"app_id":"a","note":"two\\nlines","n":1.5,"x":null}\n');
  });

  it("fills a record up to exactly the limit and starts the next on the line that overflows", () => {
    const lines = [line(4), line(6), line(1), line(3), line(7), line(10), line(2)];
    const packed = packLines(lines, SMALL);
    // 4+6 fills the first exactly; 1+3 cannot take 7; 7 cannot take 10; 10 is full alone.
    expect(packed.map((r) => [r.data.length, r.lines])).toEqual([
      [10, 2],
      [4, 2],
      [7, 1],
      [10, 1],
      [2, 1],
    ]);
    expect(Buffer.concat(packed.map((r) => r.data))).toEqual(Buffer.concat(lines));
  });

  it("cuts batches at the record count and at the byte size", () => {
    const records = [10, 1, 1, 1, 10, 10, 4, 2].map((n) => ({ data: line(n), lines: 1 }));
    const sizes = toBatches(records, SMALL).map((b) => b.map((r) => r.data.length));
    // [10,1,1] reaches 3 records; [1,10,10] is 21 bytes and 4 more would be 25 (fits),
    // but that would be 4 records; [4,2] is what is left.
    expect(sizes).toEqual([
      [10, 1, 1],
      [1, 10, 10],
      [4, 2],
    ]);
    const bySize = toBatches(
      [10, 10, 6].map((n) => ({ data: line(n), lines: 1 })),
      SMALL,
    );
    expect(bySize.map((b) => b.length)).toEqual([2, 1]); // 10+10+6 = 26 > 25
    const exactly = toBatches(
      [10, 10, 5].map((n) => ({ data: line(n), lines: 1 })),
      SMALL,
    );
    expect(exactly.map((b) => b.length)).toEqual([3]); // 25 bytes: the batch's size exactly
  });

  it("packs no line into no record", () => {
    expect(packLines([], SMALL)).toEqual([]);
  });

  it("rejects a record that cannot fit even alone, naming it", () => {
    const big = { app_id: "a", blob: "y".repeat(FIREHOSE_LIMITS.recordBytes) };
    expect(() => toLines([{ app_id: "a" }, big], FIREHOSE_LIMITS)).toThrow(RecordTooLargeError);
    expect(() => toLines([{ app_id: "a" }, big], FIREHOSE_LIMITS)).toThrow(/Lake record 1 is/);
  });

  it("takes a line of Firehose's whole record quota, 1,000 KiB before base64, and no byte more", () => {
    // `{"app_id":"a","blob":"…"}` and its newline: 25 bytes around the blob.
    const ofLine = (bytes: number) => ({ app_id: "a", blob: "y".repeat(bytes - 25) });
    expect(toLines([ofLine(1_000 * 1024)], FIREHOSE_LIMITS)[0]?.length).toBe(1_024_000);
    expect(() => toLines([ofLine(1_000 * 1024 + 1)], FIREHOSE_LIMITS)).toThrow(
      "Lake record 0 is 1024001 bytes as JSON, over the 1024000-byte record limit",
    );
  });
});
