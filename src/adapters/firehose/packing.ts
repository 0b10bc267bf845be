/**
 * Packing lake records for Firehose. The delivery stream deaggregates JSON records, so many
 * newline-delimited records travel in one Firehose record: fewer records, fewer calls, and
 * Firehose bills by the 5 KB record. Limits are Firehose's service quotas.
 */
import type { LakeRecord } from "../../lake/lake-tables.ts";

export interface PackingLimits {
  /** Bytes in one Firehose record, before base64. */
  readonly recordBytes: number;
  /** Records in one PutRecordBatch call. */
  readonly batchRecords: number;
  /** Bytes in one PutRecordBatch call. */
  readonly batchBytes: number;
}

export const FIREHOSE_LIMITS: PackingLimits = {
  recordBytes: 1_000 * 1024,
  batchRecords: 500,
  batchBytes: 4 * 1024 * 1024,
};

/** A Firehose record: some whole JSON lines. */
export interface PackedRecord {
  readonly data: Buffer;
  /** How many lake records it carries. */
  readonly lines: number;
}

/** A lake record that cannot travel, even alone in a Firehose record. Retrying will not help. */
export class RecordTooLargeError extends Error {
  constructor(
    readonly index: number,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`Lake record ${index} is ${bytes} bytes as JSON, over the ${limit}-byte record limit`);
    this.name = "RecordTooLargeError";
  }
}

/** One JSON line per record; throws before anything is sent if one cannot fit. */
export const toLines = (records: readonly LakeRecord[], limits: PackingLimits): Buffer[] =>
  records.map((record, index) => {
    // JSON.stringify escapes newlines inside strings, so the line is exactly one line.
    const line = Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
    if (line.length > limits.recordBytes) {
      throw new RecordTooLargeError(index, line.length, limits.recordBytes);
    }
    return line;
  });

/** Fills Firehose records with whole lines, in order, each up to the record limit. */
export const packLines = (lines: readonly Buffer[], limits: PackingLimits): PackedRecord[] => {
  const packed: PackedRecord[] = [];
  let current: Buffer[] = [];
  let size = 0;
  const flush = () => {
    if (current.length > 0)
      packed.push({ data: Buffer.concat(current, size), lines: current.length });
    current = [];
    size = 0;
  };
  for (const line of lines) {
    if (size + line.length > limits.recordBytes) flush();
    current.push(line);
    size += line.length;
  }
  flush();
  return packed;
};

/** Groups records into PutRecordBatch calls within the count and size limits. */
export const toBatches = (
  records: readonly PackedRecord[],
  limits: PackingLimits,
): PackedRecord[][] => {
  const batches: PackedRecord[][] = [];
  let current: PackedRecord[] = [];
  let size = 0;
  for (const record of records) {
    const full =
      current.length === limits.batchRecords || size + record.data.length > limits.batchBytes;
    if (full && current.length > 0) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(record);
    size += record.data.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
};
