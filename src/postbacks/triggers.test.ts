/** The postback triggers: what an install's send keeps of its request for its templates. */
import { describe, expect, it } from "vitest";
import type { OutboxRow } from "../ports/postbacks.ts";
import { parsePartnerConfig } from "./config.ts";
import { createPostbackTriggers } from "./triggers.ts";

describe("an install's sends", () => {
  it("keep the address and the user agent of the install's request for a partner, and none for a webhook, whose body has neither", async () => {
    const rows: OutboxRow[] = [];
    const partner = parsePartnerConfig({
      id: "tracker",
      appId: "com.example.app",
      partner: "generic",
      mediaSources: ["network"],
      values: { endpoint: "https://tracker.example.com/pb" },
    });
    const triggers = createPostbackTriggers({
      configs: {
        listByApp: async () => ({
          partners: [partner],
          webhooks: [
            {
              id: "hook",
              appId: "com.example.app",
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
    await triggers.installResolved({
      appId: "com.example.app",
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
