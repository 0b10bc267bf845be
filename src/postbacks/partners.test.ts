import { describe, expect, it } from "vitest";
import {
  PARTNERS,
  type PartnerTemplate,
  partnerById,
  requestFor,
  templateTexts,
} from "./partners.ts";
import { ANDROID_INSTALL, contextOf, IOS_INSTALL, PURCHASE } from "./postbacks.test-support.ts";
import {
  buildRequest,
  eventRefOf,
  installRefOf,
  isKnownMacro,
  macrosIn,
  partnerValuesIn,
} from "./templates.ts";
import { checkUrlSyntax } from "./url-safety.ts";

const CATALOG: readonly PartnerTemplate[] = PARTNERS;

const VALUES: Record<string, Record<string, string>> = {
  generic: { endpoint: "https://hooks.example.com/pb" },
  "google-ads": { dev_token: "DEV-TOKEN", link_id: "LINK123" },
  snapchat: { snap_app_id: "snap-app-1", access_token: "SNAP-TOKEN" },
  tiktok: { tiktok_app_id: "7000000000000000001", access_token: "TT-TOKEN" },
  "unity-ads": { game_id: "500009999" },
};

const fail = (): never => {
  throw new Error("no template");
};

const build = (partner: PartnerTemplate, kind: "install" | "event", install = ANDROID_INSTALL) => {
  const template = requestFor(partner, kind, install.platform);
  if (!template) throw new Error(`${partner.id} has no ${kind} template`);
  const built = buildRequest(
    template,
    contextOf({
      install,
      event: kind === "event" ? PURCHASE : null,
      values: VALUES[partner.id] ?? {},
    }),
    partner.requires,
  );
  if (!built.ok) throw new Error(built.problem);
  return built.request;
};

