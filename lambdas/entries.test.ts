/**
 * The Lambda entry points, as lambdas/entries.ts writes them from the manifest, load with the
 * environment the stack gives them, and refuse to load, naming the variable, without it.
 */
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FUNCTIONS, type FunctionId, functionOf } from "../src/functions/manifest.ts";
import { sampleEnv } from "../src/functions/sample-env.ts";
import { writeEntry } from "./entries.ts";

const loader = (id: FunctionId) => {
  const url = pathToFileURL(writeEntry(id)).href;
  return () => import(url);
};

/** Every deployable function of the manifest, loaded as the stack deploys it. */
const ENTRIES = Object.fromEntries(
  FUNCTIONS.map((row) => [
    row.id,
    { load: loader(row.id as FunctionId), env: sampleEnv(row.uses) },
  ]),
);

// The ingestion functions share one environment, with the files shipped in their assets.
const INGEST_ENV = sampleEnv(functionOf("events").uses);
const EXPORT = { load: loader("export"), env: sampleEnv(functionOf("export").uses) };
const PURGE = { load: loader("purge"), env: sampleEnv(functionOf("purge").uses) };
const INSTALLS = loader("installs");
const EVENTS = loader("events");

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

describe.each(Object.entries(ENTRIES))("the %s function's entry", (_, entry) => {
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

describe("the ingestion entries (installs, events, s2s-events)", () => {
  it("refuses a relative data file path, naming it", async () => {
    stubEnv({ ...INGEST_ENV, GEOIP_DB_FILE: "geo-whois-asn-country.mmdb" });
    await expect(INSTALLS()).rejects.toThrow(/GEOIP_DB_FILE: must be an absolute/);
  });

  it("refuses to load when a data file is not where the environment says", async () => {
    stubEnv({ ...INGEST_ENV, FX_RATES_FILE: "/nonexistent/ecb-eurofxref-hist.csv" });
    await expect(EVENTS()).rejects.toThrow(/ENOENT.*ecb-eurofxref-hist\.csv/);
  });
});

describe("the export function's entry", () => {
  it("refuses an out-of-range SNAPSHOT_TTL_SECONDS, naming it", async () => {
    stubEnv({ ...EXPORT.env, SNAPSHOT_TTL_SECONDS: "5" });
    await expect(EXPORT.load()).rejects.toThrow(/SNAPSHOT_TTL_SECONDS/);
  });
});

describe("the purge function's entry", () => {
  it("refuses a MIN_REQUEST_AGE_SECONDS under a minute, naming it", async () => {
    stubEnv({ ...PURGE.env, MIN_REQUEST_AGE_SECONDS: "30" });
    await expect(PURGE.load()).rejects.toThrow(/MIN_REQUEST_AGE_SECONDS/);
  });
});
