/** Shared fixtures of the ingestion tests. Not imported by production code. */
import { staticKeyring } from "../crypto/keyring.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import type { App } from "../ports/apps.ts";
import type { IngestionDeps } from "./service.ts";

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

/** What a test changes of ingestion's dependencies: a store's methods one by one, the rest whole. */
export type IngestionOverrides = {
  readonly [K in keyof IngestionDeps]?: NonNullable<IngestionDeps[K]> extends (
    ...args: never[]
  ) => unknown
    ? IngestionDeps[K]
    : Partial<NonNullable<IngestionDeps[K]>>;
};

/**
 * Ingestion's dependencies in memory for one app: no install, user, deletion or send is known,
 * and everything written is let go, but what `overrides` give.
 */
export const ingestionDeps = (app: App, overrides: IngestionOverrides = {}): IngestionDeps => {
  const base: IngestionDeps = {
    apps: {
      get: async () => app,
      create: async () => undefined,
      list: async () => [app],
      update: async (_appId, change) => change(app),
    },
    installs: {
      get: async () => undefined,
      putIfAbsent: async (found) => ({ install: found, created: true }),
      update: async () => undefined,
      delete: async () => undefined,
    },
    customerUsers: {
      get: async () => undefined,
      otherInstalls: async () => [],
      put: async (_app, _user, serviceId, seenAt) => ({ serviceId, seenAt }),
      deleteInstall: async () => undefined,
    },
    events: { put: async () => undefined },
    countries: { countryOf: () => null },
    fx: parseEcbRates("Date,USD\n2026-09-15,1.1\n"),
    keyrings: async () => staticKeyring({}),
    attribution: {
      store: { createPending: async () => true },
      queue: { send: async () => undefined },
    },
    deletions: { listByInstall: async () => [] },
    sightings: { recordSightings: async () => undefined },
    now: () => NOW,
  };
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const given = merged[key];
    merged[key] =
      typeof value === "function" || typeof given !== "object" || given === null
        ? value
        : { ...given, ...value };
  }
  return merged as unknown as IngestionDeps;
};
