/**
 * Keys read through memory, for the embedded runtime, where every request is authenticated: a
 * key changes only when it is revoked, and whoever revokes one (the CLI, in another process)
 * moves `revision` on, which empties the cache before the next key is checked. Only keys that
 * exist are kept: one not found may be created at any moment.
 */
import type { KeyStore, StoredKey } from "../../ports/apps.ts";

export const cachedKeyStore = (store: KeyStore, revision: () => string): KeyStore => {
  const entries = new Map<string, StoredKey>();
  let seen = revision();
  const current = (): string => {
    const now = revision();
    if (now !== seen) {
      entries.clear();
      seen = now;
    }
    return now;
  };
  return {
    ...store,
    async get(keyId) {
      const before = current();
      const cached = entries.get(keyId);
      if (cached) return cached;
      const key = await store.get(keyId);
      // A change marked while this read was under way may postdate it: keep nothing then.
      if (key && current() === before) entries.set(keyId, key);
      return key;
    },
    async put(key) {
      entries.delete(key.keyId);
      await store.put(key);
    },
    async revoke(keyId, at) {
      try {
        return await store.revoke(keyId, at);
      } finally {
        entries.delete(keyId);
      }
    },
  };
};
