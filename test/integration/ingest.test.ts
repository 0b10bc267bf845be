/**
 * SDK and server-to-server ingestion over HTTP against the embedded runtime, through to the
 * export: installs, events of every type, S2S events and revenue in three currencies come out
 * exactly as accepted, enriched from the install and the app.
 */
import { randomUUID } from "node:crypto";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyFileWrapper } from "../../src/adapters/key-file/key-file-wrapper.ts";
import { withEncryption } from "../../src/apps/app-config.ts";
import { installEventId } from "../../src/attribution/lake-rows.ts";
import { seal } from "../../src/crypto/envelope.ts";
import { EVENT_TYPES } from "../../src/domain/event-types.ts";
import { dataPaths } from "../../src/embedded/data-dir.ts";
import type { EventsAnswer } from "../../src/ingest/service.ts";
import type { ExportRecord } from "../../src/record/columns.ts";
import { installRequest, REQUEST_IDFV } from "../support/installs.ts";
import { ecbRatesCsv } from "../support/rates.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.ingest";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** ECB-shaped rates for the last 40 days (units per EUR), as `rates import` would bring. */
const RATES = { USD: 1.08, JPY: 160, GBP: 0.85 };
const ratesCsv = () => ecbRatesCsv(RATES, 40);
const usd = (amount: number, currency: keyof typeof RATES | "EUR") =>
  currency === "EUR" ? amount * RATES.USD : (amount / RATES[currency]) * RATES.USD;

