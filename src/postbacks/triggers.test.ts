/** The postback triggers: what a send keeps of its request for its templates. */
import { describe, expect, it } from "vitest";
import type { OutboxRow, StoredPartnerConfig } from "../ports/postbacks.ts";
import { parsePartnerConfig } from "./config.ts";
import { createPostbackTriggers } from "./triggers.ts";

const APP_ID = "com.example.app";
const PARTNER: StoredPartnerConfig = {
  ...parsePartnerConfig({
    id: "tracker",
    appId: APP_ID,
    partner: "generic",
    mediaSources: ["network"],
    values: { endpoint: "https://tracker.example.com/pb" },
    events: { service_login: { name: "login" } },
  }),
  sealedValues: {},
  updatedAt: "2026-11-24T12:00:00.000Z",
};

const WEBHOOK = {
  id: "hook",
  appId: APP_ID,
  url: "https://hooks.example.com/",
  sealedSecret: "",
  previous: null,
  enabled: true,
  updatedAt: "2026-11-24T12:00:00.000Z",
};

/**
 * The triggers of an app with that partner and one webhook (`enabled` or not), over an outbox
 * that keeps each row once by its send id: the rows added, the outbox, and the batches queued.
 */
const triggersOf = (
  options: { webhookEnabled?: boolean; partner?: Partial<StoredPartnerConfig> } = {},
) => {
  const rows: OutboxRow[] = [];
  const outbox = new Map<string, OutboxRow>();
  const batches: { sendId: string; attempt: number }[][] = [];
  const triggers = createPostbackTriggers({
    configs: {
      listByApp: async () => ({
        partners: [{ ...PARTNER, ...options.partner }],
        webhooks: [{ ...WEBHOOK, enabled: options.webhookEnabled ?? true }],
        settings: { shareDeviceDataWithoutConsent: false },
      }),
    },
    outbox: {
      add: async (row) => {
        if (outbox.has(row.sendId)) return false;
        outbox.set(row.sendId, row);
        rows.push(row);
        return true;
      },
      get: async (sendId) => outbox.get(sendId),
    },
    queue: {
      send: async (jobs) => {
        batches.push(jobs.map(({ sendId, attempt }) => ({ sendId, attempt })));
      },
    },
  });
  return { rows, outbox, batches, triggers };
};

describe("an install's sends", () => {
  it("keep the address and the user agent of the install's request for a partner, and none for a webhook, whose body has neither", async () => {
    const { rows, triggers } = triggersOf();
    await triggers.installResolved({
      appId: APP_ID,
      serviceId: "s1",
      attribution: { status: "matched", mediaSource: "network" },
      ip: "81.2.69.160",
      userAgent: "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8)",
    });
    expect(rows.map((row) => [row.target, row.subject])).toEqual([
      [
        "partner",
        {
          kind: "install",
          serviceId: "s1",
          ip: "81.2.69.160",
          userAgent: "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8)",
        },
      ],
      ["webhook", { kind: "install", serviceId: "s1", ip: null, userAgent: null }],
    ]);
  });
});

describe("a device installing again from the click its first install holds", () => {
  it("is told to the app's backend, not again to the partner that won it; its events go to both", async () => {
    const { rows, triggers } = triggersOf();
    const again = { status: "matched" as const, mediaSource: "network", repeatsClick: true };
    await triggers.installResolved({
      appId: APP_ID,
      serviceId: "s2",
      attribution: again,
      ip: null,
      userAgent: null,
    });
    expect(rows.map((row) => row.target)).toEqual(["webhook"]);
    await triggers.eventsAccepted(
      APP_ID,
      [
        {
          serviceId: "s2",
          installTime: "2026-11-24T10:00:00.000Z",
          event: {
            eventId: "e2",
            name: "service_login",
            time: "2026-11-24T12:00:00.000Z",
            revenue: null,
          },
          ip: null,
          userAgent: null,
          customerUserId: null,
          anonymous: false,
        },
      ],
      async () => again,
    );
    expect(rows.map((row) => `${row.target}:${row.subject.kind}`)).toEqual([
      "webhook:install",
      "webhook:event",
      "partner:event",
    ]);
  });
});

describe("an event's sends", () => {
  const login = (anonymous: boolean) => ({
    serviceId: "s1",
    installTime: "2026-11-24T10:00:00.000Z",
    event: {
      eventId: "e1",
      name: "service_login",
      time: "2026-11-24T12:00:00.000Z",
      revenue: null,
    },
    ip: "81.2.69.160",
    userAgent: "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8)",
    customerUserId: "user-8812",
    anonymous,
  });
  const attribution = async () => ({ status: "matched" as const, mediaSource: "network" });

  it("keep the device's address and agent and the user's id for a partner", async () => {
    const { rows, triggers } = triggersOf();
    await triggers.eventsAccepted(APP_ID, [login(false)], attribution);
    const partner = rows.find((row) => row.target === "partner");
    expect(partner?.subject).toMatchObject({ ip: "81.2.69.160", customerUserId: "user-8812" });
  });

  it("keep neither the device nor the user of an event sent in anonymous mode, and say so", async () => {
    const { rows, triggers } = triggersOf();
    await triggers.eventsAccepted(APP_ID, [login(true)], attribution);
    expect(rows.map((row) => row.target).sort()).toEqual(["partner", "webhook"]);
    for (const row of rows) {
      expect(row.subject).toMatchObject({
        ip: null,
        userAgent: null,
        customerUserId: null,
        anonymous: true,
      });
    }
  });
});

