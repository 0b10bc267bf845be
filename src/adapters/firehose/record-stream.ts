/**
 * The lake's record stream on AWS: Firehose. `put` resolves once Firehose has accepted every
 * record. PutRecordBatch can accept some records and refuse others (throttling, internal
 * errors); only the refused ones are sent again, after an exponential backoff with full jitter.
 * If some are still refused after the last attempt, `put` rejects, so the caller answers
 * non-2xx and its client retries. Records accepted before that may arrive twice; the export
 * removes duplicate event ids.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  type FirehoseClient,
  PutRecordBatchCommand,
  type PutRecordBatchResponseEntry,
} from "@aws-sdk/client-firehose";
import {
  type LakeTable,
  lakeDay,
  PARTITION_DAY_KEY,
  recordChecker,
} from "../../lake/lake-tables.ts";
import type { RecordStream } from "../../ports/lake.ts";
import { FIREHOSE_LIMITS, type PackedRecord, packLines, toBatches, toLines } from "./packing.ts";

export interface FirehoseStreamOptions {
  readonly firehose: FirehoseClient;
  readonly streamName: string;
  /** The lake table the stream's Parquet conversion writes: its records are checked against it. */
  readonly table: LakeTable;
  /** Calls per batch, the first included. Default 4. */
  readonly maxAttempts?: number;
  /** Backoff ceiling before the first retry; it doubles each time, up to 2 s. Default 100 ms. */
  readonly baseDelayMs?: number;
}

/** Firehose refused some records of a batch on every attempt. */
export class FirehoseDeliveryError extends Error {
  constructor(
    /** Firehose records refused on the last attempt. */
    readonly failedRecords: number,
    /** Lake records inside them. */
    readonly failedLakeRecords: number,
    message: string,
  ) {
    super(message);
    this.name = "FirehoseDeliveryError";
  }
}

const MAX_DELAY_MS = 2_000;

/** The records Firehose refused, by their position in the request. */
const refused = (
  sent: readonly PackedRecord[],
  responses: readonly PutRecordBatchResponseEntry[] | undefined,
): PackedRecord[] => {
  // Without one answer per record there is no telling which failed: send them all again.
  if (responses?.length !== sent.length) return [...sent];
  const failed = sent.filter((_, i) => responses[i]?.ErrorCode !== undefined);
  return failed.length > 0 ? failed : [...sent];
};

export const createFirehoseStream = (options: FirehoseStreamOptions): RecordStream => {
  const { firehose, streamName } = options;
  const checkRecord = recordChecker(options.table);
  const maxAttempts = options.maxAttempts ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 100;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError("maxAttempts must be a positive integer");
  }

  const backoff = (retry: number) =>
    sleep(Math.random() * Math.min(MAX_DELAY_MS, baseDelayMs * 2 ** (retry - 1)));

  const putBatch = async (batch: readonly PackedRecord[]): Promise<void> => {
    let pending = batch;
    for (let attempt = 1; ; attempt += 1) {
      const { FailedPutCount, RequestResponses } = await firehose.send(
        new PutRecordBatchCommand({
          DeliveryStreamName: streamName,
          Records: pending.map((record) => ({ Data: record.data })),
        }),
      );
      if (!FailedPutCount) return;
      const failed = refused(pending, RequestResponses);
      if (attempt >= maxAttempts) {
        const lakeRecords = failed.reduce((sum, record) => sum + record.lines, 0);
        const reason = RequestResponses?.find((r) => r.ErrorCode);
        throw new FirehoseDeliveryError(
          failed.length,
          lakeRecords,
          `Firehose ${streamName} refused ${failed.length} of ${batch.length} records ` +
            `(${lakeRecords} lake records) after ${maxAttempts} attempts` +
            (reason ? `: ${reason.ErrorCode} ${reason.ErrorMessage ?? ""}`.trimEnd() : ""),
        );
      }
      await backoff(attempt);
      pending = failed;
    }
  };

  return {
    async put(records) {
      // As the embedded stream does: Firehose would take a record that does not fit its
      // table, and its Parquet conversion would then send it to the error prefix, after 202.
      for (const record of records) checkRecord(record);
      if (records.length === 0) return;
      // Each record names its partition, which the stream's partitioning query reads: the rule
      // (lakeDay) is the embedded stream's too, written once.
      const { table } = options;
      const named = records.map((record) => ({
        ...record,
        [PARTITION_DAY_KEY]: lakeDay(table, record),
      }));
      const lines = toLines(named, FIREHOSE_LIMITS);
      // One batch after another: a refused batch stops the put before more is sent, so the
      // caller's retry duplicates as little as possible.
      for (const batch of toBatches(packLines(lines, FIREHOSE_LIMITS), FIREHOSE_LIMITS)) {
        await putBatch(batch);
      }
    },
  };
};
