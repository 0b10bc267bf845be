import { describe, expect, it } from "vitest";
import { SEARCH_ADS_SOURCE } from "../attribution/matcher.ts";
import { parsePartnerConfig } from "./config.ts";
import { partnerRequestOf, type SendFacts, webhookBodyOf } from "./delivery.ts";
import { sampleFacts } from "./test-send.ts";

const APP_ID = "com.example.delivery";

/** An install's facts, of an iPhone unless said, won by `mediaSource`. */
const factsOf = (mediaSource: string, platform: "android" | "ios" = "ios") =>
  sampleFacts({
    appId: APP_ID,
    platform,
    mediaSource,
    subject: { kind: "install", serviceId: "svc-1", ip: null, userAgent: null },
    settings: { shareDeviceDataWithoutConsent: false },
    now: new Date("2026-11-20T10:00:00Z"),
  });

/** What the generic partner's install postback of `facts` tells, as query parameters. */
const queryOf = (facts: SendFacts) => {
  const mediaSource = facts.attribution?.mediaSource;
  if (!mediaSource) throw new Error("the facts have a winner");
  const config = parsePartnerConfig({
    id: "tracker",
    appId: APP_ID,
    partner: "generic",
    mediaSources: [mediaSource],
    values: { endpoint: "https://tracker.example.com/pb" },
  });
  const built = partnerRequestOf({ config, facts, event: null, won: true, attempt: 1 });
  if (!built.ok) throw new Error(built.problem);
  return new URL(built.request.url).searchParams;
};

/** What the generic partner's install postback tells of an iPhone's install so won. */
const installParams = (attribution: {
  readonly mediaSource: string;
  readonly clickId: string | null;
  readonly campaignId: string;
  readonly adsetId: string;
}) => {
  const facts = factsOf(attribution.mediaSource);
  if (!facts.attribution) throw new Error("the sample has an attribution");
  return Object.fromEntries(
    queryOf({ ...facts, attribution: { ...facts.attribution, ...attribution } }),
  );
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

  it("tells a partner and the app's backend whether the install was click-through or view-through", () => {
    const facts = factsOf("unityads_int");
    const base = facts.attribution;
    if (!base) throw new Error("the sample has an attribution");
    const config = parsePartnerConfig({
      id: "custom",
      appId: APP_ID,
      partner: "custom",
      mediaSources: ["unityads_int"],
      template: { method: "GET", install: { url: "https://pb.example.com/i?t={touch_type}" } },
    });
    const told = (touchType: "click" | "impression") => {
      const sent = { ...facts, attribution: { ...base, touchType } };
      const built = partnerRequestOf({ config, facts: sent, event: null, won: true, attempt: 1 });
      if (!built.ok) throw new Error(built.problem);
      return {
        partner: new URL(built.request.url).searchParams.get("t"),
        webhook: JSON.parse(webhookBodyOf(sent, "snd_1")).attribution.touch_type,
      };
    };
    expect(told("click")).toEqual({ partner: "click", webhook: "click" });
    expect(told("impression")).toEqual({ partner: "impression", webhook: "impression" });
    // A partner that did not win is told nothing of the touch.
    const lost = partnerRequestOf({ config, facts, event: null, won: false, attempt: 1 });
    if (!lost.ok) throw new Error(lost.problem);
    expect(new URL(lost.request.url).searchParams.get("t")).toBe("");
  });

  it("names an iOS app's Android build by its Play package on an Android phone", () => {
    // An iOS app with an Android build: an Android phone installs it from Google Play.
    const app = {
      appId: APP_ID,
      name: "Delivery",
      platform: "ios" as const,
      enabled: true,
      createdAt: "2026-11-01T00:00:00.000Z",
      links: { appStoreId: "1234567890", playPackage: "com.example.delivery.android" },
    };
    const appIdSent = (platform: "android" | "ios") =>
      queryOf({ ...factsOf("unityads_int", platform), app }).get("app_id");
    expect(appIdSent("android")).toBe("com.example.delivery.android");
    expect(appIdSent("ios")).toBe(APP_ID);
  });

  it("tells a partner and the app's backend of an Android phone's reinstall, which the export cannot", () => {
    const facts = factsOf("unityads_int", "android");
    const base = facts.attribution;
    if (!base) throw new Error("the sample has an attribution");
    const sent = (reinstall: boolean) => {
      const told = { ...facts, attribution: { ...base, installType: null, reinstall } };
      return {
        installType: queryOf(told).get("install_type"),
        webhook: JSON.parse(webhookBodyOf(told, "snd_1")).attribution,
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
