/**
 * The snapshot catalog held in memory, for the embedded runtime: its one process is the only
 * writer (exports put, the purge deletes), so what it last read or wrote is what the store
 * holds, and each export page skips a store read. Entries are kept for the most recently used
 * windows and snapshots; the oldest go first when the cache is full.
 */
import type { AppSnapshots, SnapshotCatalog, SnapshotRef } from "../../ports/lake.ts";
import { RecentMap } from "./recent-map.ts";

export const cachedSnapshotCatalog = (
  store: SnapshotCatalog & AppSnapshots,
  maxEntries: number,
): SnapshotCatalog & AppSnapshots => {
  // An entry of undefined is a window or an id known to have no snapshot.
  const entries = new RecentMap<string, SnapshotRef | undefined>(maxEntries);
  // Bumped by every write, so a read that overlapped one is not remembered.
  let writes = 0;
  const latestKey = (appId: string, since: number) => `${appId}#${since}`;
  const idKey = (appId: string, since: number, snapshotId: string) =>
    `${appId}#${since}#${snapshotId}`;
  const remembered = async (key: string, read: () => Promise<SnapshotRef | undefined>) => {
    if (entries.has(key)) return entries.get(key);
    const before = writes;
    const ref = await read();
    if (writes === before) entries.set(key, ref);
    return ref;
  };
  /** After a write, whatever its outcome: the entries it touched are read again. */
  const forget = (ref: SnapshotRef) => {
    writes += 1;
    entries.delete(latestKey(ref.appId, ref.since));
    entries.delete(idKey(ref.appId, ref.since, ref.snapshotId));
  };
  return {
    ...store,
    latest: (appId, since) => remembered(latestKey(appId, since), () => store.latest(appId, since)),
    byId: (appId, since, snapshotId) =>
      remembered(idKey(appId, since, snapshotId), () => store.byId(appId, since, snapshotId)),
    async put(ref) {
      try {
        await store.put(ref);
      } finally {
        forget(ref);
      }
      // Its window's newest is whichever the store kept (one made later stays): read again.
      entries.set(idKey(ref.appId, ref.since, ref.snapshotId), ref);
    },
    async delete(ref) {
      try {
        await store.delete(ref);
      } finally {
        // The store deletes the window's entry only if it still names this snapshot: read it again.
        forget(ref);
      }
    },
  };
};