describe("ingestion", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };
  const serviceId = randomUUID();

  const sendEvents = async (
    events: unknown[],
    options: { s2s?: boolean; country?: string } = {},
  ) => {
    const response = await rt.post(
      options.s2s ? "/v1/s2s/events" : "/v1/events",
      { events },
      options.s2s ? keys.serverKey : keys.sdkKey,
      options.country ? { "cloudfront-viewer-country": options.country } : {},
    );
    expect(response.status).toBe(202);
    return (await response.json()) as EventsAnswer;
  };

  const exported = async (): Promise<ExportRecord[]> => {
    // Attribution writes each install's own event: once its jobs are done, all is in the streams.
    await rt.workers.idle();
    await rt.flush();
    // A first page: a snapshot of the window as it is now.
    const since = Math.floor(Date.now() / 1000) - 3 * 86_400;
    const response = await rt.get(`/api/v1/export?timestamp=${since}`, keys.serverKey);
    return ((await response.json()) as { data: ExportRecord[] }).data;
  };

  /** An event's parameters as the lake keeps them (JSON text), after a flush. */
  const storedParameters = async (eventId: string): Promise<string> => {
    await rt.flush();
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT parameters FROM read_parquet('${rt.config.dataDir}/lake/events/**/*.parquet') WHERE event_id = '${eventId}'`,
      );
      return String(reader.getRowObjectsJS()[0]?.parameters);
    } finally {
      connection.closeSync();
      duckdb.closeSync();
    }
  };

  beforeAll(async () => {
    rt = await startTestRuntime({ ratesCsv: ratesCsv() });
    keys = await rt.createApp(APP, "ios");
  });

  afterAll(async () => {
    await rt.dispose();
  });

  describe("POST /v1/installs", () => {
    it("records an install with 202, and answers a repeat the same without changing it", async () => {
      const first = await rt.post(
        "/v1/installs",
        installRequest(serviceId, { customer_user_id: "user-1" }),
        keys.sdkKey,
        {
          "cloudfront-viewer-country": "BR",
        },
      );
      expect(first.status).toBe(202);
      expect(await first.json()).toEqual({ service_id: serviceId });
      const again = await rt.post(
        "/v1/installs",
        installRequest(serviceId, { os_version: "99" }),
        keys.sdkKey,
      );
      expect(again.status).toBe(202);
      expect(await again.json()).toEqual({ service_id: serviceId });
      const stored = await rt.stores.installs.get(APP, serviceId);
      expect(stored).toMatchObject({
        osVersion: "18.1",
        country: "BR",
        maid: null,
        idfv: REQUEST_IDFV,
      });
    });

    it("takes the ATT answer and IDFA a repeat carries for an app that reports no consent, and nothing from the bare install", async () => {
      const asked = randomUUID();
      const idfa = "EA7583CD-A667-48BC-B806-42ECB2B48606";
      const first = installRequest(asked, { att_status: "not_determined", maid: null });
      expect((await rt.post("/v1/installs", first, keys.sdkKey)).status).toBe(202);
      // The first report's answer was lost; the user allowed tracking before the SDK sent it
      // again, and once answered the SDK holds the tracking as sent: it sends no update for it.
      const again = { ...first, att_status: "authorized", maid: idfa };
      expect((await rt.post("/v1/installs", again, keys.sdkKey)).status).toBe(202);
      expect(await rt.stores.installs.get(APP, asked)).toMatchObject({
        attStatus: "authorized",
        maid: idfa,
        consent: null,
      });
      // The bare install names no tracking: the install keeps what it has.
      const bare = {
        service_id: asked,
        os: "ios",
        sdk_platform: "flutter",
        sdk_version: "2.10.0",
        first_open_time: first.first_open_time,
      };
      expect((await rt.post("/v1/installs", bare, keys.sdkKey)).status).toBe(202);
      const eventId = randomUUID();
      await sendEvents([
        {
          event_id: eventId,
          service_id: asked,
          event_type: "CUSTOM",
          event_name: "tutorial_done",
          event_time: new Date().toISOString(),
        },
      ]);
      expect((await exported()).find((record) => record.event_id === eventId)).toMatchObject({
        maid: idfa,
      });
    });
  });

  describe("POST /v1/events", () => {
    it("accepts every event type, ignores a manual INSTALL, and exports them enriched", async () => {
      const events = EVENT_TYPES.map((type, i) => ({
        event_id: `evt-${type}`,
        service_id: serviceId,
        event_type: type,
        event_name: type === "CUSTOM" ? "Boss Defeated" : "ignored for standard types",
        event_time: minutesAgo(50 - i),
        parameters:
          type === "PURCHASE" ? { revenue: 4.99, currency: "EUR", sku: "gems_100" } : { level: i },
        customer_user_id: "user-1",
      }));
      const answer = await sendEvents(events, { country: "PT" });
      expect(answer.accepted).toBe(EVENT_TYPES.length - 1);
      expect(answer.ignored).toEqual([
        {
          index: 0,
          event_id: "evt-INSTALL",
          reason: "install_event",
          detail: expect.stringMatching(/install/i),
        },
      ]);
      expect(answer.rejected).toEqual([]);

      const rows = await exported();
      const mine = rows.filter((r) => r.service_id === serviceId);
      // The manual INSTALL is not stored: the install's own event, made by its attribution, is.
      const installEvent = installEventId({ appId: APP, serviceId });
      expect(mine.map((r) => r.event_id).sort()).toEqual(
        [
          ...events.filter((e) => e.event_type !== "INSTALL").map((e) => e.event_id),
          installEvent,
        ].sort(),
      );
      expect(mine.find((r) => r.event_id === installEvent)?.event_name).toBe("service_install");
      const purchase = mine.find((r) => r.event_id === "evt-PURCHASE");
      expect(purchase).toMatchObject({
        event_name: "service_purchase",
        app_id: APP,
        app_name: `App ${APP}`,
        os: "ios",
        idfv: REQUEST_IDFV,
        maid: null,
        country: "PT",
        customer_user_id: "user-1",
        revenue: 4.99,
        currency: "EUR",
      });
      expect(purchase?.revenue_usd).toBeCloseTo(usd(4.99, "EUR"), 5);
      expect(mine.find((r) => r.event_id === "evt-CUSTOM")?.event_name).toBe(
        "service_boss_defeated",
      );
      expect(mine.find((r) => r.event_id === "evt-LEVEL_COMPLETE")?.event_name).toBe(
        "service_level_complete",
      );
      expect(mine.find((r) => r.event_id === "evt-LOGIN")?.revenue_usd).toBeNull();
    });

    it("gives each bad event its own verdict and stores the good ones", async () => {
      const answer = await sendEvents([
        { event_id: "ok-1", service_id: serviceId, event_type: "LOGIN", event_time: minutesAgo(5) },
        {
          event_id: "bad-type",
          service_id: serviceId,
          event_type: "LOGOUT",
          event_time: minutesAgo(5),
        },
        {
          event_id: "no-name",
          service_id: serviceId,
          event_type: "CUSTOM",
          event_time: minutesAgo(5),
        },
        {
          event_id: "future",
          service_id: serviceId,
          event_type: "LOGIN",
          event_time: new Date(Date.now() + 3 * 86_400_000).toISOString(),
        },
        {
          event_id: "bad-param",
          service_id: serviceId,
          event_type: "SHARE",
          event_time: minutesAgo(5),
          parameters: { when: { at: [1, { deep: { deeper: { deepest: { x: 1 } } } }] } },
        },
        {
          event_id: "unknown-install",
          service_id: "never-installed",
          event_type: "LOGIN",
          event_time: minutesAgo(5),
        },
        // Each event of one install gets that install's verdict, known or not.
        { event_id: "ok-2", service_id: serviceId, event_type: "SHARE", event_time: minutesAgo(5) },
        {
          event_id: "unknown-install-2",
          service_id: "never-installed",
          event_type: "SHARE",
          event_time: minutesAgo(5),
        },
      ]);
      expect(answer.accepted).toBe(2);
      expect(answer.rejected.map((r) => [r.index, r.event_id, r.retryable])).toEqual([
        [1, "bad-type", false],
        [2, "no-name", false],
        [3, "future", false],
        [4, "bad-param", false],
        [5, "unknown-install", true],
        [7, "unknown-install-2", true],
      ]);
      for (const r of answer.rejected) expect(r.detail.length).toBeGreaterThan(10);
      expect(answer.rejected.find((r) => r.event_id === "bad-type")?.detail).toMatch(/event_type/);
      expect(answer.rejected.find((r) => r.event_id === "unknown-install")?.detail).toMatch(
        /POST \/v1\/installs/,
      );
    });

    it("says which accepted events were not kept as sent: revenue without currency, unknown keys", async () => {
      const answer = await sendEvents([
        {
          event_id: "warn-ok",
          service_id: serviceId,
          event_type: "LOGIN",
          event_time: minutesAgo(2),
        },
        {
          event_id: "warn-revenue",
          service_id: serviceId,
          event_type: "PURCHASE",
          event_time: minutesAgo(2),
          parameters: { revenue: 4.99 },
          evnt_name: "typo",
        },
      ]);
      expect(answer).toMatchObject({ accepted: 2, ignored: [], rejected: [] });
      expect(answer.warnings).toEqual([
        {
          index: 1,
          event_id: "warn-revenue",
          detail:
            'ignored unknown keys: "evnt_name"; parameters.revenue was not recorded as revenue: parameters.currency (ISO 4217, e.g. USD) is missing',
        },
      ]);
      const row = (await exported()).find((r) => r.event_id === "warn-revenue");
      expect(row).toMatchObject({ revenue: null, currency: null, revenue_usd: null });
    });

    it("answers 422 for a batch that is not 1 to 100 events", async () => {
      for (const events of [[], Array.from({ length: 101 }, () => ({}))]) {
        const response = await rt.post("/v1/events", { events }, keys.sdkKey);
        expect(response.status).toBe(422);
      }
    });

    it("never stores matching PII in clear: it is hashed on arrival", async () => {
      const answer = await sendEvents([
        {
          event_id: "pii-1",
          service_id: serviceId,
          event_type: "SIGN_UP",
          event_time: minutesAgo(4),
          parameters: {
            email: " Jane.Doe@Example.COM ",
            phone_number: "+1 (555) 010-9999",
            plan: "gold",
          },
        },
      ]);
      expect(answer.accepted).toBe(1);
      const stored = await storedParameters("pii-1");
      expect(stored).not.toMatch(/jane|example|555/i);
      expect(JSON.parse(stored)).toMatchObject({
        email: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        phone_number: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        plan: "gold",
      });
    });

    it("opens revenue sealed on the device with the key from the remote configuration", async () => {
      const wrapper = createKeyFileWrapper(dataPaths(rt.config.dataDir).masterKey);
      await rt.stores.apps.update(APP, (app) => withEncryption(app, true, wrapper));
      const config = (await (await rt.get("/v1/config", keys.sdkKey)).json()) as {
        encryption: { enabled: boolean; key_id: string; public_key: string };
      };
      expect(config.encryption.enabled).toBe(true);
      const recipient = {
        keyId: config.encryption.key_id,
        publicKey: config.encryption.public_key,
      };
      const answer = await sendEvents([
        {
          event_id: "sealed-1",
          service_id: serviceId,
          event_type: "PURCHASE",
          event_time: minutesAgo(3),
          parameters: {
            revenue: seal(1500, recipient),
            currency: seal("JPY", recipient),
            note: seal("secret", recipient),
          },
        },
        {
          event_id: "sealed-bad",
          service_id: serviceId,
          event_type: "PURCHASE",
          event_time: minutesAgo(3),
          parameters: { revenue: `${seal(1, recipient).slice(0, -4)}AAAA`, currency: "USD" },
        },
      ]);
      expect(answer.accepted).toBe(1);
      expect(answer.rejected.map((r) => r.event_id)).toEqual(["sealed-bad"]);
      const row = (await exported()).find((r) => r.event_id === "sealed-1");
      expect(row).toMatchObject({ revenue: 1500, currency: "JPY" });
      expect(row?.revenue_usd).toBeCloseTo(usd(1500, "JPY"), 5);
      // Opened for revenue only: the rest stays sealed at rest, as the device sent it.
      const stored = JSON.parse(await storedParameters("sealed-1"));
      expect(stored.note).toMatch(/^sv1\./);
      expect(JSON.stringify(stored)).not.toContain("secret");
    });

    it("keeps parameters as JSON values: a null drops its key, a null in a list stays", async () => {
      const answer = await sendEvents([
        {
          event_id: "nulls-1",
          service_id: serviceId,
          event_type: "LEVEL_COMPLETE",
          event_time: minutesAgo(2),
          parameters: { gone: null, list: [1, null, "x"], nested: { gone: null, kept: true } },
        },
      ]);
      expect(answer.accepted).toBe(1);
      expect(JSON.parse(await storedParameters("nulls-1"))).toEqual({
        list: [1, null, "x"],
        nested: { kept: true },
      });
    });

    it("refuses parameters past their limits, naming the limit", async () => {
      const event = (eventId: string, parameters: unknown) => ({
        event_id: eventId,
        service_id: serviceId,
        event_type: "LEVEL_COMPLETE",
        event_time: minutesAgo(2),
        parameters,
      });
      const answer = await sendEvents([
        event(
          "too-many-keys",
          Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])),
        ),
        event("too-long-string", { text: "x".repeat(1_001) }),
        event(
          "too-big",
          Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "x".repeat(1_000)])),
        ),
        event("within", { text: "x".repeat(1_000) }),
      ]);
      expect(answer.accepted).toBe(1);
      expect(answer.rejected.map((r) => [r.event_id, r.retryable])).toEqual([
        ["too-many-keys", false],
        ["too-long-string", false],
        ["too-big", false],
      ]);
      const [keys, string, bytes] = answer.rejected.map((r) => r.detail);
      expect(keys).toMatch(/holds 101 keys; a map may hold at most 100/);
      expect(string).toMatch(/is 1001 characters; a string may have at most 1000/);
      expect(bytes).toMatch(/bytes as JSON; at most 10240 \(10 KiB\)/);
    });

    it("keeps revenue in a currency without a known rate, with no USD value, and says so", async () => {
      const answer = await sendEvents([
        {
          event_id: "no-rate-1",
          service_id: serviceId,
          event_type: "PURCHASE",
          event_time: minutesAgo(2),
          parameters: { revenue: 5000, currency: "KWD" },
        },
      ]);
      // Said in the answer: it is not converted again once a rate comes.
      expect(answer).toMatchObject({
        accepted: 1,
        warnings: [
          {
            index: 0,
            event_id: "no-rate-1",
            detail:
              "parameters.revenue was recorded in KWD without a USD amount (revenue_usd is null): the ECB publishes no rate of KWD; reports count it as unconverted revenue, not in revenue, ARPU or ROAS",
          },
        ],
      });
      const row = (await exported()).find((r) => r.event_id === "no-rate-1");
      expect(row).toMatchObject({ revenue: 5000, currency: "KWD", revenue_usd: null });
    });

    it("exports a custom name in any script in snake case, its letters kept", async () => {
      const answer = await sendEvents(
        ["Café Visit", "購入 完了"].map((name, i) => ({
          event_id: `script-${i}`,
          service_id: serviceId,
          event_type: "CUSTOM",
          event_name: name,
          event_time: minutesAgo(2),
        })),
      );
      expect(answer.accepted).toBe(2);
      const rows = await exported();
      expect(rows.find((r) => r.event_id === "script-0")?.event_name).toBe("service_café_visit");
      expect(rows.find((r) => r.event_id === "script-1")?.event_name).toBe("service_購入_完了");
    });
  });

  describe("a phone whose clock runs 30 hours ahead", () => {
    it("has its events accepted and exported at their time by the service's clock", async () => {
      const ahead = (ms: number) => new Date(Date.now() + 30 * 3_600_000 + ms).toISOString();
      const event = {
        event_id: "clock-ahead-1",
        service_id: serviceId,
        event_type: "LEVEL_START",
        event_time: ahead(-5 * 60_000),
      };
      const refused = await sendEvents([{ ...event, event_id: "clock-ahead-0" }]);
      expect(refused.rejected).toMatchObject([
        { detail: "event_time: is more than 24 hours ahead of the server's clock" },
      ]);
      const response = await rt.post(
        "/v1/events",
        { sent_at: ahead(0), events: [event] },
        keys.sdkKey,
      );
      expect(await response.json()).toMatchObject({ accepted: 1, rejected: [] });
      const row = (await exported()).find((r) => r.event_id === "clock-ahead-1");
      // Five minutes before it was sent, by the service's clock: within seconds of that.
      expect(Math.abs(Date.parse(row?.event_time ?? "") - (Date.now() - 5 * 60_000))).toBeLessThan(
        60_000,
      );
    });
  });

  describe("POST /v1/s2s/events", () => {
    it("resolves the user by customer_user_id to the install that last used it", async () => {
      const answer = await sendEvents(
        [
          {
            event_id: "s2s-1",
            customer_user_id: "user-1",
            event_type: "SUBSCRIBE",
            event_time: minutesAgo(2),
            parameters: { revenue: 9.99, currency: "GBP" },
          },
          {
            event_id: "s2s-unknown",
            customer_user_id: "nobody",
            event_type: "SUBSCRIBE",
            event_time: minutesAgo(2),
          },
          {
            event_id: "s2s-with-service-id",
            customer_user_id: "user-1",
            service_id: serviceId,
            event_type: "LOGIN",
            event_time: minutesAgo(2),
          },
        ],
        { s2s: true },
      );
      expect(answer.accepted).toBe(1);
      // An id not known yet may be retried; a body the route never takes may not.
      expect(answer.rejected.map((r) => [r.event_id, r.retryable])).toEqual([
        ["s2s-unknown", true],
        ["s2s-with-service-id", false],
      ]);
      expect(answer.rejected[0]?.detail).toMatch(/customer_user_id nobody is not known/);
      const row = (await exported()).find((r) => r.event_id === "s2s-1");
      expect(row).toMatchObject({
        service_id: serviceId,
        os: "ios",
        idfv: REQUEST_IDFV,
        country: "BR",
        customer_user_id: "user-1",
        revenue: 9.99,
        currency: "GBP",
        event_name: "service_subscribe",
      });
      expect(row?.revenue_usd).toBeCloseTo(usd(9.99, "GBP"), 5);
    });

    it("gives every event of a batch its user's resolution, known or not", async () => {
      const event = (eventId: string, customerUserId: string) => ({
        event_id: eventId,
        customer_user_id: customerUserId,
        event_type: "LEVEL_COMPLETE",
        event_time: minutesAgo(2),
      });
      const answer = await sendEvents(
        [
          event("many-1", "user-1"),
          event("many-2", "nobody-else"),
          event("many-3", "user-1"),
          event("many-4", "nobody-else"),
        ],
        { s2s: true },
      );
      expect(answer.accepted).toBe(2);
      expect(answer.rejected.map((r) => [r.index, r.event_id, r.retryable])).toEqual([
        [1, "many-2", true],
        [3, "many-4", true],
      ]);
      const rows = (await exported()).filter((r) => r.event_id?.startsWith("many-"));
      expect(rows.map((r) => [r.event_id, r.service_id])).toEqual([
        ["many-1", serviceId],
        ["many-3", serviceId],
      ]);
    });

    it("follows the latest use of a customer user id by event time, in a batch and across", async () => {
      const [first, second] = [randomUUID(), randomUUID()];
      for (const id of [first, second]) {
        expect((await rt.post("/v1/installs", installRequest(id), keys.sdkKey)).status).toBe(202);
      }
      const login = (eventId: string, id: string, minutes: number) => ({
        event_id: eventId,
        service_id: id,
        customer_user_id: "user-moved",
        event_type: "LOGIN",
        event_time: minutesAgo(minutes),
      });
      const resolvedTo = async (eventId: string) => {
        const s2s = { event_id: eventId, customer_user_id: "user-moved", event_type: "LOGIN" };
        expect(
          (await sendEvents([{ ...s2s, event_time: minutesAgo(0) }], { s2s: true })).accepted,
        ).toBe(1);
        return (await exported()).find((r) => r.event_id === eventId)?.service_id;
      };
      // The second install's latest use (1 minute ago) is in the middle of its batch.
      await sendEvents([login("m-1", first, 3)]);
      await sendEvents([login("m-2", second, 5), login("m-3", second, 1), login("m-4", second, 4)]);
      expect(await resolvedTo("moved-1")).toBe(second);
      // A use sent later but made earlier does not move the id back.
      await sendEvents([login("m-5", first, 2)]);
      expect(await resolvedTo("moved-2")).toBe(second);
    });

    it("resolves a customer user id only once an event was sent with it, not from the install", async () => {
      const id = randomUUID();
      await rt.post(
        "/v1/installs",
        installRequest(id, { customer_user_id: "user-from-install" }),
        keys.sdkKey,
      );
      const s2s = (eventId: string) => ({
        event_id: eventId,
        customer_user_id: "user-from-install",
        event_type: "LOGIN",
        event_time: minutesAgo(0),
      });
      const before = await sendEvents([s2s("cu-before")], { s2s: true });
      // Not known yet: the server may retry, and the retry is taken once the event has come.
      expect(before).toMatchObject({
        accepted: 0,
        rejected: [{ index: 0, error: "Conflict", retryable: true }],
      });
      expect(before.rejected[0]?.detail).toMatch(/not known/);
      await sendEvents([
        {
          event_id: "cu-first-event",
          service_id: id,
          customer_user_id: "user-from-install",
          event_type: "LOGIN",
          event_time: minutesAgo(1),
        },
      ]);
      expect((await sendEvents([s2s("cu-after")], { s2s: true })).accepted).toBe(1);
      expect((await exported()).find((r) => r.event_id === "cu-after")?.service_id).toBe(id);
    });

    it("needs a server key: an SDK key gets 401", async () => {
      const response = await rt.post("/v1/s2s/events", { events: [] }, keys.sdkKey);
      expect(response.status).toBe(401);
    });
  });

  it("stores nothing for a disabled app and says so", async () => {
    await rt.stores.apps.update(APP, (app) => ({ ...app, enabled: false }));
    const answer = await sendEvents([
      {
        event_id: "while-disabled",
        service_id: serviceId,
        event_type: "LOGIN",
        event_time: minutesAgo(1),
      },
    ]);
    await rt.stores.apps.update(APP, (app) => ({ ...app, enabled: true }));
    expect(answer).toMatchObject({ accepted: 0, rejected: [] });
    expect(answer.ignored).toEqual([
      {
        index: 0,
        event_id: "while-disabled",
        reason: "app_disabled",
        detail: expect.stringMatching(/disabled/),
      },
    ]);
    expect((await exported()).some((r) => r.event_id === "while-disabled")).toBe(false);
  });
});
