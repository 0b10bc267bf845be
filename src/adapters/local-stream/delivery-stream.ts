/**
 * The embedded delivery stream: what Firehose does on AWS, on one machine. `put` appends the
 * records to a write-ahead file, one line a put (write-ahead.ts), and syncs it before
 * resolving, so an acknowledged record survives a crash. Puts that arrive while a sync is
 * under way share the next one (group commit), so concurrent requests cost one write and one
 * sync between them. When the buffer is full, on a timer or on demand, the file is closed and
 * a new one started; the closed file is turned into Parquet in the lake's partition layout
 * (`<table>/app_id=…/dt=…/part-<uuid>.parquet`) by DuckDB on its own threads, while appends go
 * on, and then deleted. A file whose records all fall in one partition (one app's events of
 * one UTC day, the usual case) is written straight to it, which costs DuckDB less CPU than
 * its partitioned writer. Files left by a crashed process are delivered on the next
 * start. Like Firehose, delivery is at least once: a crash between writing Parquet and
 * deleting the file repeats records, which the export removes.
 */
import { randomUUID } from "node:crypto";
import { writeSync } from "node:fs";
import { type FileHandle, mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { drain } from "../../embedded/drain.ts";
import { isProcessAlive } from "../../embedded/process-alive.ts";
import { sqlString } from "../../lake/export-query.ts";
import { type LakeTable, recordChecker } from "../../lake/lake-tables.ts";
import { logger } from "../../logging/logger.ts";
import type { RecordStream } from "../../ports/lake.ts";
import { partitionPath, tableDir } from "../duckdb/lake-sql.ts";
import { syncFolder } from "../local-disk/sync.ts";
import {
  joinedPartition,
  type Partition,
  partitionOf,
  recordKeys,
  trimTornTail,
  writeAheadLine,
  writeAheadRows,
} from "./write-ahead.ts";

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
  /** Buffering hints, as Firehose has: deliver after this many records or this long. */
  readonly bufferRecords?: number;
  readonly bufferIntervalMs?: number;
}

/**
 * Appends on this thread: a write into the page cache takes microseconds, while a write handed
 * to libuv's threads waits behind whatever they are doing (DuckDB's delivery runs there too),
 * often milliseconds, which every request of the group would wait for. Only the sync, which
 * does wait for the disk, is handed over.
 */
const appendNow = (file: FileHandle, text: string): void => {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(file.fd, bytes, offset);
};

/** The `late=…` folder of the partitioned writer's layout, which the table's layout has not. */
const LATE_FOLDER = /late=(true|false)[/\\]/;

interface ClosedFile {
  readonly path: string;
  /** Unknown for a file left by a process that is gone: delivered as of several partitions. */
  readonly partition: Partition | undefined;
}

