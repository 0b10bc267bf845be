/**
 * The Lambda entry points load with the environment the stack gives them, and refuse to load,
 * naming the variable, without it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const ENTRIES = {
  config: {
    load: () => import("./config.ts"),
    env: { APPS_TABLE: "apps" },
  },
  export: {
    load: () => import("./export.ts"),
    env: { SNAPSHOTS_TABLE: "snapshots", ATHENA_WORKGROUP: "exports", GLUE_DATABASE: "lake" },
  },
  authorizer: {
    load: () => import("./authorizer.ts"),
    env: { APPS_TABLE: "apps", KEYS_TABLE: "keys" },
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

describe("lambdas/export.ts", () => {
  it("refuses an out-of-range SNAPSHOT_TTL_SECONDS, naming it", async () => {
    stubEnv({ ...ENTRIES.export.env, SNAPSHOT_TTL_SECONDS: "5" });
    await expect(ENTRIES.export.load()).rejects.toThrow(/SNAPSHOT_TTL_SECONDS/);
  });
});
