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

/** The triggers of an app with that partner and one webhook, and the rows they add. */
const triggersOf = () => {
  const rows: OutboxRow[] = [];
  const triggers = createPostbackTriggers({
    configs: {
      listByApp: async () => ({
        partners: [PARTNER],
        webhooks: [
          {
            id: "hook",
            appId: APP_ID,
            url: "https://hooks.example.com/",
            sealedSecret: "",
            enabled: true,
            updatedAt: "2026-11-24T12:00:00.000Z",
          },
        ],
        settings: { shareDeviceDataWithoutConsent: false },
      }),
    },
    outbox: {
      add: async (row) => {
        rows.push(row);
        return true;
      },
      get: async () => undefined,
    },
    queue: { send: async () => {} },
  });
  return { rows, triggers };
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
