/**
 * Ingestion rules over HTTP against the embedded runtime, through to the export, the reports
 * and the purge: what a sender can do wrong must not change what the reports count.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ignoredAs } from "../../src/ingest/ignored.ts";
import type { EventsAnswer } from "../../src/ingest/service.ts";
import type { ExportRecord } from "../../src/record/columns.ts";
import { installRequest } from "../support/installs.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const day = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe("ingestion over HTTP", () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await startTestRuntime({ purgeIntervalMs: 200 });
  });
  afterAll(async () => rt.dispose());

  const post = async (path: string, body: unknown, key: string) => {
    const response = await rt.post(path, body, key);
    return { status: response.status, body: (await response.json()) as EventsAnswer };
  };

  const exported = async (serverKey: string): Promise<ExportRecord[]> => {
    await rt.workers.idle();
    await rt.flush();
    const since = Math.floor(Date.now() / 1000) - 3 * 86_400;
    const response = await rt.get(`/api/v1/export?timestamp=${since}`, serverKey);
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: ExportRecord[] }).data;
  };

  it("counts no install for a CUSTOM event named Install", async () => {
    const keys = await rt.createApp("com.example.custom-install", "ios");
    const installs = [randomUUID(), randomUUID()];
    // Two iPhones: each its own IDFV, so neither is the other's reinstall.
    for (const serviceId of installs) {
      const request = installRequest(serviceId, { idfv: randomUUID().toUpperCase() });
      expect((await post("/v1/installs", request, keys.sdkKey)).status).toBe(202);
    }
    const [first] = installs;
    const answer = await post(
      "/v1/events",
      {
        events: ["Install", "install", " INSTALL "].map((event_name, i) => ({
          event_id: `custom-install-${i}`,
          service_id: first,
          event_type: "CUSTOM",
          event_name,
          event_time: minutesAgo(5),
        })),
      },
      keys.sdkKey,
    );
    expect(answer.body).toMatchObject({ accepted: 0, rejected: [] });
    expect(answer.body.ignored.map((entry) => entry.reason)).toEqual([
      "install_event",
      "install_event",
      "install_event",
    ]);

    const rows = await exported(keys.serverKey);
    expect(rows.filter((row) => row.event_name === "service_install")).toHaveLength(2);
    const overview = await rt.get(
      `/v1/reports/overview?from=${day(-1)}&to=${day(1)}`,
      keys.serverKey,
    );
    expect(overview.status).toBe(200);
    const { totals } = (await overview.json()) as { totals: { installs: number } };
    expect(totals.installs).toBe(installs.length);
  });

  it("keeps the first of two events of one install under one event_id in a request", async () => {
    const keys = await rt.createApp("com.example.duplicates", "ios");
    const serviceId = randomUUID();
    expect((await post("/v1/installs", installRequest(serviceId), keys.sdkKey)).status).toBe(202);
    const time = minutesAgo(3);
    const purchase = (revenue: number) => ({
      event_id: "dup-1",
      service_id: serviceId,
      event_type: "PURCHASE",
      event_time: time,
      parameters: { revenue, currency: "USD" },
    });
    const answer = await post("/v1/events", { events: [purchase(1), purchase(1000)] }, keys.sdkKey);
    expect(answer.body).toEqual({
      accepted: 1,
      ignored: [{ index: 1, event_id: "dup-1", ...ignoredAs("duplicate_event") }],
      rejected: [],
      warnings: [],
    });
    const rows = (await exported(keys.serverKey)).filter((row) => row.event_id === "dup-1");
    expect(rows.map((row) => row.revenue)).toEqual([1]);
  });

  it("refuses a customer_user_id with control characters, in events and installs", async () => {
    const keys = await rt.createApp("com.example.control-characters", "ios");
    const serviceId = randomUUID();
    const install = await rt.post(
      "/v1/installs",
      installRequest(serviceId, { customer_user_id: "u\u0000x" }),
      keys.sdkKey,
    );
    expect(install.status).toBe(422);
    expect(((await install.json()) as { detail: string }).detail).toBe(
      "customer_user_id: must not contain control characters",
    );
    expect((await post("/v1/installs", installRequest(serviceId), keys.sdkKey)).status).toBe(202);
    const event = (customer_user_id: string) => ({
      event_id: "login-1",
      service_id: serviceId,
      event_type: "LOGIN",
      customer_user_id,
      event_time: minutesAgo(4),
    });
    const answer = await post("/v1/events", { events: [event("u\u0000x\u0001")] }, keys.sdkKey);
    expect(answer.body.accepted).toBe(0);
    expect(answer.body.rejected).toEqual([
      {
        index: 0,
        event_id: "login-1",
        error: "Unprocessable Entity",
        detail: "customer_user_id: must not contain control characters",
        retryable: false,
      },
    ]);
    const s2s = await post(
      "/v1/s2s/events",
      { events: [{ ...event("u\u0007"), service_id: undefined }] },
      keys.serverKey,
    );
    expect(s2s.body.rejected.map((entry) => entry.detail)).toEqual([
      "customer_user_id: must not contain control characters",
    ]);
  });

  it("names first_open_time when an install without sent_at says it opened before 1970", async () => {
    const keys = await rt.createApp("com.example.before-1970", "ios");
    const response = await rt.post(
      "/v1/installs",
      installRequest(randomUUID(), { first_open_time: "1969-12-31T23:00:00Z", sent_at: null }),
      keys.sdkKey,
    );
    expect(response.status).toBe(422);
    expect(((await response.json()) as { detail: string }).detail).toBe(
      "first_open_time: is before 1970",
    );
  });

  it("ignores a deleted user's server-to-server events before its purge as after it", async () => {
    const keys = await rt.createApp("com.example.deleted-user", "ios");
    const serviceId = randomUUID();
    expect((await post("/v1/installs", installRequest(serviceId), keys.sdkKey)).status).toBe(202);
    const login = {
      event_id: "login-1",
      service_id: serviceId,
      event_type: "LOGIN",
      customer_user_id: "gone-user",
      event_time: minutesAgo(3),
    };
    expect((await post("/v1/events", { events: [login] }, keys.sdkKey)).body.accepted).toBe(1);
    const deleted = await rt.fetch(`/v1/installs/${serviceId}`, { method: "DELETE" }, keys.sdkKey);
    const { request_id } = (await deleted.json()) as { request_id: string };
    const s2s = async (eventId: string) =>
      (
        await post(
          "/v1/s2s/events",
          {
            events: [
              {
                event_id: eventId,
                customer_user_id: "gone-user",
                event_type: "PURCHASE",
                event_time: minutesAgo(1),
              },
            ],
          },
          keys.serverKey,
        )
      ).body;
    const ignored = (eventId: string) => ({
      accepted: 0,
      ignored: [{ index: 0, event_id: eventId, ...ignoredAs("install_deleted") }],
      rejected: [],
      warnings: [],
    });
    expect(await s2s("before-purge")).toEqual(ignored("before-purge"));
    await expect
      .poll(
        async () => {
          const status = await rt.get(`/v1/deletions/${request_id}`, keys.serverKey);
          return ((await status.json()) as { status: string }).status;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe("completed");
    expect(await s2s("after-purge")).toEqual(ignored("after-purge"));
  });
});
