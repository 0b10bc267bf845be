/**
 * Values read through memory by key, each kept `ttlMs` from its read: what the caches of apps,
 * links and postback configurations share. Concurrent reads of one key share the store's read;
 * a failed read is not remembered; every entry goes at once when `revision` moves (see
 * ./revision.ts); the least recently used go first past `maxEntries`. A cache forgets the key
 * of a change it makes itself.
 */
import { RecentMap } from "./recent-map.ts";
import { followRevision } from "./revision.ts";

export interface ReadThroughOptions {
  readonly now?: () => number;
  readonly revision?: () => string;
  /** 100,000 by default. */
  readonly maxEntries?: number;
}

export interface ReadThrough<K, V> {
  get(key: K): Promise<V>;
  forget(key: K): void;
}

export const readThrough = <K, V>(
  load: (key: K) => Promise<V>,
  ttlMs: number,
  options: ReadThroughOptions = {},
): ReadThrough<K, V> => {
  const { now = Date.now, revision = () => "", maxEntries = 100_000 } = options;
  const entries = new RecentMap<K, { value: Promise<V>; expiresAt: number }>(maxEntries);
  const follow = followRevision(revision, () => entries.clear());
  return {
    get(key) {
      follow();
      const cached = entries.get(key);
      if (cached && cached.expiresAt > now()) return cached.value;
      const value = load(key);
      const entry = { value, expiresAt: now() + ttlMs };
      entries.set(key, entry);
      // Only this read's entry goes: a later one may have taken its place meanwhile.
      value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return value;
    },
    forget: (key) => entries.delete(key),
  };
};