describe("queueing", () => {
  const install = {
    appId: APP_ID,
    serviceId: "s1",
    attribution: { status: "matched" as const, mediaSource: "network" },
    ip: null,
    userAgent: null,
  };

  /** An accepted login of the install, by its id. */
  const event = (eventId: string) => ({
    serviceId: "s1",
    installTime: "2026-11-24T10:00:00.000Z",
    event: { eventId, name: "service_login", time: "2026-11-24T12:00:00.000Z", revenue: null },
    ip: null,
    userAgent: null,
    customerUserId: null,
    anonymous: false,
  });

  it("queues each new send's first attempt, and a send added before only while it was never tried", async () => {
    const { rows, outbox, batches, triggers } = triggersOf();
    expect(await triggers.installResolved(install)).toBe(2);
    const ids = rows.map((row) => row.sendId);
    expect(batches).toEqual([ids.map((sendId) => ({ sendId, attempt: 1 }))]);
    // The same install resolved again (a run stopped after the rows were added): the rows stay
    // as they are, and their first attempt is queued again.
    expect(await triggers.installResolved(install)).toBe(2);
    expect(rows).toHaveLength(2);
    expect(batches[1]).toEqual(batches[0]);
    // Tried once, or delivered: never queued again from here, and no empty batch is sent.
    const [partner, webhook] = rows;
    if (!partner || !webhook) throw new Error("two rows");
    outbox.set(partner.sendId, { ...partner, attempts: 1 });
    outbox.set(webhook.sendId, { ...webhook, state: "delivered", attempts: 1 });
    expect(await triggers.installResolved(install)).toBe(0);
    expect(batches).toHaveLength(2);
    // Skipped before its first attempt (its configuration went): final, not queued again.
    outbox.set(partner.sendId, { ...partner, state: "skipped", attempts: 0 });
    expect(await triggers.installResolved(install)).toBe(0);
    expect(batches).toHaveLength(2);
  });

  it("adds nothing for a disabled webhook", async () => {
    const { rows, triggers } = triggersOf({ webhookEnabled: false });
    await triggers.installResolved(install);
    expect(rows.map((row) => row.target)).toEqual(["partner"]);
    const { rows: eventRows, triggers: eventTriggers } = triggersOf({ webhookEnabled: false });
    await eventTriggers.eventsAccepted(APP_ID, [event("e1")], async () => install.attribution);
    expect(eventRows.map((row) => row.target)).toEqual(["partner"]);
  });

  it("sends a partner no event past the partner's own window from the install", async () => {
    const { rows, triggers } = triggersOf({ partner: { eventWindowDays: 1 } });
    const won = async () => ({ status: "matched" as const, mediaSource: "network" });
    const at = (eventId: string, time: string) => {
      const sent = event(eventId);
      return { ...sent, event: { ...sent.event, time } };
    };
    await triggers.eventsAccepted(APP_ID, [at("in", "2026-11-25T09:00:00.000Z")], won);
    expect(rows.map((row) => row.target)).toEqual(["webhook", "partner"]);
    await triggers.eventsAccepted(APP_ID, [at("past", "2026-11-25T11:00:00.000Z")], won);
    expect(rows.map((row) => row.target)).toEqual(["webhook", "partner", "webhook"]);
  });

  it("sends a partner no event of an install another network won, and reads each install's attribution once", async () => {
    const { rows, triggers } = triggersOf();
    let reads = 0;
    const elsewhere = async () => {
      reads++;
      return { status: "matched" as const, mediaSource: "another_network" };
    };
    await triggers.eventsAccepted(APP_ID, [event("e1"), event("e2")], elsewhere);
    expect(rows.map((row) => row.target)).toEqual(["webhook", "webhook"]);
    expect(reads).toBe(1);
    // Not resolved yet: the partner's row waits for the worker to decide.
    await triggers.eventsAccepted(APP_ID, [event("e3")], async () => null);
    expect(rows.map((row) => row.target)).toEqual(["webhook", "webhook", "webhook", "partner"]);
    // An event no partner maps is never a reason to read its install's attribution.
    const purchase = event("e4");
    const unmapped = { ...purchase, event: { ...purchase.event, name: "service_purchase" } };
    await triggers.eventsAccepted(APP_ID, [{ ...unmapped, serviceId: "s2" }], elsewhere);
    expect(reads).toBe(1);
    expect(rows.at(-1)?.target).toBe("webhook");
  });
});
