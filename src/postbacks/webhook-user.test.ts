/**
 * An event's webhook names the user the event was sent for, as the export's `customer_user_id`
 * does: ingestion hands the event's own id to the trigger, the outbox row keeps it, and the
 * body gives it, the install's only when the event named none (and was not sent anonymous).
 */
import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import { S2S_EVENTS, SDK_EVENTS } from "../ingest/event-sources.ts";
import { ingestionDeps } from "../ingest/ingest.test-support.ts";
import { createIngestion } from "../ingest/service.ts";
import type { LakeRecord } from "../lake/lake-tables.ts";
import type { App } from "../ports/apps.ts";
import type { Install } from "../ports/installs.ts";
import type { OutboxRow, StoredWebhookConfig } from "../ports/postbacks.ts";
import { webhookBodyOf } from "./delivery.ts";
import { createPostbackTriggers } from "./triggers.ts";

const APP: App = {
  appId: "com.a",
  name: "A",
  platform: "android",
  enabled: true,
  createdAt: "2026-01-01T00:00:00.000Z",
};
const NOW = new Date("2026-11-02T12:00:00.000Z");
const SETTINGS = { shareDeviceDataWithoutConsent: false };

const WEBHOOK: StoredWebhookConfig = {
  id: "backend",
  appId: APP.appId,
  url: "https://api.example.com/hook",
  sealedSecret: "x",
  previous: null,
  enabled: true,
  updatedAt: NOW.toISOString(),
};

/** Ingests one event of `install`; the webhook body of its send and the lake row's user. */
const webhookOfEvent = async (
  install: Install,
  event: Record<string, unknown>,
  source: typeof SDK_EVENTS,
) => {
  const rows: OutboxRow[] = [];
  const lake: LakeRecord[] = [];
  const triggers = createPostbackTriggers({
    configs: { listByApp: async () => ({ partners: [], webhooks: [WEBHOOK], settings: SETTINGS }) },
    outbox: {
      add: async (row) => {
        rows.push(row);
        return true;
      },
      get: async () => undefined,
    },
    queue: { send: async () => undefined },
    now: () => NOW,
  });
  const ingestion = createIngestion(
    ingestionDeps(APP, {
      installs: { get: async () => install },
      customerUsers: { get: async () => install.serviceId },
      events: {
        put: async (records) => {
          lake.push(...records);
        },
      },
      fx: parseEcbRates("Date,USD\n2026-11-01,1.1\n"),
      postbacks: { triggers, attributions: { get: async () => undefined } },
      now: () => NOW,
    }),
  );
  await ingestion.recordEvents(
    { appId: APP.appId, sourceIp: null, headers: {} },
    { events: [event] },
    source,
  );
  const [row] = rows;
  if (!row) throw new Error("no webhook send was added");
  const body = JSON.parse(
    webhookBodyOf(
      { app: APP, install, attribution: null, subject: row.subject, settings: SETTINGS },
      row.sendId,
    ),
  );
  return { exported: lake[0]?.customer_user_id, named: body.install.customer_user_id };
};

const event = {
  event_id: "e1",
  event_type: "PURCHASE",
  event_time: "2026-11-02T11:00:00Z",
};

describe("an event's webhook", () => {
  it("names the user who logged in after installing, as the export does", async () => {
    const anonymous = storedInstall(APP.appId, "svc-1", { customerUserId: null });
    const sent = { ...event, service_id: "svc-1", customer_user_id: "u-42" };
    expect(await webhookOfEvent(anonymous, sent, SDK_EVENTS)).toEqual({
      exported: "u-42",
      named: "u-42",
    });
  });

  it("names the user a server's event was sent for", async () => {
    const other = storedInstall(APP.appId, "svc-1", { customerUserId: "u-1" });
    const sent = { ...event, customer_user_id: "u-42" };
    expect(await webhookOfEvent(other, sent, S2S_EVENTS)).toEqual({
      exported: "u-42",
      named: "u-42",
    });
  });

  it("names the install's user when the event named none", async () => {
    const known = storedInstall(APP.appId, "svc-1", { customerUserId: "u-1" });
    const sent = { ...event, service_id: "svc-1" };
    expect(await webhookOfEvent(known, sent, SDK_EVENTS)).toEqual({
      exported: null,
      named: "u-1",
    });
  });

  it("names no user for an event sent in anonymous mode, the install's neither", async () => {
    const known = storedInstall(APP.appId, "svc-1", { customerUserId: "u-1" });
    const sent = { ...event, service_id: "svc-1", anonymous: true };
    expect(await webhookOfEvent(known, sent, SDK_EVENTS)).toEqual({
      exported: null,
      named: null,
    });
  });
});
