/**
 * Malformed and hostile bodies thrown at every ingestion route over HTTP (fast-check): never
 * a 5xx, always the spec's error body with a clear detail, nothing written when the request is
 * refused, and on a 202 exactly the events the answer accepts. Hostile path parameters too.
 */
import { readdir, readFile } from "node:fs/promises";
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

/** The events in the write-ahead files: a line holds one put's `rows`. */
const walEvents = async (dataDir: string): Promise<number> => {
  const dir = join(dataPaths(dataDir).wal, "events");
  const names = await readdir(dir).catch(() => []);
  let events = 0;
  for (const name of names) {
    for (const line of (await readFile(join(dir, name), "utf8")).split("\n")) {
      if (line !== "") events += (JSON.parse(line) as { rows: unknown[] }).rows.length;
    }
  }
  return events;
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
    // The checks count rows in the events stream's write-ahead files, which the stream's own
    // timer would move into the lake part way through: only a flush the tests ask for moves them.
    rt = await startTestRuntime({ flushIntervalMs: 24 * 3_600_000 });
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
    // Its attribution writes its install event: done before any count of the stream.
    await rt.workers.idle();
  });

  afterAll(async () => {
    await rt.dispose();
  });

  it.each(ROUTES)(
    "$path answers every body with 202 or a clear 4xx, and writes nothing on a 4xx",
    async (route) => {
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          const before = await walEvents(rt.config.dataDir);
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
          // A new install's attribution writes its install event: counted once it is done.
          await rt.workers.idle();
          if (response.status === 202) {
            // Every accepted event written, and nothing else; a new install, its own event.
            const accepted = typeof answer.accepted === "number" ? answer.accepted : 0;
            const installed = route.path === "/v1/installs" && named && !installBefore ? 1 : 0;
            expect(await walEvents(rt.config.dataDir)).toBe(before + accepted + installed);
            return;
          }
          expect([400, 413, 422]).toContain(response.status);
          expect(Object.keys(answer).sort()).toEqual(["detail", "error"]);
          expect(String(answer.detail).length).toBeGreaterThan(5);
          expect(await walEvents(rt.config.dataDir)).toBe(before);
          if (named) expect(await rt.stores.installs.get(APP, named)).toEqual(installBefore);
        }),
        { numRuns: 120 },
      );
    },
  );

  it("answers hostile path parameters with 202, 404 or a clear 4xx, never a 5xx", async () => {
    const segment = fc.oneof(
      fc.string({ minLength: 1 }),
      fc.constantFrom("..", "%2e%2e", "%00", "a".repeat(5_000), "app#com.example.hostile"),
    );
    await fc.assert(
      fc.asyncProperty(segment, fc.boolean(), async (text, deleting) => {
        const path = deleting
          ? `/v1/installs/${encodeURIComponent(text)}`
          : `/v1/deletions/${encodeURIComponent(text)}`;
        const response = await rt.fetch(
          path,
          { method: deleting ? "DELETE" : "GET" },
          deleting ? keys.sdkKey : keys.serverKey,
        );
        expect(response.status).toBeLessThan(500);
        const answer = (await response.json()) as Record<string, unknown>;
        if (response.status >= 400) {
          expect(Object.keys(answer).sort()).toEqual(["detail", "error"]);
          expect(String(answer.detail).length).toBeGreaterThan(5);
        }
      }),
      { numRuns: 80 },
    );
  });

  it("does not let a body pollute object prototypes", async () => {
    await rt.post("/v1/events", '{"__proto__": {"polluted": true}, "events": []}', keys.sdkKey);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(ROUTES)(
    "$path refuses a body that is not UTF-8 with a 400, and writes nothing",
    async (route) => {
      const before = await walEvents(rt.config.dataDir);
      // "é" in Latin-1: one byte, 0xE9, that no UTF-8 text holds alone.
      const body = Buffer.from(
        `{"events":[{"event_id":"e-latin1","service_id":"s-1","event_type":"CUSTOM","event_name":"caf\xe9","event_time":"${recent()}"}]}`,
        "latin1",
      );
      const response = await rt.fetch(
        route.path,
        { method: "POST", headers: { "content-type": "application/json" }, body },
        keys[route.key],
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: "Bad Request",
        detail: expect.stringContaining("UTF-8"),
      });
      expect(await walEvents(rt.config.dataDir)).toBe(before);
    },
  );
});