interface PendingAppend {
  readonly text: string;
  readonly count: number;
  readonly partition: Partition;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export const createLocalDeliveryStream = async (
  options: LocalDeliveryStreamOptions,
): Promise<LocalDeliveryStream> => {
  const { table, duckdb, lakeDir } = options;
  const bufferRecords = options.bufferRecords ?? 50_000;
  const keys = recordKeys(table);
  const columns = table.columns.map((column) => `"${column.name}"`).join(", ");
  const checkRecord = recordChecker(table);
  const walDir = join(options.walDir, table.name);
  await mkdir(walDir, { recursive: true });
  await mkdir(tableDir(lakeDir, table), { recursive: true });

  let sequence = 0;
  const newWalPath = () => join(walDir, `${process.pid}-${Date.now()}-${sequence++}.ndjson`);

  const stagingDir = join(lakeDir, ".staging");
  await mkdir(stagingDir, { recursive: true });

  /** DuckDB's Parquet of a write-ahead file's rows, in the table's layout under `staging`. */
  const writeParquet = async (path: string, partition: Partition | undefined, staging: string) => {
    const rows = writeAheadRows(table, path);
    let copy: string;
    if (partition) {
      // As the partitioned writer lays it out: the data columns only, the keys in the path.
      const dir = join(staging, partitionPath(partition.appId, partition.dt));
      await mkdir(dir, { recursive: true });
      copy = `COPY (SELECT ${columns} FROM (${rows}))
        TO ${sqlString(join(dir, `part-${randomUUID()}.parquet`))} (FORMAT parquet)`;
    } else {
      // `late` is a folder of the staging layout only (see `deliver`): late rows in files apart.
      copy = `COPY (${rows}) TO ${sqlString(staging)}
        (FORMAT parquet, PARTITION_BY (app_id, dt, late), FILENAME_PATTERN 'part-{uuid}')`;
    }
    const connection = await duckdb.connect();
    try {
      await connection.run(copy);
    } finally {
      connection.closeSync();
    }
  };

  /** Writes one closed write-ahead file to the lake, then deletes it. */
  const deliver = async ({ path, partition }: ClosedFile): Promise<void> => {
    if (await trimTornTail(path)) {
      // DuckDB writes into a staging folder beside the table; each finished file is then
      // renamed into the table's layout, so a reader never meets a half-written file.
      const staging = join(stagingDir, `${process.pid}-${table.name}-${randomUUID()}`);
      try {
        await writeParquet(path, partition, staging);
        for (const file of await readdir(staging, { recursive: true })) {
          if (!file.endsWith(".parquet")) continue;
          const target = join(tableDir(lakeDir, table), file.replace(LATE_FOLDER, ""));
          await mkdir(dirname(target), { recursive: true });
          await rename(join(staging, file), target);
        }
      } finally {
        // A failed delivery leaves nothing behind: its file is tried again whole.
        await rm(staging, { recursive: true, force: true });
      }
    }
    await rm(path, { force: true });
  };

  // Closed files wait here for delivery, in order; a failed one stays and is tried again.
  const closed: ClosedFile[] = [];
  const deliverClosed = drain(
    () => closed.length > 0,
    async () => {
      // Each file closed when the step began: what a caller of `deliverClosed` waits for.
      for (let left = closed.length; left > 0; left--) {
        const [file] = closed;
        if (file) await deliver(file);
        closed.shift();
      }
    },
  );

  // Staging left by a process that died mid-delivery: its write-ahead file is delivered again.
  for (const name of await readdir(stagingDir)) {
    const pid = Number(name.split("-")[0]);
    if (name.includes(`-${table.name}-`) && (pid === process.pid || !isProcessAlive(pid))) {
      await rm(join(stagingDir, name), { recursive: true, force: true });
    }
  }

  /**
   * Files of processes that are gone were acknowledged but never delivered: each is queued
   * once. Looked for at the start and again at every flush, as a process killed just before
   * this one started may still be dying (or not yet reaped) when the start looks.
   */
  const adopted = new Set<string>();
  const adoptOrphans = async () => {
    for (const name of await readdir(walDir)) {
      const pid = Number(name.split("-")[0]);
      const path = join(walDir, name);
      if (!name.endsWith(".ndjson") || pid === process.pid || adopted.has(path)) continue;
      if (isProcessAlive(pid)) continue;
      adopted.add(path);
      closed.push({ path, partition: undefined });
    }
  };
  // This process's own files at the start are a previous process's of the same pid.
  for (const name of await readdir(walDir)) {
    const path = join(walDir, name);
    if (name.endsWith(".ndjson") && Number(name.split("-")[0]) === process.pid) {
      adopted.add(path);
      closed.push({ path, partition: undefined });
    }
  }
  await adoptOrphans();
  // A failure here leaves the files queued for the next delivery; the stream still starts.
  await deliverClosed().catch((error: unknown) =>
    logger.error("lake delivery failed", { table: table.name, error }),
  );

  let walPath = newWalPath();
  let file: FileHandle | undefined;
  let buffered = 0;
  /** Where the current file's records fall; undefined while it has none. */
  let partition: Partition | undefined;
  let queue: PendingAppend[] = [];
  let rotationWanted = false;

  /** Queues the current file, closed, for delivery and starts a new one. */
  const handOver = () => {
    file = undefined;
    closed.push({ path: walPath, partition });
    walPath = newWalPath();
    buffered = 0;
    partition = undefined;
  };

  /** Closes the current file (if it holds anything) and hands it to delivery. */
  const rotate = async () => {
    rotationWanted = false;
    if (buffered === 0) return;
    await file?.close();
    handOver();
  };

  /** Appends and syncs everything queued, round after round, then rotates if asked to. */
  const commit = drain(
    () => queue.length > 0 || rotationWanted,
    async () => {
      const batch = queue;
      queue = [];
      if (batch.length > 0) {
        // Before the append: a failed one may leave part of it in the file.
        for (const append of batch) partition = joinedPartition(partition, append.partition);
        try {
          if (!file) {
            file = await open(walPath, "a");
            // Its name too: after a power cut a synced file may be missing from its folder.
            await syncFolder(walDir);
          }
          appendNow(file, batch.map((append) => append.text).join(""));
          await file.sync();
          buffered += batch.reduce((sum, append) => sum + append.count, 0);
          for (const append of batch) append.resolve();
        } catch (error) {
          for (const append of batch) append.reject(error);
          // The file may end in part of this batch: acknowledged appends must not follow it
          // on the same line, so it is closed and delivered (its torn tail cut off first).
          await file?.close().catch(() => undefined);
          handOver();
        }
      }
      if (buffered >= bufferRecords) rotationWanted = true;
      if (rotationWanted) {
        await rotate();
        deliverClosed().catch((error: unknown) =>
          logger.error("lake delivery failed", { table: table.name, error }),
        );
      }
    },
  );

  const flush = async () => {
    rotationWanted = true;
    await commit();
    await adoptOrphans();
    await deliverClosed();
  };

  const timer = setInterval(() => {
    flush().catch((error: unknown) =>
      logger.error("lake delivery failed", { table: table.name, error }),
    );
  }, options.bufferIntervalMs ?? 5_000);
  timer.unref();

  return {
    async put(records) {
      for (const record of records) checkRecord(record);
      const where = partitionOf(records, table);
      if (where === undefined) return;
      const text = `${writeAheadLine(records, keys)}\n`;
      await new Promise<void>((resolve, reject) => {
        queue.push({ text, count: records.length, partition: where, resolve, reject });
        commit().catch(reject);
      });
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
      await file?.close();
      file = undefined;
    },
  };
};