describe("the catalog", () => {
  it("has one row per partner id", () => {
    const ids = CATALOG.map((partner) => partner.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(partnerById("tiktok")?.name).toMatch(/TikTok/);
    expect(partnerById("nope")).toBeUndefined();
  });

  it.each(CATALOG.map((partner) => [partner.id, partner] as const))(
    "%s: uses known macros, declares every value it uses and uses every value it declares",
    (_id, partner) => {
      const texts = templateTexts(partner);
      for (const name of texts.flatMap(macrosIn)) expect(isKnownMacro(name)).toBe(true);
      const used = new Set(texts.flatMap(partnerValuesIn));
      expect([...used].sort()).toEqual(partner.values.map((value) => value.name).sort());
      for (const name of partner.requires.flatMap((entry) => entry.split("|"))) {
        expect(isKnownMacro(name)).toBe(true);
      }
      // The install's own id, with the app's public SDK key, reaches its consent and deletion
      // routes: no catalog template hands it to a partner.
      expect(texts.flatMap(macrosIn)).not.toContain("service_id");
    },
  );

  it.each(CATALOG.map((partner) => [partner.id, partner] as const))(
    "%s: names its host literally over https, has JSON bodies only with POST, and names its sources",
    (_id, partner) => {
      for (const kind of ["install", "event"] as const) {
        for (const platform of ["android", "ios"] as const) {
          const request = requestFor(partner, kind, platform);
          if (!request) continue;
          if (partner.id !== "generic") expect(request.url).toMatch(/^https:\/\/[a-z0-9.-]+\//);
          if (request.body !== null) {
            expect(partner.method).toBe("POST");
            expect(() => JSON.parse(request.body ?? "")).not.toThrow();
          }
        }
      }
      if (partner.id !== "generic") expect(partner.sources.length).toBeGreaterThan(0);
    },
  );

  it.each(CATALOG.map((partner) => [partner.id, partner] as const))(
    "%s: builds a safe request for each kind on each platform",
    (_id, partner) => {
      for (const install of [ANDROID_INSTALL, IOS_INSTALL]) {
        for (const kind of ["install", "event"] as const) {
          if (!partner[kind]) continue;
          const request = build(partner, kind, install);
          expect(checkUrlSyntax(request.url).ok).toBe(true);
          expect(request.method).toBe(partner.method);
        }
      }
    },
  );
});

describe("each partner's request", () => {
  const partner = (id: string): PartnerTemplate => {
    const found = partnerById(id);
    if (!found) throw new Error(id);
    return found;
  };

  it("generic: every fact as a parameter of the advertiser's endpoint", () => {
    const url = new URL(build(partner("generic"), "install").url);
    expect(`${url.origin}${url.pathname}`).toBe("https://hooks.example.com/pb");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      event: "install",
      app_id: "com.example.game",
      install_ref: installRefOf("com.example.game", "net", ANDROID_INSTALL.serviceId),
      attributed: "1",
      media_source: "unityads_int",
      click_id: "clk_service_1",
      network_click_id: "net-click-9",
      install_ts: "1793527200",
      install_type: "",
      advertising_id: ANDROID_INSTALL.advertisingId,
      retry: "0",
      attempt: "1",
    });
    expect(url.searchParams.has("service_id")).toBe(false);
    // An iPhone installing again says so.
    const again = { ...IOS_INSTALL, installType: "reinstall_same_device" as const };
    expect(
      new URL(build(partner("generic"), "install", again).url).searchParams.get("install_type"),
    ).toBe("reinstall_same_device");
    const event = new URL(build(partner("generic"), "event").url);
    expect(Object.fromEntries(event.searchParams)).toMatchObject({
      event: "in_app_purchase",
      event_ref: eventRefOf("com.example.game", "net", "evt-1"),
      revenue: "9.99",
      currency: "EUR",
    });
  });

  it("Google Ads: first_open with the device id typed per platform", () => {
    const android = new URL(build(partner("google-ads"), "install").url);
    expect(`${android.origin}${android.pathname}`).toBe(
      "https://www.googleadservices.com/pagead/conversion/app/1.0",
    );
    expect(Object.fromEntries(android.searchParams)).toEqual({
      app_event_type: "first_open",
      dev_token: "DEV-TOKEN",
      link_id: "LINK123",
      rdid: ANDROID_INSTALL.advertisingId,
      lat: "0",
      app_version: "2.3.1",
      os_version: "14",
      sdk_version: "kotlin 1.4.0",
      id_type: "advertisingid",
      timestamp: "1793527200",
      market_referrer_gclid: "Cj0KCQiA-gclid_1",
    });
    const ios = new URL(build(partner("google-ads"), "install", IOS_INSTALL).url);
    expect(ios.searchParams.get("id_type")).toBe("idfa");
    expect(ios.searchParams.get("rdid")).toBe(IOS_INSTALL.advertisingId);
    // iOS has no Play referrer to name.
    expect(ios.searchParams.has("market_referrer_gclid")).toBe(false);
    const event = new URL(build(partner("google-ads"), "event").url);
    expect(event.searchParams.get("app_event_type")).toBe("in_app_purchase");
    expect(event.searchParams.get("value")).toBe("9.99");
    expect(event.searchParams.get("currency_code")).toBe("EUR");
    // The device's locale in Google's form (`en_US`), and its address, which Google requires.
    expect(build(partner("google-ads"), "install").headers).toEqual({
      "User-Agent": "com.example.game 2.3.1 (Android 14; en_US; Pixel 8; Proxy)",
      "X-Forwarded-For": "81.2.69.160",
    });
    expect(build(partner("google-ads"), "event", IOS_INSTALL).headers["X-Forwarded-For"]).toBe(
      "81.2.69.160",
    );
    // An address consent withholds sends no X-Forwarded-For, rather than an empty one.
    const unshared = { ...ANDROID_INSTALL, consent: null };
    const withheld = buildRequest(
      requestFor(partner("google-ads"), "install", "android") ?? fail(),
      contextOf({ install: unshared, values: VALUES["google-ads"] }),
    );
    if (!withheld.ok) throw new Error(withheld.problem);
    expect(withheld.request.headers).not.toHaveProperty("X-Forwarded-For");
    expect(new URL(withheld.request.url).searchParams.get("market_referrer_gclid")).toBe("");
  });

  it("Snapchat: an APP_INSTALL event with Meta's extinfo, typed per platform", () => {
    const request = build(partner("snapchat"), "install", IOS_INSTALL);
    expect(request.url).toBe(
      "https://tr.snapchat.com/v3/snap-app-1/events?access_token=SNAP-TOKEN",
    );
    const [event] = JSON.parse(request.body ?? "{}").data;
    expect(event).toEqual({
      event_name: "APP_INSTALL",
      event_time: 1793527200,
      event_id: installRefOf(IOS_INSTALL.appId, "net", IOS_INSTALL.serviceId),
      action_source: "MOBILE_APP",
      app_data: {
        advertiser_tracking_enabled: 1,
        extinfo: [
          "i2",
          "com.example.game.ios",
          "2.3.1",
          "2.3.1",
          "17.4.1",
          "iPhone15,2",
          "en_US",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "Europe/Berlin",
        ],
      },
      user_data: {
        mobile_ad_id: IOS_INSTALL.advertisingId,
        idfv: IOS_INSTALL.idfv,
        client_ip_address: "81.2.69.160",
        client_user_agent: IOS_INSTALL.userAgent,
        sc_click_id: "net-click-9",
      },
    });
    const purchase = JSON.parse(build(partner("snapchat"), "event").body ?? "{}").data[0];
    expect(purchase).toMatchObject({
      event_name: "in_app_purchase",
      event_id: eventRefOf("com.example.game", "net", "evt-1"),
      custom_data: { currency: "EUR", value: 9.99 },
    });
    expect(purchase.app_data.extinfo[0]).toBe("a2");
    // An Android install has no IDFV: the key is left out rather than sent empty.
    expect(purchase.user_data).not.toHaveProperty("idfv");
  });

  it("TikTok: the Events API's app event, its token in a header", () => {
    const request = build(partner("tiktok"), "install", IOS_INSTALL);
    expect(request.url).toBe("https://business-api.tiktok.com/open_api/v1.3/event/track/");
    expect(request.headers).toEqual({
      "Access-Token": "TT-TOKEN",
      "Content-Type": "application/json",
    });
    expect(JSON.parse(request.body ?? "{}")).toEqual({
      event_source: "app",
      event_source_id: "7000000000000000001",
      data: [
        {
          event: "InstallApp",
          event_time: 1793527200,
          event_id: installRefOf(IOS_INSTALL.appId, "net", IOS_INSTALL.serviceId),
          user: {
            idfa: IOS_INSTALL.advertisingId,
            idfv: IOS_INSTALL.idfv,
            ip: "81.2.69.160",
            user_agent: IOS_INSTALL.userAgent,
            locale: "en-US",
            att_status: "AUTHORIZED",
          },
          app: { app_id: "1234567890", app_version: "2.3.1" },
        },
      ],
    });
    const purchase = JSON.parse(build(partner("tiktok"), "event").body ?? "{}").data[0];
    expect(purchase.properties).toEqual({ currency: "EUR", value: 9.99 });
    expect(purchase.user.gaid).toBe(ANDROID_INSTALL.advertisingId);
    expect(purchase.user.att_status).toBe("NOT_APPLICABLE");
    expect(purchase.app.app_id).toBe("com.example.game");
    // TikTok requires the app's store id: an iOS app that set no App Store id sends nothing.
    const unlisted = buildRequest(
      requestFor(partner("tiktok"), "install", "ios") ?? fail(),
      contextOf({ install: { ...IOS_INSTALL, appStoreId: null }, values: VALUES.tiktok }),
      partner("tiktok").requires,
    );
    expect(unlisted).toMatchObject({ ok: false, missing: ["store_app_id"] });
  });

  it("Unity Ads: the network's gamer id passed back from the tapped link", () => {
    const install = new URL(build(partner("unity-ads"), "install").url);
    expect(install.pathname).toBe("/games/500009999/install");
    expect(Object.fromEntries(install.searchParams)).toEqual({
      advertisingTrackingId: ANDROID_INSTALL.advertisingId,
      gamerId: "gamer-77",
      attributed: "1",
      installTimeEpoch: "1793527200",
    });
    const android = new URL(build(partner("unity-ads"), "event").url);
    expect(android.searchParams.get("aid")).toBe(ANDROID_INSTALL.advertisingId);
    expect(android.searchParams.has("ifa")).toBe(false);
    expect(Object.fromEntries(android.searchParams)).toMatchObject({
      gamer_id: "gamer-77",
      game_id: "500009999",
      platform: "android",
      bundle_id: "com.example.game",
      event: "in_app_purchase",
      was_conversion_attributed: "1",
      value: "9.99",
      currency: "EUR",
    });
    const ios = new URL(build(partner("unity-ads"), "event", IOS_INSTALL).url);
    expect(ios.searchParams.get("ifa")).toBe(IOS_INSTALL.advertisingId);
  });

  it("Unity Ads: sent with the advertising id or the gamer id, and skipped with neither", () => {
    const template = requestFor(partner("unity-ads"), "install", "ios") ?? fail();
    const denied = { ...IOS_INSTALL, attStatus: "denied" as const };
    const sent = (install: typeof IOS_INSTALL) =>
      buildRequest(
        template,
        contextOf({ install, values: VALUES["unity-ads"] }),
        partner("unity-ads").requires,
      );
    // Tracking denied: no IDFA, but the click's gamer id is Unity's own match.
    const byGamer = sent(denied);
    if (!byGamer.ok) throw new Error(byGamer.problem);
    expect(new URL(byGamer.request.url).searchParams.get("gamerId")).toBe("gamer-77");
    const touch = IOS_INSTALL.touch && { ...IOS_INSTALL.touch, urlParams: {} };
    expect(sent({ ...denied, touch })).toEqual({
      ok: false,
      problem: "the partner needs advertising_id or click.gamer_id, which is empty",
      missing: ["advertising_id|click.gamer_id"],
    });
  });

  it("Google Ads: no request for an install without a shared advertising id", () => {
    const template = requestFor(partner("google-ads"), "install", "ios");
    if (!template) throw new Error("no template");
    const denied = { ...IOS_INSTALL, attStatus: "denied" as const };
    const built = buildRequest(
      template,
      contextOf({ install: denied, values: VALUES["google-ads"] }),
      partner("google-ads").requires,
    );
    expect(built.ok).toBe(false);
  });
});
