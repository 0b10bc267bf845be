/** One value read at most once per `ttlMs` (a failed read is not remembered). */
export const cachedValue = <T>(
  load: () => Promise<T>,
  ttlMs: number,
  now: () => number = Date.now,
): (() => Promise<T>) => {
  let cached: { value: Promise<T>; expiresAt: number } | undefined;
  return () => {
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
