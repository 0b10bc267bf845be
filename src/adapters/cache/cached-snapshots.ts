/**
 * The snapshot catalog held in memory, for the embedded runtime: its one process is the only
 * writer (exports claim, the purge deletes), so what it last read or wrote is what the store
 * holds, and each export page skips a store read. Entries are kept for the most recently used
 * (app, timestamp) pairs; the oldest go first when the cache is full.
 */
import type { AppSnapshots, SnapshotCatalog, SnapshotRef } from "../../ports/lake.ts";
import { RecentMap } from "./recent-map.ts";

export const cachedSnapshotCatalog = (
  store: SnapshotCatalog & AppSnapshots,
  maxEntries: number,
): SnapshotCatalog & AppSnapshots => {
  // An entry of undefined is a pair known to have no snapshot.
  const entries = new RecentMap<string, SnapshotRef | undefined>(maxEntries);
  // Bumped by every write, so a read that overlapped one is not remembered.
  let writes = 0;
  const keyOf = (appId: string, since: number) => `${appId}#${since}`;
  const written = (key: string, ref: SnapshotRef) => {
    writes += 1;
    entries.set(key, ref);
  };
  return {
    ...store,
    async get(appId, since) {
      const key = keyOf(appId, since);
      if (entries.has(key)) return entries.get(key);
      const before = writes;
      const ref = await store.get(appId, since);
      if (writes === before) entries.set(key, ref);
      return ref;
    },
    async put(ref) {
      await store.put(ref);
      written(keyOf(ref.appId, ref.since), ref);
    },
    async claim(ref) {
      const standing = await store.claim(ref);
      written(keyOf(ref.appId, ref.since), standing);
      return standing;
    },
    async delete(ref) {
      try {
        await store.delete(ref);
      } finally {
        // The store deletes the entry only if it still names this snapshot: read it again.
        writes += 1;
        entries.delete(keyOf(ref.appId, ref.since));
      }
    },
  };
};
