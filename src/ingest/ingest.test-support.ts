/** Shared fixtures of the ingestion tests. Not imported by production code. */

export const NOW = new Date("2026-09-16T12:00:00.000Z");

/** A stand-in for the crypto module: `sealed:<json>` opens to the JSON value, else undefined. */
export const open = (value: string): unknown =>
  value.startsWith("sealed:") ? JSON.parse(value.slice("sealed:".length)) : undefined;

export const isSealed = (value: string): boolean => value.startsWith("sealed:");

/** A valid SDK event; `overrides` replace or add fields. */
export const sdkEvent = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  event_id: "evt-1",
  service_id: "svc-1",
  event_type: "PURCHASE",
  event_time: "2026-09-16T10:00:00Z",
  ...overrides,
});

/** A valid server-to-server event; `overrides` replace or add fields. */
export const s2sEvent = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  event_id: "evt-1",
  customer_user_id: "user-1",
  event_type: "PURCHASE",
  event_time: "2026-09-16T10:00:00Z",
  ...overrides,
});
