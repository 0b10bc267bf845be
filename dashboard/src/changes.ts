/** What a form changes of what it loaded. */

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What `next` changes of `loaded`: only the fields whose value differs, groups kept as groups.
 * A save sends these alone, so it never puts back a value someone else changed meanwhile
 * (the service applies each field it is given to the app as stored).
 */
export const changesOf = (
  loaded: Record<string, unknown>,
  next: Record<string, unknown>,
): Record<string, unknown> => {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    const before = loaded[key];
    if (isPlainObject(value) && isPlainObject(before)) {
      const inner = changesOf(before, value);
      if (Object.keys(inner).length > 0) changes[key] = inner;
    } else if (JSON.stringify(value) !== JSON.stringify(before)) {
      changes[key] = value;
    }
  }
  return changes;
};
