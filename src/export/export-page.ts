/**
 * One page of an export. The first request for an (app, timestamp) materialises the sorted
 * result once; later pages slice that snapshot until it expires, so paging with a fixed
 * timestamp neither repeats nor skips an event while new ones arrive. A deletion request
 * (a tombstone) makes every older snapshot of its app stale at once: the next page comes from
 * a new snapshot without the deleted install, before its rows are purged from the lake.
 */
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { DeletionRequest, DeletionStore } from "../ports/deletions.ts";
import type { LakeQueryEngine, SnapshotCatalog, SnapshotRef } from "../ports/lake.ts";
import type { ExportRecord } from "../record/columns.ts";
import type { FormatWriter } from "./formats/writer.ts";

export interface ExportPageDeps {
  readonly engine: LakeQueryEngine;
  readonly catalog: SnapshotCatalog;
  readonly deletions: Pick<DeletionStore, "listByApp" | "newestRequestAt">;
  readonly snapshotTtlSeconds: number;
  readonly now?: () => number;
}

export interface ExportPageRequest {
  readonly appId: string;
  /** Window start, Unix seconds. */
  readonly since: number;
  readonly offset: number;
  readonly limit: number;
}

export interface ExportPage {
  readonly snapshot: SnapshotRef;
  /**
   * The page in the writer's format: written by the engine itself when it can (see
   * FormatWriter.engineEncoding), else the rows through the writer. Resolves once the source
   * has started, so a failing query rejects here, before a status line says 200.
   */
  encode(writer: FormatWriter): Promise<Readable>;
}

// async function* () {} typed as a page of no rows.
const noRows = async function* (): AsyncIterable<ExportRecord> {};

/**
 * Starts the row source (its first row is fetched), then hands the rows on. Closing the result
 * (a client gone, a HEAD request) closes the source too, which releases its query.
 */
const primed = async (
  rows: AsyncIterable<ExportRecord>,
): Promise<AsyncIterableIterator<ExportRecord>> => {
  const source = rows[Symbol.asyncIterator]();
  let first: IteratorResult<ExportRecord> | undefined = await source.next();
  const primedRows: AsyncIterableIterator<ExportRecord> = {
    [Symbol.asyncIterator]: () => primedRows,
    next: async () => {
      const head = first;
      first = undefined;
      return head ?? source.next();
    },
    return: async () => {
      first = undefined;
      await source.return?.();
      return { done: true, value: undefined };
    },
  };
  return primedRows;
};

/**
 * How long after a deletion request's time a snapshot must be made to count as newer. The time
 * is taken before the request is stored and its app's newest time moved on, and two hosts'
 * clocks may differ a little: a snapshot made within this margin is made again.
 */
const SETTLE_MS = 1_000;

/** The pauses between reads of an app's tombstones that lag its newest request time. */
const LIST_RETRY_MS = [50, 100, 200, 400, 800, 1_600];

const newestOf = (tombstones: readonly DeletionRequest[]): number =>
  Math.max(0, ...tombstones.map((t) => Date.parse(t.requestedAt)));

export const createExportPages = (deps: ExportPageDeps) => {
  const now = deps.now ?? Date.now;
  // Concurrent first requests of one export share a single materialisation.
  const inFlight = new Map<string, Promise<SnapshotRef>>();

  /** `createdAt`: when the page asking for it was asked, before it read any tombstone. */
  const materialize = async (
    appId: string,
    since: number,
    excludeServiceIds: readonly string[],
    staleBefore: number,
    createdAt: number,
  ): Promise<SnapshotRef> => {
    const snapshotId = randomUUID();
    const location = await deps.engine.materialize({
      appId,
      since: new Date(since * 1000),
      snapshotId,
      excludeServiceIds,
    });
    const ref: SnapshotRef = {
      ...location,
      appId,
      since,
      snapshotId,
      createdAt,
      expiresAt: createdAt + deps.snapshotTtlSeconds * 1000,
    };
    // Another instance may have made one meanwhile: the first one stored stands for all.
    return deps.catalog.claim(ref, staleBefore);
  };

  /**
   * Reads every tombstone of the app, only to make a snapshot: the installs it leaves out. On
   * AWS they are listed through an index, which DynamoDB brings up to date a moment after the
   * write, while the newest time is read from its item at once: the list must reach that time,
   * else the snapshot would leave the newest request's install in and still count as made after
   * it. Read again until it does, for a few seconds; past that the page fails, to be retried.
   */
  const remake = async (appId: string, since: number, newestTombstone: number, asked: number) => {
    let tombstones = await deps.deletions.listByApp(appId);
    for (const delayMs of LIST_RETRY_MS) {
      if (newestOf(tombstones) >= newestTombstone) break;
      await sleep(delayMs);
      tombstones = await deps.deletions.listByApp(appId);
    }
    if (newestOf(tombstones) < newestTombstone) {
      throw new Error(`The deletion requests of ${appId} are not all listed yet.`);
    }
    const deleted = [...new Set(tombstones.map((t) => t.serviceId))];
    return materialize(appId, since, deleted, newestTombstone + SETTLE_MS, asked);
  };

  const snapshotFor = async (appId: string, since: number): Promise<SnapshotRef> => {
    // A snapshot made for this page counts as made now, before any tombstone is read: a
    // request that comes while they are read is then newer than it, and it is made again.
    const asked = now();
    // One item for the newest request, not every tombstone: most pages slice a snapshot.
    const [known, newest] = await Promise.all([
      deps.catalog.get(appId, since),
      deps.deletions.newestRequestAt(appId),
    ]);
    const newestTombstone = newest === undefined ? 0 : Date.parse(newest);
    const fresh = known && known.expiresAt > asked && known.createdAt > newestTombstone + SETTLE_MS;
    if (fresh) return known;
    // The newest tombstone is part of the key: a materialisation started before a deletion
    // request is never handed to a page asked for after it.
    const key = `${appId}#${since}#${newestTombstone}`;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = remake(appId, since, newestTombstone, asked).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };

  return {
    async open(request: ExportPageRequest): Promise<ExportPage> {
      const { offset, limit } = request;
      const snapshot = await snapshotFor(request.appId, request.since);
      const beyondEnd = snapshot.rowCount !== undefined && offset >= snapshot.rowCount;
      return {
        snapshot,
        async encode(writer) {
          const native = writer.engineEncoding;
          const page =
            native && !beyondEnd
              ? await deps.engine.encodePage?.(snapshot, offset, limit, native.encoding)
              : undefined;
          if (native && page) {
            return native.frame ? native.frame(page.body, page.rowCount) : page.body;
          }
          const rows = beyondEnd ? noRows() : deps.engine.readPage(snapshot, offset, limit);
          const started = await primed(rows);
          const body = writer.write(started);
          // A body dropped before the writer read from it (a HEAD request, a client gone at
          // once) would leave the started query open: closing the rows releases it.
          body.once("close", () => void started.return?.());
          return body;
        },
      };
    },
  };
};
