/**
 * Installs kept in memory once read, for the embedded runtime's ingestion path: an install
 * changes after its first open only through this same store (its consent and tracking, its purge), which
 * keeps the entry current. Only installs that exist are kept: one not found yet may arrive at
 * any moment. The least recently used go first when the cache is full. A read that a deletion
 * or a consent change overlapped is not kept: it may have found the install just before it
 * went, or its consent just before it changed, and kept, it would answer a withdrawn consent as
 * given to every later read (a postback attempt's, say) until evicted.
 */
import type { Install, InstallChange, InstallStore } from "../../ports/installs.ts";
import { RecentMap } from "./recent-map.ts";

export const cachedInstallStore = <S extends InstallStore>(store: S, maxEntries: number): S => {
  const entries = new RecentMap<string, Install>(maxEntries);
  const keyOf = (appId: string, serviceId: string) => `${appId}#${serviceId}`;
  // Moved on before and after each deletion and update: a read from across one is not
  // kept.
  let generation = 0;
  // The installs with a deletion or update under way. A read begun meanwhile may find
  // the install as it was before the change (the store reads outside the change's turn), and
  // may return before the change ends, with no generation moved in between.
  const changing = new Map<string, number>();
  /** Called as a read begins: keeps what it found, unless a change overlapped the read. */
  const readAt = (key: string) => {
    const before = changing.has(key) ? undefined : generation;
    return (install: Install | undefined) => {
      if (install && before === generation) entries.set(key, install);
    };
  };
  const change = async <T>(key: string, write: (own: number) => Promise<T>): Promise<T> => {
    generation += 1;
    changing.set(key, (changing.get(key) ?? 0) + 1);
    entries.delete(key);
    try {
      return await write(generation);
    } finally {
      generation += 1;
      const left = (changing.get(key) ?? 1) - 1;
      if (left > 0) changing.set(key, left);
      else changing.delete(key);
    }
  };
  return {
    // What this cache does not answer (another lookup of the store) goes to the store.
    ...store,
    async putIfAbsent(install: Install) {
      const keep = readAt(keyOf(install.appId, install.serviceId));
      const stored = await store.putIfAbsent(install);
      // An install already there is a read of it.
      keep(stored.install);
      return stored;
    },
    async get(appId: string, serviceId: string) {
      const key = keyOf(appId, serviceId);
      const cached = entries.get(key);
      if (cached) return cached;
      const keep = readAt(key);
      const found = await store.get(appId, serviceId);
      keep(found);
      return found;
    },
    update(appId: string, serviceId: string, installChange: InstallChange) {
      const key = keyOf(appId, serviceId);
      return change(key, async (own) => {
        const updated = await store.update(appId, serviceId, installChange);
        // Kept unless another change overlapped: which of the two the store has last is not
        // known here, so the next read asks it.
        if (updated && generation === own && changing.get(key) === 1) entries.set(key, updated);
        return updated;
      });
    },
    delete(appId: string, serviceId: string) {
      return change(keyOf(appId, serviceId), () => store.delete(appId, serviceId));
    },
  };
};
