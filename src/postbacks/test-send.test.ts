/** The test postback: what its sample install tells a partner. */
import { describe, expect, it } from "vitest";
import { parsePartnerConfig, parseWebhookConfig } from "./config.ts";
import { partnerTestRequest, webhookTestRequest } from "./test-send.ts";

const NOW = new Date("2026-11-02T12:00:00.000Z");
const SETTINGS = { shareDeviceDataWithoutConsent: false };

describe("a test postback's sample install", () => {
  it("sends no device id on iOS: its ids are all zero, which is no id", () => {
    const tiktok = parsePartnerConfig({
      id: "tiktok",
      appId: "com.a",
      partner: "tiktok",
      values: { tiktok_app_id: "7123", access_token: "tok" },
    });
    const built = partnerTestRequest(tiktok, { kind: "install", platform: "ios" }, SETTINGS, NOW);
    if (!built.ok) throw new Error(built.problem);
    const user = JSON.parse(built.request.body ?? "{}").data[0].user;
    expect(user.idfv).toBeUndefined();
    expect(user.idfa).toBeUndefined();

    const generic = parsePartnerConfig({
      id: "net",
      appId: "com.a",
      partner: "generic",
      mediaSources: ["net"],
      values: { endpoint: "https://pb.example.net/in" },
    });
    const sent = partnerTestRequest(generic, { kind: "install", platform: "ios" }, SETTINGS, NOW);
    if (!sent.ok) throw new Error(sent.problem);
    const params = new URL(sent.request.url).searchParams;
    expect([params.get("idfv"), params.get("advertising_id")]).toEqual(["", ""]);
  });

  it("makes the request of a partner that requires a device id, which a real send without one is not", () => {
    const google = parsePartnerConfig({
      id: "google",
      appId: "com.a",
      partner: "google-ads",
      values: { dev_token: "D", link_id: "L" },
    });
    const built = partnerTestRequest(
      google,
      { kind: "install", platform: "android" },
      SETTINGS,
      NOW,
    );
    if (!built.ok) throw new Error(built.problem);
    const params = new URL(built.request.url).searchParams;
    expect(params.get("app_event_type")).toBe("first_open");
    expect(params.get("rdid")).toBe("");
  });

  it("says install_type as a real first install of its platform does: new_install on iOS, empty on Android", () => {
    const generic = parsePartnerConfig({
      id: "net",
      appId: "com.a",
      partner: "generic",
      mediaSources: ["net"],
      values: { endpoint: "https://pb.example.net/in" },
    });
    const installTypeOn = (platform: "ios" | "android") => {
      const sent = partnerTestRequest(generic, { kind: "install", platform }, SETTINGS, NOW);
      if (!sent.ok) throw new Error(sent.problem);
      return new URL(sent.request.url).searchParams.get("install_type");
    };
    expect(installTypeOn("ios")).toBe("new_install");
    expect(installTypeOn("android")).toBe("");
  });

  it("has new ids each time, so a receiver that drops repeats takes the next test as new", () => {
    const tiktok = parsePartnerConfig({
      id: "tiktok",
      appId: "com.a",
      partner: "tiktok",
      values: { tiktok_app_id: "7123", access_token: "tok" },
      events: { service_purchase: { name: "Purchase", revenue: true } },
    });
    const eventIdOf = (kind: "install" | "event") => {
      const built = partnerTestRequest(tiktok, { kind, platform: "android" }, SETTINGS, NOW);
      if (!built.ok) throw new Error(built.problem);
      return JSON.parse(built.request.body ?? "{}").data[0].event_id as string;
    };
    for (const kind of ["install", "event"] as const) {
      const first = eventIdOf(kind);
      expect(first).not.toBe("");
      expect(eventIdOf(kind)).not.toBe(first);
    }

    const webhook = parseWebhookConfig({
      id: "w",
      appId: "com.a",
      url: "https://b.example/in",
      secret: "s".repeat(32),
    });
    const deliveryOf = () =>
      JSON.parse(
        webhookTestRequest(webhook, { kind: "install", platform: "ios" }, NOW).body ?? "{}",
      );
    const [one, two] = [deliveryOf(), deliveryOf()];
    expect(one.delivery_id).toMatch(/^test_[0-9a-f-]{36}$/);
    expect(two.delivery_id).not.toBe(one.delivery_id);
    expect(two.service_id).not.toBe(one.service_id);
  });
});
