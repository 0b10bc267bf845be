/**
 * Keys read through memory, for the embedded runtime, where every request is authenticated: a
 * key changes only when it is revoked, and whoever revokes one (the CLI, in another process)
 * moves `revision` on, which empties the cache before the next key is checked. Only keys that
 * exist are kept: one not found may be created at any moment. A key is read again after
 * `maxAgeMs` too, so a change whose mark was lost (a CLI killed between its write and its mark)
 * still arrives.
 */
import type { KeyStore, StoredKey } from "../../ports/apps.ts";
import { followRevision } from "./revision.ts";

export const cachedKeyStore = (
  store: KeyStore,
  revision: () => string,
  options: { maxAgeMs?: number; now?: () => number } = {},
): KeyStore => {
  const { maxAgeMs = 60_000, now = Date.now } = options;
  const entries = new Map<string, { key: StoredKey; readAt: number }>();
  const current = followRevision(revision, () => entries.clear());
  return {
    ...store,
    async get(keyId) {
      const before = current();
      const readAt = now();
      const cached = entries.get(keyId);
      if (cached && readAt - cached.readAt < maxAgeMs) return cached.key;
      const key = await store.get(keyId);
      // A change marked while this read was under way may postdate it: keep nothing then.
      if (key && current() === before) entries.set(keyId, { key, readAt });
      else entries.delete(keyId);
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
