import { describe, expect, it } from "vitest";
import { SEARCH_ADS_SOURCE } from "../attribution/matcher.ts";
import type { App } from "../ports/apps.ts";
import { parsePartnerConfig } from "./config.ts";
import { partnerRequestOf, type SendFacts, webhookBodyOf } from "./delivery.ts";
import { sampleFacts } from "./test-send.ts";

const APP_ID = "com.example.delivery";

/** The iOS app the installs are of, with these link settings. */
const iosApp = (links: App["links"]): App => ({
  appId: APP_ID,
  name: "Delivery",
  platform: "ios",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
  links,
});

/** A purchase of the install `svc-1`, as its send's subject. */
const PURCHASE = {
  kind: "event" as const,
  serviceId: "svc-1",
  eventId: "evt-1",
  name: "service_purchase",
  time: "2026-11-20T10:05:00.000Z",
  revenue: { amount: 9.99, currency: "EUR", usd: 10.79 },
  ip: "203.0.113.9",
  userAgent: "Mozilla/5.0",
  customerUserId: "user-7",
};

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
    const app = iosApp({ appStoreId: "1234567890", playPackage: "com.example.delivery.android" });
    const appIdSent = (platform: "android" | "ios") =>
      queryOf({ ...factsOf("unityads_int", platform), app }).get("app_id");
    expect(appIdSent("android")).toBe("com.example.delivery.android");
    expect(appIdSent("ios")).toBe(APP_ID);
  });

  it("names an Android app's iOS build by its bundle id on an iPhone", () => {
    const app: App = {
      ...iosApp({ appStoreId: "1234567890", iosBundleId: "com.example.delivery.ios" }),
      platform: "android",
    };
    const appIdSent = (platform: "android" | "ios") =>
      queryOf({ ...factsOf("unityads_int", platform), app }).get("app_id");
    expect(appIdSent("ios")).toBe("com.example.delivery.ios");
    expect(appIdSent("android")).toBe(APP_ID);
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

describe("what a send tells of its install", () => {
  /** The custom partner's install postback of `facts`, won, as query parameters. */
  const told = (facts: SendFacts, query: string) => {
    const config = parsePartnerConfig({
      id: "custom",
      appId: APP_ID,
      partner: "custom",
      mediaSources: ["unityads_int"],
      template: { method: "GET", install: { url: `https://pb.example.com/i?${query}` } },
    });
    const built = partnerRequestOf({ config, facts, event: null, won: true, attempt: 1 });
    if (!built.ok) throw new Error(built.problem);
    return Object.fromEntries(new URL(built.request.url).searchParams);
  };

  it("names the SDK by its platform and version, and an iOS app by its App Store id", () => {
    const app = iosApp({ appStoreId: "1234567890" });
    expect(
      told({ ...factsOf("unityads_int"), app }, "sdk={sdk_version}&store={store_app_id}"),
    ).toEqual({ sdk: "swift 1.0.0", store: "1234567890" });
    // An app without the setting has no App Store id to give.
    expect(told(factsOf("unityads_int"), "store={store_app_id}")).toEqual({ store: "" });
  });

  it("tells of a touch only for an install a touch won", () => {
    const facts = factsOf("unityads_int");
    const base = facts.attribution;
    if (!base) throw new Error("the sample has an attribution");
    const query = "src={media_source}&c={campaign_id}&t={click_time}";
    expect(told(facts, query)).toEqual({
      src: "unityads_int",
      c: "test-campaign",
      t: base.touchTime,
    });
    expect(
      told({ ...facts, attribution: { ...base, status: "matched_no_params" } }, query),
    ).toEqual({ src: "unityads_int", c: "test-campaign", t: base.touchTime });
    // An organic install names its source `organic`, and no touch won it: nothing to tell.
    for (const status of ["organic", "skipped"] as const) {
      const unmatched = { ...facts, attribution: { ...base, status, mediaSource: "organic" } };
      expect(told(unmatched, query), status).toEqual({ src: "", c: "", t: "" });
    }
    // A touch whose time is not known gives none.
    expect(told({ ...facts, attribution: { ...base, touchTime: null } }, "t={click_time}")).toEqual(
      {
        t: "",
      },
    );
  });
});

describe("what a send tells of its touch and its device", () => {
  const told = (
    facts: SendFacts,
    query: string,
    kind: "install" | "event" = "install",
    mediaSources = ["unityads_int"],
  ) => {
    const config = parsePartnerConfig({
      id: "custom",
      appId: APP_ID,
      partner: "custom",
      mediaSources,
      ...(kind === "event" ? { events: { service_purchase: { name: "purchase" } } } : {}),
      template: { method: "GET", [kind]: { url: `https://pb.example.com/x?${query}` } },
    });
    const event =
      kind === "event"
        ? { eventId: "evt-1", name: "purchase", time: "2026-11-20T10:05:00.000Z", revenue: null }
        : null;
    const built = partnerRequestOf({ config, facts, event, won: true, attempt: 1 });
    if (!built.ok) throw new Error(built.problem);
    return Object.fromEntries(new URL(built.request.url).searchParams);
  };

  it("names the winning touch's ad, ad set and campaign, the network's own click id, and the device's locale and zone", () => {
    const facts = factsOf("unityads_int");
    const base = facts.attribution;
    if (!base) throw new Error("the sample has an attribution");
    const won = {
      ...facts,
      attribution: {
        ...base,
        campaignName: "Spring",
        adsetName: "Set A",
        adName: "Banner 1",
        networkClickId: "net-click-9",
      },
    };
    const query = "c={campaign_name}&s={adset_name}&a={ad_name}&n={network_click_id}";
    expect(told(won, `${query}&l={locale}&lp={locale_posix}&z={timezone}`)).toEqual({
      c: "Spring",
      s: "Set A",
      a: "Banner 1",
      n: "net-click-9",
      l: "en-US",
      lp: "en_US",
      z: "UTC",
    });
  });

  it("names the gclid the install's Play referrer carries to Google's configurations, whichever touch won, but not in anonymous mode", () => {
    const facts = factsOf("unityads_int", "android");
    const install = {
      ...facts.install,
      // As Play hands it over, or as a client passed the Play URL's query on.
      installReferrer: {
        referrer: "utm_source=google-play&utm_medium=cpc&gclid=Cj0KCQ-abc_1",
        clickTimestamp: null,
        installBeginTimestamp: null,
        clickServerTimestamp: null,
        installBeginServerTimestamp: null,
        installVersion: null,
      },
    };
    const google = ["googleadwords_int"];
    const gclid = (sent: SendFacts, kind: "install" | "event" = "install") =>
      told(sent, "g={referrer_gclid}", kind, google);
    expect(gclid({ ...facts, install })).toEqual({ g: "Cj0KCQ-abc_1" });
    // Another network's configuration learns nothing of Google's click, its own install or not.
    expect(told({ ...facts, install }, "g={referrer_gclid}")).toEqual({ g: "" });
    const wrapped = {
      ...install,
      installReferrer: { ...install.installReferrer, referrer: "id=com.app&referrer=gclid%3DX-2" },
    };
    expect(gclid({ ...facts, install: wrapped })).toEqual({ g: "X-2" });
    const event = { ...PURCHASE, revenue: null, ip: null, userAgent: null, customerUserId: null };
    expect(gclid({ ...facts, install, subject: { ...event, anonymous: true } }, "event")).toEqual({
      g: "",
    });
    expect(gclid(facts)).toEqual({ g: "" });
  });

  it("names no device of an event sent in the SDK's anonymous mode", () => {
    const facts = factsOf("unityads_int");
    const event = { ...PURCHASE, revenue: null, ip: null, userAgent: null, customerUserId: null };
    const shared = { ...facts, settings: { shareDeviceDataWithoutConsent: true } };
    const install = { ...shared.install, idfv: "IDFV-1", maid: "IDFA-1" };
    const query = "v={idfv}&a={advertising_id}";
    expect(told({ ...shared, install, subject: event }, query, "event")).toEqual({
      v: "IDFV-1",
      a: "IDFA-1",
    });
    expect(
      told({ ...shared, install, subject: { ...event, anonymous: true } }, query, "event"),
    ).toEqual({ v: "", a: "" });
  });

  it("names an Android app by its own id, whatever its store links say", () => {
    const app: App = { ...iosApp({ playPackage: "com.example.other" }), platform: "android" };
    expect(told({ ...factsOf("unityads_int", "android"), app }, "id={app_id}")).toEqual({
      id: APP_ID,
    });
  });
});

describe("a webhook's body", () => {
  const facts = factsOf("unityads_int", "android");
  const event = PURCHASE;

  it("gives an install its fields in the export's names, and no event", () => {
    const body = JSON.parse(webhookBodyOf(facts, "snd_1"));
    expect(body).toEqual({
      type: "install",
      delivery_id: "snd_1",
      app_id: APP_ID,
      service_id: "svc-1",
      platform: "android",
      install: {
        first_open_time: facts.install.firstOpenTime,
        app_version: "1.0.0",
        os_version: "15",
        device_model: "Pixel 9",
        sdk_version: "kotlin 1.0.0",
        country: "US",
        locale: "en-US",
        customer_user_id: null,
      },
      attribution: expect.objectContaining({
        service_match_status: "matched",
        media_source: "unityads_int",
      }),
    });
    expect(body).not.toHaveProperty("event");
    const base = facts.attribution;
    if (!base) throw new Error("the sample has an attribution");
    const probable = {
      ...base,
      method: "probabilistic" as const,
      matchingType: "geo" as const,
      confidence: "medium" as const,
      attributedAt: "2026-11-20T10:01:00.000Z",
    };
    expect(
      JSON.parse(webhookBodyOf({ ...facts, attribution: probable }, "s")).attribution,
    ).toMatchObject({
      matching_type: "geo",
      confidence_score: "medium",
      attributed_at: "2026-11-20T10:01:00.000Z",
    });
  });

  it("gives an event its id, name, time and revenue, null where it has none", () => {
    const body = JSON.parse(webhookBodyOf({ ...facts, subject: event }, "snd_2"));
    expect(body).toMatchObject({ type: "event", install: { customer_user_id: "user-7" } });
    expect(body.event).toEqual({
      event_id: "evt-1",
      event_name: "service_purchase",
      event_time: "2026-11-20T10:05:00.000Z",
      revenue: 9.99,
      currency: "EUR",
    });
    const free = JSON.parse(webhookBodyOf({ ...facts, subject: { ...event, revenue: null } }, "s"));
    expect(free.event).toEqual({
      event_id: "evt-1",
      event_name: "service_purchase",
      event_time: "2026-11-20T10:05:00.000Z",
      revenue: null,
      currency: null,
    });
  });
});
