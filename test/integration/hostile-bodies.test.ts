/**
 * Malformed and hostile bodies thrown at every ingestion route over HTTP (fast-check): never
 * a 5xx, always the spec's error body with a clear detail, and nothing written when the
 * request is refused.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataPaths } from "../../src/embedded/data-dir.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const ROUTES = [
  { path: "/v1/installs", key: "sdkKey" },
  { path: "/v1/events", key: "sdkKey" },
  { path: "/v1/s2s/events", key: "serverKey" },
] as const;

const recent = () => new Date(Date.now() - 60_000).toISOString();

/** Bodies that are almost right: real field names with hostile values. */
const nearMiss = fc.record(
  {
    service_id: fc.oneof(fc.string(), fc.constant("s-1"), fc.constant("a".repeat(200))),
    event_id: fc.oneof(fc.string(), fc.uuid()),
    event_type: fc.oneof(
      fc.constantFrom("PURCHASE", "CUSTOM", "INSTALL", "purchase", "__proto__"),
      fc.string(),
    ),
    event_name: fc.oneof(fc.string(), fc.constant(null)),
    event_time: fc.oneof(fc.constant(recent()), fc.string(), fc.integer()),
    customer_user_id: fc.oneof(fc.string(), fc.constant("user-1")),
    os: fc.constantFrom("android", "ios", "", "ANDROID"),
    sdk_platform: fc.string(),
    sdk_version: fc.string(),
    first_open_time: fc.oneof(fc.constant(recent()), fc.string()),
    parameters: fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 8 })),
      fc.constant({ revenue: "1e309", currency: "usd" }),
      fc.constant({ email: ["not", "a", "string"] }),
    ),
  },
  { requiredKeys: [] },
);

const bodies = fc.oneof(
  fc.string().map((text) => ({ raw: text })),
  fc.jsonValue().map((value) => ({ json: value })),
  nearMiss.map((value) => ({ json: value })),
  fc.array(nearMiss, { maxLength: 120 }).map((events) => ({ json: { events } })),
  fc.constantFrom(
    { raw: "{" },
    { raw: "[]" },
    { raw: "null" },
    { raw: '{"events": {"length": 1}}' },
    { raw: `{"events": [${"[".repeat(5_000)}${"]".repeat(5_000)}]}` },
    { raw: `{"__proto__": {"polluted": true}, "events": []}` },
  ),
);

const walBytes = async (dataDir: string): Promise<number> => {
  const dir = join(dataPaths(dataDir).wal, "events");
  const names = await readdir(dir).catch(() => []);
  const sizes = await Promise.all(names.map(async (n) => (await stat(join(dir, n))).size));
  return sizes.reduce((a, b) => a + b, 0);
};

const APP = "com.example.hostile";

/** The service_id a JSON body names at its top level (an install's), if it names one. */
const installNamed = (body: { raw: string } | { json: unknown }): string | undefined => {
  if (!("json" in body) || typeof body.json !== "object" || body.json === null) return undefined;
  const serviceId: unknown = Object.hasOwn(body.json, "service_id")
    ? Reflect.get(body.json, "service_id")
    : undefined;
  return typeof serviceId === "string" ? serviceId : undefined;
};

describe("hostile bodies", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };

  beforeAll(async () => {
    rt = await startTestRuntime();
    keys = await rt.createApp(APP, "android");
    // A real install and customer user, so near-miss events can also be accepted.
    await rt.post(
      "/v1/installs",
      {
        service_id: "s-1",
        os: "android",
        sdk_platform: "kotlin",
        sdk_version: "1.11.0",
        first_open_time: recent(),
        customer_user_id: "user-1",
      },
      keys.sdkKey,
    );
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it.each(ROUTES)(
    "$path answers every body with 202 or a clear 4xx, and writes nothing on a 4xx",
    async (route) => {
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          const before = await walBytes(rt.config.dataDir);
          // The install a body names, as stored before it: a 4xx must leave it so.
          const named = installNamed(body);
          const installBefore = named && (await rt.stores.installs.get(APP, named));
          const response = await rt.post(
            route.path,
            "raw" in body ? body.raw : JSON.stringify(body.json),
            keys[route.key],
          );
          const answer = (await response.json()) as Record<string, unknown>;
          expect(response.status).toBeLessThan(500);
          if (response.status === 202) return;
          expect([400, 413, 422]).toContain(response.status);
          expect(Object.keys(answer).sort()).toEqual(["detail", "error"]);
          expect(String(answer.detail).length).toBeGreaterThan(5);
          expect(await walBytes(rt.config.dataDir)).toBe(before);
          if (named) expect(await rt.stores.installs.get(APP, named)).toEqual(installBefore);
        }),
        { numRuns: 120 },
      );
    },
  );

  it("does not let a body pollute object prototypes", async () => {
    await rt.post("/v1/events", '{"__proto__": {"polluted": true}, "events": []}', keys.sdkKey);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
