import { type ReadThroughOptions, readThrough } from "./read-through.ts";

/**
 * One value read at most once per `ttlMs` (a failed read is not remembered), and read again
 * at once when `revision` moves (see ./read-through.ts).
 */
export const cachedValue = <T>(
  load: () => Promise<T>,
  ttlMs: number,
  options: Omit<ReadThroughOptions, "maxEntries"> = {},
): (() => Promise<T>) => {
  const value = readThrough(load, ttlMs, { ...options, maxEntries: 1 });
  return () => value.get(undefined);
};
