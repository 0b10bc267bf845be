/** The test postback: what its sample install tells a partner. */
import { describe, expect, it } from "vitest";
import { parsePartnerConfig } from "./config.ts";
import { partnerTestRequest } from "./test-send.ts";

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
});
