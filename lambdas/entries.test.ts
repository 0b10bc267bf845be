/**
 * The Lambda entry points load with the environment the stack gives them, and refuse to load,
 * naming the variable, without it.
 */
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { defaultCountryDatabase } from "../src/adapters/geoip/country-resolver.ts";

// The files the stack ships in the ingestion functions' assets, read at start-up.
const INGEST_ENV = {
  APPS_TABLE: "apps",
  INSTALLS_TABLE: "installs",
  CUSTOMER_USERS_TABLE: "customer-users",
  EVENTS_STREAM: "events",
  SEALING_KEY_ARN: "arn:aws:kms:eu-west-1:123456789012:key/00000000-0000-0000-0000-000000000000",
  FX_RATES_FILE: fileURLToPath(new URL("../data/ecb-eurofxref-hist.csv", import.meta.url)),
  GEOIP_DB_FILE: defaultCountryDatabase(),
  DELETIONS_TABLE: "deletions",
  ATTRIBUTIONS_TABLE: "attributions",
  ATTRIBUTION_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/attribute",
};

const LINKS_ENV = {
  APPS_TABLE: "apps",
  LINKS_TABLE: "links",
  LINK_BASE_URL: "https://go.example.com",
};

const TOUCHES_ENV = {
  APPS_TABLE: "apps",
  LINKS_TABLE: "links",
  TOUCHES_TABLE: "touches",
  TOUCHES_STREAM: "touches",
  GEOIP_DB_FILE: defaultCountryDatabase(),
};

const ENTRIES = {
  "delete-install": {
    load: () => import("./delete-install.ts"),
    env: { DELETIONS_TABLE: "deletions" },
  },
  "deletion-status": {
    load: () => import("./deletion-status.ts"),
    env: { DELETIONS_TABLE: "deletions" },
  },
  config: {
    load: () => import("./config.ts"),
    env: { APPS_TABLE: "apps" },
  },
  export: {
    load: () => import("./export.ts"),
    env: {
      SNAPSHOTS_TABLE: "snapshots",
      DELETIONS_TABLE: "deletions",
      ATHENA_WORKGROUP: "exports",
      GLUE_DATABASE: "lake",
      RESULTS_BUCKET: "results",
    },
  },
  openapi: { load: () => import("./openapi.ts"), env: {} },
  authorizer: {
    load: () => import("./authorizer.ts"),
    env: { APPS_TABLE: "apps", KEYS_TABLE: "keys" },
  },
  // Scheduled, not a route: the purge of deleted installs.
  purge: {
    load: () => import("./purge.ts"),
    env: {
      DELETIONS_TABLE: "deletions",
      INSTALLS_TABLE: "installs",
      CUSTOMER_USERS_TABLE: "customer-users",
      ATTRIBUTIONS_TABLE: "attributions",
      SNAPSHOTS_TABLE: "snapshots",
      LAKE_BUCKET: "lake",
      RESULTS_BUCKET: "results",
    },
  },
  installs: { load: () => import("./installs.ts"), env: INGEST_ENV },
  events: { load: () => import("./events.ts"), env: INGEST_ENV },
  "s2s-events": { load: () => import("./s2s-events.ts"), env: INGEST_ENV },
  "create-link": { load: () => import("./create-link.ts"), env: LINKS_ENV },
  "list-links": { load: () => import("./list-links.ts"), env: LINKS_ENV },
  "get-link": { load: () => import("./get-link.ts"), env: LINKS_ENV },
  "update-link": { load: () => import("./update-link.ts"), env: LINKS_ENV },
  touches: { load: () => import("./touches.ts"), env: TOUCHES_ENV },
  // The link host's API.
  click: { load: () => import("./click.ts"), env: TOUCHES_ENV },
  "apple-app-site-association": {
    load: () => import("./apple-app-site-association.ts"),
    env: { APPS_TABLE: "apps" },
  },
  assetlinks: { load: () => import("./assetlinks.ts"), env: { APPS_TABLE: "apps" } },
  attribution: {
    load: () => import("./attribution.ts"),
    env: { APPS_TABLE: "apps", ATTRIBUTIONS_TABLE: "attributions", DELETIONS_TABLE: "deletions" },
  },
  // The attribution worker, fed by its queue, and its scheduled sweep.
  attribute: {
    load: () => import("./attribute.ts"),
    env: {
      APPS_TABLE: "apps",
      INSTALLS_TABLE: "installs",
      ATTRIBUTIONS_TABLE: "attributions",
      TOUCHES_TABLE: "touches",
      ATTRIBUTIONS_STREAM: "attributions",
      EVENTS_STREAM: "events",
      DELETIONS_TABLE: "deletions",
    },
  },
  "attribution-sweep": {
    load: () => import("./attribution-sweep.ts"),
    env: {
      ATTRIBUTIONS_TABLE: "attributions",
      ATTRIBUTION_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/attribute",
    },
  },
};

const stubEnv = (env: Record<string, string>) => {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
};

beforeEach(() => {
  // Each import runs the module's start-up again.
  vi.resetModules();
  vi.stubEnv("AWS_REGION", "eu-west-1");
  // The Lambda runtime's global, which response streaming wraps the handler with.
  vi.stubGlobal("awslambda", {
    streamifyResponse: <T>(handler: T) => handler,
    HttpResponseStream: { from: <T>(stream: T) => stream },
  });
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe.each(Object.entries(ENTRIES))("lambdas/%s.ts", (_, entry) => {
  it("exports a handler when its environment is valid", async () => {
    stubEnv(entry.env);
    const { handler } = await entry.load();
    expect(typeof handler).toBe("function");
  });

  it.each(Object.keys(entry.env))("refuses to load without %s, naming it", async (missing) => {
    stubEnv(entry.env);
    vi.stubEnv(missing, undefined);
    await expect(entry.load()).rejects.toThrow(new RegExp(`Invalid environment: .*${missing}`));
  });
});

describe("lambdas/ingestion.ts", () => {
  it("refuses a relative data file path, naming it", async () => {
    stubEnv({ ...INGEST_ENV, GEOIP_DB_FILE: "geo-whois-asn-country.mmdb" });
    await expect(import("./installs.ts")).rejects.toThrow(/GEOIP_DB_FILE: must be an absolute/);
  });

  it("refuses to load when a data file is not where the environment says", async () => {
    stubEnv({ ...INGEST_ENV, FX_RATES_FILE: "/nonexistent/ecb-eurofxref-hist.csv" });
    await expect(import("./events.ts")).rejects.toThrow(/ENOENT.*ecb-eurofxref-hist\.csv/);
  });
});

describe("lambdas/export.ts", () => {
  it("refuses an out-of-range SNAPSHOT_TTL_SECONDS, naming it", async () => {
    stubEnv({ ...ENTRIES.export.env, SNAPSHOT_TTL_SECONDS: "5" });
    await expect(ENTRIES.export.load()).rejects.toThrow(/SNAPSHOT_TTL_SECONDS/);
  });
});

describe("lambdas/purge.ts", () => {
  it("refuses a MIN_REQUEST_AGE_SECONDS under a minute, naming it", async () => {
    stubEnv({ ...ENTRIES.purge.env, MIN_REQUEST_AGE_SECONDS: "30" });
    await expect(ENTRIES.purge.load()).rejects.toThrow(/MIN_REQUEST_AGE_SECONDS/);
  });
});
