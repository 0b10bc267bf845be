/**
 * The embedded delivery stream: what Firehose does on AWS, on one machine. `put` appends the
 * records to a write-ahead file and syncs it before resolving, so an acknowledged record
 * survives a crash; a flush turns the file into Parquet in the lake's partition layout
 * (`<table>/app_id=…/dt=…/part-<uuid>.parquet`) and deletes it. Files left by a crashed
 * process are flushed on the next start. Like Firehose, delivery is at least once: a crash
 * between writing Parquet and deleting the file repeats records, which the export removes.
 */
import { mkdir, open, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { APP_ID_PATTERN } from "../../domain/apps.ts";
import { sqlString } from "../../lake/export-query.ts";
import { type LakeRecord, type LakeTable, partitionDate } from "../../lake/tables.ts";
import type { RecordStream } from "../../ports/lake.ts";
import { ndjsonToTableRows, tableDir } from "../duckdb/lake-sql.ts";

export interface LocalDeliveryStream extends RecordStream {
  /** Writes everything accepted so far to the lake. */
  flush(): Promise<void>;
  /** Flushes, then stops the timer. */
  close(): Promise<void>;
}

export interface LocalDeliveryStreamOptions {
  readonly table: LakeTable;
  readonly duckdb: DuckDBInstance;
  readonly lakeDir: string;
  readonly walDir: string;
  /** Buffering hints, as Firehose has: flush after this many records or this long. */
  readonly bufferRecords?: number;
  readonly bufferIntervalMs?: number;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export const createLocalDeliveryStream = async (
  options: LocalDeliveryStreamOptions,
): Promise<LocalDeliveryStream> => {
  const { table, duckdb, lakeDir } = options;
  const bufferRecords = options.bufferRecords ?? 50_000;
  const walDir = join(options.walDir, table.name);
  await mkdir(walDir, { recursive: true });
  await mkdir(tableDir(lakeDir, table), { recursive: true });

  let sequence = 0;
  const newWalPath = () => join(walDir, `${process.pid}-${Date.now()}-${sequence++}.ndjson`);
  let walPath = newWalPath();
  let buffered = 0;
  // One chain orders appends and flushes, so a flush never sees half a batch.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next.catch(() => undefined);
    return next;
  };

  const deliver = async (path: string): Promise<void> => {
    const info = await stat(path).catch(() => undefined);
    if (info && info.size > 0) {
      const connection = await duckdb.connect();
      try {
        await connection.run(
          `COPY (${ndjsonToTableRows(table, path)}) TO ${sqlString(tableDir(lakeDir, table))}
           (FORMAT parquet, PARTITION_BY (app_id, dt), FILENAME_PATTERN 'part-{uuid}', APPEND)`,
        );
      } finally {
        connection.closeSync();
      }
    }
    await rm(path, { force: true });
  };

  // Full files waiting for delivery; a failed delivery stays here and is tried again.
  const pending: string[] = [];
  const flushNow = async () => {
    if (buffered > 0) {
      pending.push(walPath);
      walPath = newWalPath();
      buffered = 0;
    }
    while (pending.length > 0) {
      const [path] = pending;
      if (path) await deliver(path);
      pending.shift();
    }
  };

  // Files of processes that are gone were acknowledged but never delivered.
  for (const name of await readdir(walDir)) {
    const pid = Number(name.split("-")[0]);
    if (name.endsWith(".ndjson") && (pid === process.pid || !isAlive(pid))) {
      pending.push(join(walDir, name));
    }
  }
  await flushNow();

  const timer = setInterval(() => {
    serial(flushNow).catch((error: unknown) => console.error("lake delivery failed", error));
  }, options.bufferIntervalMs ?? 5_000);
  timer.unref();

  return {
    async put(records) {
      const lines = records.map((record: LakeRecord) => {
        if (!APP_ID_PATTERN.test(record.app_id))
          throw new TypeError("app_id is not a valid app id");
        partitionDate(table, record);
        return `${JSON.stringify(record)}\n`;
      });
      if (lines.length === 0) return;
      await serial(async () => {
        const file = await open(walPath, "a");
        try {
          await file.write(lines.join(""));
          await file.sync();
        } finally {
          await file.close();
        }
        buffered += lines.length;
        if (buffered >= bufferRecords) await flushNow();
      });
    },
    flush: () => serial(flushNow),
    async close() {
      clearInterval(timer);
      await serial(flushNow);
    },
  };
};
