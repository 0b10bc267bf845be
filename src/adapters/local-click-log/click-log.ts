/**
 * The embedded link host's click log: a tap is answered once its click is in this log on disk,
 * and the touch store and the lake's touches stream are written from the log afterwards, in
 * batches. What DynamoDB is on AWS for a tap (its one write), on one machine.
 *
 * Appends that arrive while a sync is under way share the next one (group commit), so
 * concurrent taps cost one write and one sync between them. Each synced group is handed to
 * `apply` (the touch store and the lake stream, both idempotent by click id for a reader), one
 * batch at a time, tried again with a growing pause while it fails; each file's count of
 * applied clicks is written beside it after each batch, and the file is deleted once every
 * click in it is applied. On open, the files a stopped process left (a crash, `kill -9`) are
 * applied from their count on: a click whose group was synced is never lost, and only a batch
 * being applied at the stop (its count not yet written) is applied again, which the touch store
 * writes over and the lake's readers count once (by click id). A line torn by a crash was never
 * acknowledged, and is cut.
 *
 *     <dir>/<pid>-<ms>-<n>.ndjson           one click a line, as `Touch` JSON (made at <ms>)
 *     <dir>/<pid>-<ms>-<n>.ndjson.applied   how many of its lines are applied
 */
import { writeSync } from "node:fs";
import { type FileHandle, mkdir, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { drain } from "../../embedded/drain.ts";
import { logger } from "../../logging/logger.ts";
import type { Touch, TouchStore } from "../../ports/touches.ts";
import { syncFolder } from "../local-disk/sync.ts";
import { trimTornTail } from "../local-stream/write-ahead.ts";

export interface LocalClickLog {
  /** Resolves once the click is on disk, synced. */
  append(click: Touch): Promise<void>;
  /** Resolves once every click appended before the call has been applied. */
  applied(): Promise<void>;
  /** Applies what is left and closes the file. */
  close(): Promise<void>;
}

export interface LocalClickLogOptions {
  readonly dir: string;
  /** Writes clicks to where they are read from: the touch store and the lake's stream. */
  readonly apply: (clicks: readonly Touch[]) => Promise<void>;
  /**
   * Clicks applied together at most. A batch's rows are made in one turn of the event loop,
   * which taps arriving meanwhile wait behind: a hundred keep that turn short, and a batch's
   * writes are still few.
   */
  readonly applyBatch?: number;
  /** A file is closed (and deleted once applied) after this many bytes. */
  readonly fileBytes?: number;
  /** The first pause after a failed apply; it doubles, up to 30 seconds. */
  readonly retryDelayMs?: number;
  /**
   * How long an append waits for others to share its write and sync (0: those of the same turn
   * of the event loop, and those that arrive while a sync is under way, which share the next).
   */
  readonly groupMs?: number;
  /**
   * How long synced clicks wait to be applied together (unless a batch is full, or `applied()`
   * is asked): the store's and the lake's cost is mostly per write, not per click.
   */
  readonly applyDelayMs?: number;
}

interface PendingAppend {
  readonly line: string;
  readonly click: Touch;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Clicks synced and not applied yet, the file each came from, and its line there (from 1). */
interface Synced {
  readonly click: Touch;
  readonly file: string;
  readonly line: number;
}

const MAX_RETRY_MS = 30_000;

/** Log files in the order they were made: by the time in their names, then their sequence. */
const byMaking = (a: string, b: string) => {
  const [, aMs = 0, aN = 0] = a.split(/[-.]/).map(Number);
  const [, bMs = 0, bN = 0] = b.split(/[-.]/).map(Number);
  return aMs - bMs || aN - bN || a.localeCompare(b);
};

/** Where a log file's count of applied clicks is kept. */
const countPath = (file: string) => `${file}.applied`;

const writeAll = (file: FileHandle, text: string) => {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(file.fd, bytes, offset);
};

export const createLocalClickLog = async (
  options: LocalClickLogOptions,
): Promise<LocalClickLog> => {
  const { dir, apply } = options;
  const applyBatch = options.applyBatch ?? 100;
  const fileBytes = options.fileBytes ?? 16 * 1024 * 1024;
  const retryDelayMs = options.retryDelayMs ?? 100;
  const groupMs = options.groupMs ?? 0;
  const applyDelayMs = options.applyDelayMs ?? 100;
  await mkdir(dir, { recursive: true });

  let sequence = 0;
  const newPath = () => join(dir, `${process.pid}-${Date.now()}-${sequence++}.ndjson`);

  /** Synced clicks waiting to be applied, in order. */
  const waiting: Synced[] = [];
  /** Clicks not yet applied, per file: a file whose count is 0 and is closed can go. */
  const unapplied = new Map<string, number>();
  /**
   * Lines applied, per file (a line that did not parse counts with the click after it): written
   * beside it, so that a restart skips them.
   */
  const appliedLines = new Map<string, number>();
  /** Lines written so far to the file being appended to. */
  let linesWritten = 0;
  /** Set by `close()`: appends are refused, and a failed apply is left for the next start. */
  let closing = false;
  /** Wakes a failed apply's pause when the log closes. */
  const closed = new AbortController();
  const closedFiles = new Set<string>();
  /** Appended (synced) and applied so far: `applied()` waits for the one to reach the other. */
  let syncedCount = 0;
  let appliedCount = 0;
  const appliedWaiters: { until: number; resolve: () => void }[] = [];

  const forgetFinished = async () => {
    for (const file of [...closedFiles]) {
      if ((unapplied.get(file) ?? 0) > 0) continue;
      closedFiles.delete(file);
      unapplied.delete(file);
      appliedLines.delete(file);
      // A file that cannot go now is applied again, in vain, by the next start.
      await rm(file, { force: true })
        .then(() => rm(countPath(file), { force: true }))
        .catch((error: unknown) => logger.warn("applied click log not removed", { file, error }));
    }
  };

  /**
   * Clicks are applied once a batch is full, or when those synced up to this count are due
   * (their delay is over, `applied()` asked, or the log closes); the rest wait for their own
   * delay rather than follow each other in batches of the few that came during a write.
   */
  let applyUntil = 0;
  /** The first clicks waiting, taken by the batch under way. */
  let beingApplied = 0;
  const applyWaiting = drain(
    () => waiting.length >= applyBatch || (waiting.length > 0 && appliedCount < applyUntil),
    async () => {
      const batch = waiting.slice(0, applyBatch);
      beingApplied = batch.length;
      for (let retry = 0; ; retry++) {
        try {
          await apply(batch.map((entry) => entry.click));
          break;
        } catch (error) {
          // On a stop, what is left stays in the log for the next start.
          if (closing) throw error;
          logger.error("clicks not applied yet; trying again", { clicks: batch.length, error });
          await sleep(Math.min(MAX_RETRY_MS, retryDelayMs * 2 ** retry), undefined, {
            signal: closed.signal,
          }).catch(() => undefined);
        }
      }
      waiting.splice(0, batch.length);
      beingApplied = 0;
      const files = new Set<string>();
      for (const { file, line } of batch) {
        unapplied.set(file, (unapplied.get(file) ?? 1) - 1);
        appliedLines.set(file, Math.max(appliedLines.get(file) ?? 0, line));
        files.add(file);
      }
      // Not synced: a count lost to a crash only has clicks applied again.
      for (const file of files) {
        await writeFile(countPath(file), String(appliedLines.get(file) ?? 0)).catch(
          (error: unknown) => logger.warn("click log count not written", { file, error }),
        );
      }
      appliedCount += batch.length;
      for (const waiter of appliedWaiters.splice(0)) {
        if (waiter.until <= appliedCount) waiter.resolve();
        else appliedWaiters.push(waiter);
      }
      await forgetFinished();
    },
  );
  let applyTimer: NodeJS.Timeout | undefined;
  const runApplying = () => {
    // Failures are retried inside; nothing rejects but a bug, which is logged, or a failure
    // once the log closes, which `close()` reports.
    applyWaiting().catch((error: unknown) => {
      if (!closing) logger.error("click log stopped", { error });
    });
  };
  /** Makes every click synced so far due, and applies them. */
  const startApplying = () => {
    clearTimeout(applyTimer);
    applyTimer = undefined;
    applyUntil = Math.max(applyUntil, syncedCount);
    runApplying();
  };
  /** Applies a full batch at once (the rest keep their delay), else after `applyDelayMs`. */
  const applySoon = () => {
    if (waiting.length - beingApplied >= applyBatch) runApplying();
    applyTimer ??= setTimeout(startApplying, applyDelayMs);
  };

  // What a stopped process left: every whole line was acknowledged, but for one that does not
  // parse, which only a power cut during a group's write (never answered) leaves.
  const names = await readdir(dir);
  for (const name of names.filter((n) => n.endsWith(".ndjson")).sort(byMaking)) {
    const file = join(dir, name);
    await trimTornTail(file);
    const done = Number(await readFile(countPath(file), "utf8").catch(() => "0")) || 0;
    const clicks = (await readFile(file, "utf8"))
      .split("\n")
      .filter((line) => line !== "")
      .flatMap((text, index): Synced[] => {
        const line = index + 1;
        if (line <= done) return [];
        try {
          return [{ click: JSON.parse(text) as Touch, file, line }];
        } catch {
          logger.warn("click log line skipped: not JSON", { file, line });
          return [];
        }
      });
    for (const synced of clicks) waiting.push(synced);
    unapplied.set(file, clicks.length);
    appliedLines.set(file, done);
    closedFiles.add(file);
    syncedCount += clicks.length;
  }
  // A count whose file is gone: a stop between the two removals.
  for (const name of names.filter((n) => n.endsWith(".ndjson.applied"))) {
    if (!names.includes(name.slice(0, -".applied".length)))
      await rm(join(dir, name), { force: true });
  }
  if (waiting.length > 0)
    logger.info("applying the clicks a stop left", { clicks: waiting.length });
  // In the background, as any other: the log takes taps meanwhile, and `applied()` waits.
  startApplying();

  let path = newPath();
  let file: FileHandle | undefined;
  let written = 0;
  let queue: PendingAppend[] = [];

  const closeFile = async () => {
    await file?.close();
    file = undefined;
    closedFiles.add(path);
    path = newPath();
    written = 0;
    linesWritten = 0;
  };

  const commit = drain(
    () => queue.length > 0,
    async () => {
      const batch = queue;
      queue = [];
      try {
        if (!file) {
          file = await open(path, "a");
          // Its name too: after a power cut a synced file may be missing from its folder.
          await syncFolder(dir);
        }
        const text = batch.map((append) => append.line).join("");
        writeAll(file, text);
        await file.datasync();
        written += Buffer.byteLength(text);
      } catch (error) {
        for (const append of batch) append.reject(error);
        // The file may end in part of this group: it is closed, and its torn tail is cut
        // when it is read again.
        await file?.close().catch(() => undefined);
        file = undefined;
        closedFiles.add(path);
        path = newPath();
        written = 0;
        linesWritten = 0;
        return;
      }
      unapplied.set(path, (unapplied.get(path) ?? 0) + batch.length);
      for (const append of batch) {
        linesWritten += 1;
        waiting.push({ click: append.click, file: path, line: linesWritten });
      }
      syncedCount += batch.length;
      for (const append of batch) append.resolve();
      // Before the file is closed, which may fail: these clicks are answered, so their apply is
      // scheduled first.
      applySoon();
      if (written >= fileBytes) await closeFile();
    },
  );
  /** A group's write after `groupMs`, or after this turn of the event loop. */
  type Later = { cancel: () => void };
  const later = (run: () => void): Later => {
    if (groupMs > 0) {
      const timer = setTimeout(run, groupMs);
      return { cancel: () => clearTimeout(timer) };
    }
    const immediate = setImmediate(run);
    return { cancel: () => clearImmediate(immediate) };
  };
  let commitTimer: Later | undefined;
  /** Writes and syncs the appends queued so far, now. */
  const commitNow = () => {
    commitTimer?.cancel();
    commitTimer = undefined;
    return commit();
  };

  return {
    append(click) {
      if (closing) return Promise.reject(new Error("The click log is closed."));
      return new Promise<void>((resolve, reject) => {
        queue.push({ line: `${JSON.stringify(click)}\n`, click, resolve, reject });
        // Each append's promise settles with its group's write; a failure of the commit
        // itself rejects what it holds.
        commitTimer ??= later(() => {
          commitNow().catch((error: unknown) => {
            for (const append of queue.splice(0)) append.reject(error);
          });
        });
      });
    },
    async applied() {
      await commitNow();
      if (appliedCount >= syncedCount) return;
      const until = syncedCount;
      await new Promise<void>((resolve) => {
        appliedWaiters.push({ until, resolve });
        startApplying();
      });
    },
    async close() {
      closing = true;
      closed.abort();
      await commitNow();
      clearTimeout(applyTimer);
      applyTimer = undefined;
      applyUntil = Number.POSITIVE_INFINITY;
      try {
        // A call made during a step waits for the run to end; a step applies one batch.
        do await applyWaiting();
        while (waiting.length > 0);
      } catch (error) {
        logger.error("clicks left in the log for the next start", {
          clicks: waiting.length,
          error,
        });
      }
      await closeFile();
      await forgetFinished();
    },
  };
};

/**
 * The touch store as matching reads it: each lookup first waits for the log to be applied up to
 * its start, so a tap answered before an install arrived is found even while its click is still
 * on its way from the log to the store.
 */
export const touchReadsAfter = (
  store: TouchStore,
  log: Pick<LocalClickLog, "applied">,
): TouchStore => ({
  ...store,
  get: async (clickId) => {
    await log.applied();
    return store.get(clickId);
  },
  byMaid: async (maid, window) => {
    await log.applied();
    return store.byMaid(maid, window);
  },
  byIp: async (ip, window) => {
    await log.applied();
    return store.byIp(ip, window);
  },
});
