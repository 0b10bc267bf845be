/**
 * One page of an export. A first page (offset 0) materialises the sorted result of the window
 * as it is now: a snapshot, named in the answer. A page that names its snapshot slices that
 * one until it expires, so paging neither repeats nor skips an event while new ones arrive,
 * whoever else exports the same window; a page that names none slices the window's newest.
 * A deletion request (a tombstone) makes every older snapshot of its app stale at once: an
 * unnamed page comes from a new snapshot without the deleted install, before its rows are
 * purged from the lake, and a named one is refused. Each page reads the app's tombstones,
 * whole and as they are now, and a snapshot is good while it was made from their current
 * version: no clock and no index's lag is involved. A snapshot leaves out those installs and
 * those of every request the app's list holds, completed ones too.
 */
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { ValidationError } from "../domain/errors.ts";
import type { DeletionStore, Tombstones } from "../ports/deletions.ts";
import type { LakeQueryEngine, SnapshotCatalog, SnapshotRef } from "../ports/lake.ts";
import type { ExportRecord } from "../record/columns.ts";
import type { FormatWriter } from "./formats/writer.ts";

export interface ExportPageDeps {
  readonly engine: LakeQueryEngine;
  readonly catalog: SnapshotCatalog;
  readonly deletions: Pick<DeletionStore, "tombstones" | "listByApp">;
  readonly snapshotTtlSeconds: number;
  readonly now?: () => number;
}

export interface ExportPageRequest {
  readonly appId: string;
  /** Window start, Unix seconds. */
  readonly since: number;
  readonly offset: number;
  readonly limit: number;
  /** The snapshot the page must come from (an earlier page's), if the caller pins one. */
  readonly snapshotId?: string;
}

export interface ExportPage {
  readonly snapshot: SnapshotRef;
  /**
   * The page in the writer's format: written by the engine itself when it can (see
   * FormatWriter.engineEncoding), else the rows through the writer. Resolves once the source
   * has started, so a failing query rejects here, before a status line says 200; with the
   * page's number of events when that is known before its bytes (the engine wrote them).
   */
  encode(writer: FormatWriter): Promise<{ body: Readable; rowCount?: number }>;
}

// async function* () {} typed as a page of no rows.
const noRows = async function* (): AsyncIterable<ExportRecord> {};

/**
 * Starts the row source (its first row is fetched), then hands the rows on. Closing the result
 * (a client gone, a HEAD request) closes the source too, which releases its query.
 */
const primed = async (
  rows: AsyncIterable<ExportRecord>,
): Promise<{ rows: AsyncIterableIterator<ExportRecord>; empty: boolean }> => {
  const source = rows[Symbol.asyncIterator]();
  let first: IteratorResult<ExportRecord> | undefined = await source.next();
  const empty = first.done === true;
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
  return { rows: primedRows, empty };
};

export const createExportPages = (deps: ExportPageDeps) => {
  const now = deps.now ?? Date.now;
  // Concurrent first requests of one export share a single materialisation.
  const inFlight = new Map<string, Promise<SnapshotRef>>();

  /** `createdAt`: when the page asking for it was asked. */
  const materialize = async (
    appId: string,
    since: number,
    tombstones: Tombstones,
    createdAt: number,
  ): Promise<SnapshotRef> => {
    const snapshotId = randomUUID();
    // The list comes through an index that may lag: what it misses of the newest requests,
    // the tombstones hold.
    const listed = (await deps.deletions.listByApp(appId)).map((request) => request.serviceId);
    const location = await deps.engine.materialize({
      appId,
      since: new Date(since * 1000),
      // The window runs to the present: the moment its first page was asked.
      until: new Date(createdAt),
      snapshotId,
      excludeServiceIds: [...new Set([...tombstones.serviceIds, ...listed])],
    });
    const ref: SnapshotRef = {
      ...location,
      appId,
      since,
      snapshotId,
      createdAt,
      expiresAt: createdAt + deps.snapshotTtlSeconds * 1000,
      tombstoneVersion: tombstones.version,
    };
    await deps.catalog.put(ref);
    return ref;
  };

  /** A snapshot of the window as it is now; first pages asked at once share one. */
  const fresh = (appId: string, since: number, tombstones: Tombstones, asked: number) => {
    // The version is part of the key: a materialisation started before a deletion request is
    // never handed to a page that read the request's tombstone.
    const key = `${appId}#${since}#${tombstones.version}`;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = materialize(appId, since, tombstones, asked).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };

  const pinned = async (request: ExportPageRequest, snapshotId: string, asked: number) => {
    const [named, tombstones] = await Promise.all([
      deps.catalog.byId(request.appId, request.since, snapshotId),
      deps.deletions.tombstones(request.appId),
    ]);
    const again = "start the export again without it, at offset 0";
    if (!named) {
      throw new ValidationError(`snapshot: no snapshot ${snapshotId} of this window; ${again}`);
    }
    if (named.expiresAt <= asked) {
      throw new ValidationError(`snapshot: ${snapshotId} has expired; ${again}`);
    }
    if (named.tombstoneVersion < tombstones.version) {
      throw new ValidationError(
        `snapshot: ${snapshotId} was withdrawn by a deletion request made after it; ${again}`,
      );
    }
    return named;
  };

  const snapshotFor = async (request: ExportPageRequest): Promise<SnapshotRef> => {
    const { appId, since, offset, snapshotId } = request;
    const asked = now();
    if (snapshotId !== undefined) return pinned(request, snapshotId, asked);
    const [newest, tombstones] = await Promise.all([
      offset === 0 ? undefined : deps.catalog.latest(appId, since),
      deps.deletions.tombstones(appId),
    ]);
    // A later page with no snapshot of its window yet starts one, as a first page would.
    if (!newest) return fresh(appId, since, tombstones, asked);
    // A later page of a snapshot that is gone is refused rather than sliced from a new one, in
    // which the events before its offset may have moved: its client would get some twice and
    // miss others without a word.
    const again = "start the export again at offset 0";
    if (newest.expiresAt <= asked) {
      throw new ValidationError(
        `offset: the snapshot the first page of this window made has expired; ${again}`,
      );
    }
    // A snapshot made from a later version than this page read is newer still.
    if (newest.tombstoneVersion < tombstones.version) {
      throw new ValidationError(
        `offset: the snapshot the first page of this window made was withdrawn by a deletion request made after it; ${again}`,
      );
    }
    return newest;
  };

  return {
    async open(request: ExportPageRequest): Promise<ExportPage> {
      const { offset, limit } = request;
      const found = await snapshotFor(request);
      // A large window's first page is answered while its snapshot is still being made; its
      // later pages give its size once it is finished.
      const rowCount = found.rowCount ?? (await deps.engine.rowCountOf?.(found));
      const snapshot = rowCount === undefined ? found : { ...found, rowCount };
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
            const body = native.frame ? native.frame(page.body, page.rowCount) : page.body;
            return { body, rowCount: page.rowCount };
          }
          const source = beyondEnd ? noRows() : deps.engine.readPage(snapshot, offset, limit);
          const { rows, empty } = await primed(source);
          const body = writer.write(rows);
          // A body dropped before the writer read from it (a HEAD request, a client gone at
          // once) would leave the started query open: closing the rows releases it.
          body.once("close", () => void rows.return?.());
          // A page past the end is known to be empty before its bytes are sent.
          return empty ? { body, rowCount: 0 } : { body };
        },
      };
    },
  };
};
