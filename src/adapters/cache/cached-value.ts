import { followRevision } from "./revision.ts";

/**
 * One value read at most once per `ttlMs` (a failed read is not remembered), and read again
 * at once when `revision` moves (see ./revision.ts).
 */
export const cachedValue = <T>(
  load: () => Promise<T>,
  ttlMs: number,
  options: { readonly now?: () => number; readonly revision?: () => string } = {},
): (() => Promise<T>) => {
  const now = options.now ?? Date.now;
  let cached: { value: Promise<T>; expiresAt: number } | undefined;
  const follow =
    options.revision &&
    followRevision(options.revision, () => {
      cached = undefined;
    });
  return () => {
    follow?.();
    if (cached && cached.expiresAt > now()) return cached.value;
    const value = load();
    const entry = { value, expiresAt: now() + ttlMs };
    cached = entry;
    value.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return value;
  };
};
