/** Construct ids from data names: `events` → `Events`, `s2s-events` → `S2sEvents`. */
export const pascal = (name: string): string =>
  name.replace(/(^|[_-])([a-z0-9])/g, (_match, _separator: string, c: string) => c.toUpperCase());
