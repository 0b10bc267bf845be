import { describe, expect, it } from "vitest";
import { SEARCH_ADS_SOURCE } from "../attribution/matcher.ts";
import { parsePartnerConfig } from "./config.ts";
import { partnerRequestOf, webhookBodyOf } from "./delivery.ts";
import { sampleFacts } from "./test-send.ts";

const APP_ID = "com.example.delivery";

/** What the generic partner's install postback tells, as query parameters. */
const installParams = (attribution: Parameters<typeof withAttribution>[0]) => {
  const config = parsePartnerConfig({
    id: "tracker",
    appId: APP_ID,
    partner: "generic",
    mediaSources: [attribution.mediaSource],
    values: { endpoint: "https://tracker.example.com/pb" },
  });
  const built = partnerRequestOf({
    config,
    facts: withAttribution(attribution),
    event: null,
    won: true,
    attempt: 1,
  });
  if (!built.ok) throw new Error(built.problem);
  return Object.fromEntries(new URL(built.request.url).searchParams);
};

const withAttribution = (attribution: {
  readonly mediaSource: string;
  readonly clickId: string | null;
  readonly campaignId: string;
  readonly adsetId: string;
}) => {
  const facts = sampleFacts({
    appId: APP_ID,
    platform: "ios",
    mediaSource: attribution.mediaSource,
    subject: { kind: "install", serviceId: "svc-1", ip: null, userAgent: null },
    settings: { shareDeviceDataWithoutConsent: false },
    now: new Date("2026-11-20T10:00:00Z"),
  });
  if (!facts.attribution) throw new Error("the sample has an attribution");
  return { ...facts, attribution: { ...facts.attribution, ...attribution } };
};

describe("a partner's install postback", () => {
  it("tells an Apple Search Ads win its campaign and ad group, with no click id of ours", () => {
    const params = installParams({
      mediaSource: SEARCH_ADS_SOURCE,
      clickId: null,
      campaignId: "123456",
      adsetId: "789",
    });
    expect(params).toMatchObject({
      attributed: "1",
      media_source: SEARCH_ADS_SOURCE,
      campaign_id: "123456",
      adset_id: "789",
      click_id: "",
    });
    expect(params.click_ts).not.toBe("");
  });

  it("tells a click's win its click id", () => {
    const params = installParams({
      mediaSource: "unityads_int",
      clickId: "clk-1",
      campaignId: "c-1",
      adsetId: "a-1",
    });
    expect(params).toMatchObject({ media_source: "unityads_int", click_id: "clk-1" });
  });

  it("names an iOS app's Android build by its Play package on an Android phone", () => {
    const config = parsePartnerConfig({
      id: "tracker",
      appId: APP_ID,
      partner: "generic",
      mediaSources: ["unityads_int"],
      values: { endpoint: "https://tracker.example.com/pb" },
    });
    // An iOS app with an Android build: an Android phone installs it from Google Play.
    const app = {
      appId: APP_ID,
      name: "Delivery",
      platform: "ios" as const,
      enabled: true,
      createdAt: "2026-11-01T00:00:00.000Z",
      links: { appStoreId: "1234567890", playPackage: "com.example.delivery.android" },
    };
    const appIdSent = (platform: "android" | "ios") => {
      const facts = sampleFacts({
        appId: APP_ID,
        platform,
        mediaSource: "unityads_int",
        subject: { kind: "install", serviceId: "svc-1", ip: null, userAgent: null },
        settings: { shareDeviceDataWithoutConsent: false },
        now: new Date("2026-11-20T10:00:00Z"),
      });
      const built = partnerRequestOf({
        config,
        facts: { ...facts, app },
        event: null,
        won: true,
        attempt: 1,
      });
      if (!built.ok) throw new Error(built.problem);
      return new URL(built.request.url).searchParams.get("app_id");
    };
    expect(appIdSent("android")).toBe("com.example.delivery.android");
    expect(appIdSent("ios")).toBe(APP_ID);
  });

  it("tells a partner and the app's backend of an Android phone's reinstall, which the export cannot", () => {
    const facts = sampleFacts({
      appId: APP_ID,
      platform: "android",
      mediaSource: "unityads_int",
      subject: { kind: "install", serviceId: "svc-1", ip: null, userAgent: null },
      settings: { shareDeviceDataWithoutConsent: false },
      now: new Date("2026-11-20T10:00:00Z"),
    });
    const base = facts.attribution;
    if (!base) throw new Error("the sample has an attribution");
    const config = parsePartnerConfig({
      id: "tracker",
      appId: APP_ID,
      partner: "generic",
      mediaSources: ["unityads_int"],
      values: { endpoint: "https://tracker.example.com/pb" },
    });
    const sent = (reinstall: boolean) => {
      const attribution = { ...base, installType: null, reinstall };
      const built = partnerRequestOf({
        config,
        facts: { ...facts, attribution },
        event: null,
        won: true,
        attempt: 1,
      });
      if (!built.ok) throw new Error(built.problem);
      const body = JSON.parse(webhookBodyOf({ ...facts, attribution }, "snd_1"));
      return {
        installType: new URL(built.request.url).searchParams.get("install_type"),
        webhook: body.attribution,
      };
    };
    expect(sent(true)).toEqual({
      installType: "reinstall_same_device",
      webhook: expect.objectContaining({ install_type: null, reinstall: true }),
    });
    expect(sent(false)).toEqual({
      installType: "",
      webhook: expect.objectContaining({ install_type: null, reinstall: false }),
    });
  });
});
