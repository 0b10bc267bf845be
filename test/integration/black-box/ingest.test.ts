/**
 * Installs, SDK events and server-to-server events on any target, as an SDK and an app's
 * server send them, through to the attribution an SDK reads and the export a server pages.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { ExportRecord } from "../../../src/record/columns.ts";
import { installRequest, REQUEST_IDFV } from "../../support/installs.ts";
import { itAll, itNeeds, type Keys, openTarget, type Target } from "../../support/target.ts";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

type EventsAnswer = {
  accepted: number;
  ignored: { index: number; event_id: string; reason: string; detail: string }[];
  rejected: { index: number; event_id: string; detail: string; retryable: boolean }[];
};

describe("ingestion", () => {
  let target: Target;
  let app: string;
  let keys: Keys;
  const serviceId = randomUUID();

  const sendEvents = async (events: unknown[], s2s = false): Promise<EventsAnswer> => {
    const response = await target.post(
      s2s ? "/v1/s2s/events" : "/v1/events",
      { events },
      s2s ? keys.serverKey : keys.sdkKey,
    );
    expect(response.status).toBe(202);
    return (await response.json()) as EventsAnswer;
  };

  /** The export's rows of the last three days once `ready` holds of them. */
  const exportedOnce = (what: string, ready: (rows: ExportRecord[]) => void) =>
    target.eventually(what, async () => {
      const since = Math.floor(Date.now() / 1000) - 3 * 86_400;
      const response = await target.get(
        `/api/v1/export?timestamp=${since}&limit=10000`,
        keys.serverKey,
      );
      expect(response.status).toBe(200);
      const rows = ((await response.json()) as { data: ExportRecord[] }).data;
      ready(rows);
      return rows;
    });

  beforeAll(async () => {
    target = await openTarget();
    app = target.appId("com.example.ingest");
    keys = await target.createApp(app, "ios");
  });

  afterAll(() => target?.dispose());

  itAll("records an install with 202, and answers a repeat the same", async () => {
    for (const body of [
      installRequest(serviceId, { customer_user_id: "user-1" }),
      installRequest(serviceId, { os_version: "99" }),
    ]) {
      const response = await target.post("/v1/installs", body, keys.sdkKey);
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ service_id: serviceId });
    }
  });

  itAll("answers bad install bodies with their status and the spec's body", async () => {
    const cases: [unknown, number, string][] = [
      ["{not json", 400, "Bad Request"],
      ["", 400, "Bad Request"],
      [{ ...installRequest("x"), service_id: undefined }, 422, "Unprocessable Entity"],
      [{ ...installRequest("x"), os: "windows" }, 422, "Unprocessable Entity"],
      [
        JSON.stringify({ ...installRequest("x"), locale: "x".repeat(1_100_000) }),
        413,
        "Payload Too Large",
      ],
    ];
    for (const [body, status, error] of cases) {
      const response = await target.post("/v1/installs", body, keys.sdkKey);
      expect(response.status).toBe(status);
      const answer = (await response.json()) as { error: string; detail: string };
      expect(answer.error).toBe(error);
      expect(answer.detail.length).toBeGreaterThan(0);
    }
  });

  itAll(
    "keeps the consent the SDK sends after the install, and refuses one for no install",
    async () => {
      const consent = { gdpr_applies: true, ad_user_data: false, ad_personalization: null };
      const response = await target.post(
        `/v1/installs/${serviceId}/consent`,
        { sent_at: new Date().toISOString(), consent },
        keys.sdkKey,
      );
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({
        service_id: serviceId,
        consent: { ...consent, tcf_string: null, updated_at: expect.any(String) },
      });
      const unknown = await target.post(
        `/v1/installs/${randomUUID()}/consent`,
        { consent },
        keys.sdkKey,
      );
      expect(unknown.status).toBe(409);
      expect(((await unknown.json()) as { error: string }).error).toBe("Conflict");
    },
  );

  itAll("reads an install without a touch as organic", async () => {
    const organic = randomUUID();
    await target.post("/v1/installs", installRequest(organic), keys.sdkKey);
    const attribution = await target.eventually("the install is attributed", async () => {
      const response = await target.get(
        `/v1/installs/${organic}/attribution?wait_seconds=10`,
        keys.sdkKey,
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, string>;
      expect(body.service_match_status).not.toBe("pending");
      return body;
    });
    expect(attribution).toEqual({ service_match_status: "organic", media_source: "organic" });
    expect((await target.get("/v1/installs/nobody/attribution", keys.sdkKey)).status).toBe(404);
  });

  itAll("accepts SDK events, ignores a manual INSTALL and rejects bad ones alone", async () => {
    const answer = await sendEvents([
      {
        event_id: "evt-install",
        service_id: serviceId,
        event_type: "INSTALL",
        event_time: minutesAgo(50),
      },
      {
        event_id: "evt-purchase",
        service_id: serviceId,
        event_type: "PURCHASE",
        event_time: minutesAgo(40),
        parameters: { revenue: 4.99, currency: "EUR", sku: "gems_100" },
        customer_user_id: "user-1",
      },
      {
        event_id: "evt-custom",
        service_id: serviceId,
        event_type: "CUSTOM",
        event_name: "Boss Defeated",
        event_time: minutesAgo(30),
        parameters: { level: 3 },
      },
    ]);
    expect(answer.accepted).toBe(2);
    expect(answer.ignored).toEqual([
      {
        index: 0,
        event_id: "evt-install",
        reason: "install_event",
        detail: expect.stringMatching(/install/i),
      },
    ]);
    expect(answer.rejected).toEqual([]);
  });

  itAll(
    "resolves a server-to-server event's user by customer_user_id, and rejects the unknown",
    async () => {
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
        ],
        true,
      );
      expect(answer.accepted).toBe(1);
      // Not known yet: the server may send it again once the app's event with the id has come.
      expect(answer.rejected.map((r) => [r.event_id, r.retryable])).toEqual([
        ["s2s-unknown", true],
      ]);
      expect((await target.post("/v1/s2s/events", { events: [] }, keys.sdkKey)).status).toBe(401);
    },
  );

  itNeeds(
    ["export"],
    "exports what it accepted, enriched from the install and the app",
    async () => {
      const rows = await exportedOnce("the events are in the export", (rows) => {
        const ids = rows.map((r) => r.event_id);
        for (const id of ["evt-purchase", "evt-custom", "s2s-1"]) expect(ids).toContain(id);
      });
      const mine = rows.filter((r) => r.service_id === serviceId);
      expect(mine.map((r) => r.event_id)).not.toContain("evt-install");
      expect(mine.find((r) => r.event_id === "evt-purchase")).toMatchObject({
        event_name: "service_purchase",
        app_id: app,
        app_name: `App ${app}`,
        os: "ios",
        idfv: REQUEST_IDFV,
        maid: null,
        customer_user_id: "user-1",
        revenue: 4.99,
        currency: "EUR",
      });
      expect(mine.find((r) => r.event_id === "evt-custom")?.event_name).toBe(
        "service_boss_defeated",
      );
      expect(mine.find((r) => r.event_id === "s2s-1")).toMatchObject({
        event_name: "service_subscribe",
        customer_user_id: "user-1",
        revenue: 9.99,
        currency: "GBP",
      });
      // The install's own event, written by its attribution.
      expect(mine.some((r) => r.event_name === "service_install")).toBe(true);
    },
  );
});
