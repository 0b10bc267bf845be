/**
 * Attribution over HTTP against the embedded runtime: links and taps on the link host, an ad
 * network's touches, installs through POST /v1/installs, then the SDKs' attribution route and
 * the export, which must agree with what the matcher must find.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CROWDED_IP_DEVICES } from "../../src/attribution/matcher.ts";
import { withAttributionSettings } from "../../src/attribution/settings.ts";
import { tcString } from "../../src/domain/tcf.test-support.ts";
import type { LinkAnswer } from "../../src/links/links.ts";
import type { ExportRecord } from "../../src/record/columns.ts";
import { PIXEL } from "../support/agents.ts";
import { androidInstallRequest, installRequest } from "../support/installs.ts";
import { type MockNetwork, startMockNetwork } from "../support/mock-network.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.attributed";
const IOS_APP = "com.example.attributed.ios";
const GAID = "38400000-8cf0-11bd-b23e-10b96e40000d";
const HOUR_MS = 3_600_000;

/** Apple's AdServices answer for each token the tests send: its click this long ago, or undated. */
const APPLE_CLICKS: Record<string, number | null> = {
  "asa-six-days": 6 * 24 * HOUR_MS,
  "asa-half-hour": HOUR_MS / 2,
  "asa-undated": null,
};

const appleAnswers = (token: string) => {
  const ago = APPLE_CLICKS[token];
  if (ago === undefined) return { status: 400 };
  const answer = {
    attribution: true,
    orgId: 40669820,
    campaignId: 542370539,
    adGroupId: 542317095,
    keywordId: 87675432,
    adId: 542317136,
    conversionType: "Download",
    claimType: "Click",
    ...(ago === null ? {} : { clickDate: new Date(Date.now() - ago).toISOString() }),
  };
  return { status: 200, body: JSON.stringify(answer) };
};

const androidInstall = androidInstallRequest;

describe("attribution over HTTP", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };
  let apple: MockNetwork;

  const attributionOf = (serviceId: string, key = keys.sdkKey) => rt.attributionOf(serviceId, key);

  const install = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await rt.post("/v1/installs", body, keys.sdkKey, headers);
    expect(response.status).toBe(202);
  };

  /**
   * A Pixel's tap on the link from `ip`, then the install of `serviceId` whose Play referrer
   * brings the tap's click id back.
   */
  const installReferredBy = async (tapped: string, ip: string, serviceId: string) => {
    const url = new URL(tapped);
    const tap = await fetch(`${rt.linkUrl}${url.pathname}${url.search}`, {
      redirect: "manual",
      headers: { "user-agent": PIXEL, "x-forwarded-for": ip },
    });
    const referrer = new URL(tap.headers.get("location") ?? "").searchParams.get("referrer") ?? "";
    await install(
      androidInstall(serviceId, {
        install_referrer: {
          referrer,
          click_timestamp: Math.floor(Date.now() / 1000) - 5,
          install_begin_timestamp: Math.floor(Date.now() / 1000) - 2,
        },
      }),
    );
  };

  beforeAll(async () => {
    apple = await startMockNetwork((request) => appleAnswers(request.body.toString()));
    rt = await startTestRuntime({ trustProxy: true, appleAdsUrl: `${apple.url}/api/v1/` });
    keys = await rt.createApp(APP, "android");
  });

  afterAll(async () => {
    await rt?.dispose();
    await apple?.close();
  });

  it("matches an install to the tap whose click id the Play referrer brings back", async () => {
    const made = await rt.post(
      "/v1/links",
      {
        media_source: "facebook_ads",
        campaign_id: "123",
        campaign_name: "Winter",
        deep_link_path: "/levels/7",
        params: { promo: "WINTER" },
      },
      keys.serverKey,
    );
    const link = (await made.json()) as LinkAnswer;
    await installReferredBy(link.url, "81.2.69.142", "referred-1");
    expect(await attributionOf("referred-1")).toEqual({
      service_match_status: "matched",
      media_source: "facebook_ads",
      campaign_id: "123",
      campaign_name: "Winter",
      deep_link_path: "/levels/7",
      promo: "WINTER",
      click_id: expect.stringMatching(/^[0-9A-Za-z]{22}$/),
      click_to_first_open_hours: "0",
      matching_type: "network",
      confidence_score: "high",
    });
  });

  it("gives a new install the tapped URL's own parameters in its deferred deep link, over the link's", async () => {
    const made = await rt.post(
      "/v1/links",
      { media_source: "partner", deep_link_path: "/levels/7", params: { promo: "WINTER" } },
      keys.serverKey,
    );
    const link = (await made.json()) as LinkAnswer;
    // The link as shared, with a placement's own values added to its query.
    const tapped = new URL(link.url);
    for (const [name, value] of Object.entries({ promo: "SPRING", sub1: "story", gclid: "G-1" }))
      tapped.searchParams.set(name, value);
    await installReferredBy(tapped.href, "81.2.69.150", "referred-tapped-params");
    // What the app would have read from the URL, had it been installed already.
    expect(await attributionOf("referred-tapped-params")).toMatchObject({
      service_match_status: "matched",
      deep_link_path: "/levels/7",
      promo: "SPRING",
      sub1: "story",
      gclid: "G-1",
    });
  });

  it("answers the campaign the install was credited to, never one the tapped URL or the link's parameters name", async () => {
    // A link naming no campaign, with a custom parameter named like one; the ad serving it
    // appends its own campaign macros to the URL, as networks do.
    const made = await rt.post(
      "/v1/links",
      {
        media_source: "partner",
        deep_link_path: "/levels/7",
        params: { ad_name: "from-the-link" },
      },
      keys.serverKey,
    );
    expect(made.status).toBe(201);
    const link = (await made.json()) as LinkAnswer;
    const tapped = new URL(link.url);
    for (const [name, value] of Object.entries({
      campaign_id: "999",
      campaign_name: "Spoofed",
      adset_id: "a-1",
      matching_type: "network",
      promo: "SPRING",
    }))
      tapped.searchParams.set(name, value);
    await installReferredBy(tapped.href, "81.2.69.151", "referred-tapped-campaign");
    const answer = await attributionOf("referred-tapped-campaign");
    // As the export says it (below): the source, no campaign; the other parameters stay.
    expect(answer).toMatchObject({
      service_match_status: "matched",
      media_source: "partner",
      matching_type: "network",
      deep_link_path: "/levels/7",
      promo: "SPRING",
    });
    for (const key of ["campaign_id", "campaign_name", "adset_id", "ad_name"])
      expect(answer, key).not.toHaveProperty(key);
  });

  it("matches by advertising id a network reported, without link parameters", async () => {
    const reported = await rt.post(
      "/v1/touches",
      {
        touches: [
          {
            touch_type: "click",
            touch_time: new Date(Date.now() - 2 * 3_600_000).toISOString(),
            media_source: "network_b",
            campaign_name: "Spring",
            maid: GAID,
          },
        ],
      },
      keys.serverKey,
    );
    expect(reported.status).toBe(202);
    await install(androidInstall("by-maid-1", { maid: GAID }));
    expect(await attributionOf("by-maid-1")).toMatchObject({
      service_match_status: "matched_no_params",
      media_source: "network_b",
      campaign_name: "Spring",
      matching_type: "network",
      click_to_first_open_hours: "2",
    });
    // The same phone installing the app again: credited to the same click, whose per-install
    // price its first install paid (the export below says so).
    await install(androidInstall("by-maid-again", { maid: GAID }));
    expect(await attributionOf("by-maid-again")).toMatchObject({ media_source: "network_b" });
  });

  describe("Apple Ads and the advertising id", () => {
    const IDFA = "6D92078A-8246-4BA4-AE5B-76104861E7DD";
    let ios: { sdkKey: string; serverKey: string };

    beforeAll(async () => {
      ios = await rt.createApp(IOS_APP, "ios");
      // A network's click on the IDFA two hours before the installs below first open.
      const reported = await rt.post(
        "/v1/touches",
        {
          touches: [
            {
              touch_type: "click",
              touch_time: new Date(Date.now() - 2 * HOUR_MS).toISOString(),
              media_source: "network_idfa",
              maid: IDFA,
            },
          ],
        },
        ios.serverKey,
      );
      expect(reported.status).toBe(202);
    });

    const iosInstall = async (serviceId: string, token: string) => {
      const body = installRequest(serviceId, {
        first_open_time: new Date().toISOString(),
        maid: IDFA,
        att_status: "authorized",
        platform_ads_token: token,
      });
      const response = await rt.post("/v1/installs", body, ios.sdkKey);
      expect(response.status).toBe(202);
      return rt.attributionOf(serviceId, ios.sdkKey);
    };

    it("credits the later click: a network's on the IDFA over Apple's dated six days back", async () => {
      expect(await iosInstall("asa-old", "asa-six-days")).toMatchObject({
        media_source: "network_idfa",
        matching_type: "network",
      });
      expect(await iosInstall("asa-recent", "asa-half-hour")).toMatchObject({
        media_source: "Apple Search Ads",
        campaign_id: "542370539",
        keyword_id: "87675432",
      });
      // Apple's standard answer gives no date: its claim stands.
      expect(await iosInstall("asa-undated", "asa-undated")).toMatchObject({
        media_source: "Apple Search Ads",
      });
      expect(apple.received.map((request) => request.body.toString()).sort()).toEqual([
        "asa-half-hour",
        "asa-six-days",
        "asa-undated",
      ]);
    });
  });

  describe("consent", () => {
    /** A network's click on `maid` two hours ago, from an address no install comes from. */
    const reportClick = async (maid: string, mediaSource: string) => {
      const reported = await rt.post(
        "/v1/touches",
        {
          touches: [
            {
              touch_type: "click",
              touch_time: new Date(Date.now() - 2 * 3_600_000).toISOString(),
              media_source: mediaSource,
              maid,
              ip: "203.0.113.50",
            },
          ],
        },
        keys.serverKey,
      );
      expect(reported.status).toBe(202);
    };

    it("never matches on the advertising id of a user who refused ad user data", async () => {
      const maid = "38400000-8cf0-11bd-b23e-10b96e400101";
      await reportClick(maid, "network_consent");
      await install(
        androidInstall("consent-refused", {
          maid,
          consent: { gdpr_applies: true, ad_user_data: false, ad_personalization: false },
        }),
      );
      expect(await attributionOf("consent-refused")).toEqual({
        service_match_status: "organic",
        media_source: "organic",
      });
    });

    it("matches it where the user agreed, and where consent is not required", async () => {
      const agreed = "38400000-8cf0-11bd-b23e-10b96e400102";
      const unasked = "38400000-8cf0-11bd-b23e-10b96e400103";
      await reportClick(agreed, "network_agreed");
      await reportClick(unasked, "network_unasked");
      await install(
        androidInstall("consent-agreed", {
          maid: agreed,
          consent: { gdpr_applies: true, ad_user_data: true, tcf_string: "CQF0-AAQF0-AAAH" },
        }),
      );
      await install(androidInstall("consent-unasked", { maid: unasked, consent: null }));
      expect(await attributionOf("consent-agreed")).toMatchObject({
        media_source: "network_agreed",
        matching_type: "network",
      });
      expect(await attributionOf("consent-unasked")).toMatchObject({
        media_source: "network_unasked",
      });
    });

    it("reads the consent platform's TCF string where the app gave no answer of its own", async () => {
      const measured = "38400000-8cf0-11bd-b23e-10b96e400104";
      const withheld = "38400000-8cf0-11bd-b23e-10b96e400105";
      await reportClick(measured, "network_tcf_measured");
      await reportClick(withheld, "network_tcf_withheld");
      // Purposes 1 (device storage) and 7 (ad measurement): ad user data, as Google reads it.
      await install(
        androidInstall("consent-tcf-measured", {
          maid: measured,
          consent: { gdpr_applies: true, tcf_string: tcString([1, 2, 7]) },
        }),
      );
      await install(
        androidInstall("consent-tcf-withheld", {
          maid: withheld,
          consent: { gdpr_applies: true, tcf_string: tcString([1, 2, 3, 4]) },
        }),
      );
      expect(await attributionOf("consent-tcf-measured")).toMatchObject({
        media_source: "network_tcf_measured",
        matching_type: "network",
      });
      expect(await attributionOf("consent-tcf-withheld")).toEqual({
        service_match_status: "organic",
        media_source: "organic",
      });
    });

    it("keeps the latest consent the SDK sends, and says so", async () => {
      await install(androidInstall("consent-updated", { consent: { gdpr_applies: true } }));
      const sent = { gdpr_applies: true, ad_user_data: true, ad_personalization: false };
      const response = await rt.post(
        "/v1/installs/consent-updated/consent",
        { sent_at: new Date().toISOString(), consent: sent },
        keys.sdkKey,
      );
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({
        service_id: "consent-updated",
        consent: { ...sent, tcf_string: null, updated_at: expect.any(String) },
      });
      expect((await rt.stores.installs.get(APP, "consent-updated"))?.consent).toMatchObject({
        gdprApplies: true,
        adUserData: true,
        adPersonalization: false,
      });
      const unknown = await rt.post(
        "/v1/installs/nobody-yet/consent",
        { consent: sent },
        keys.sdkKey,
      );
      expect(unknown.status).toBe(409);
    });
  });

  /** A Pixel's tap from the address on a new TikTok link, which names no campaign. */
  const tapFrom = async (ip: string) => {
    const made = await rt.post("/v1/links", { media_source: "tiktok" }, keys.serverKey);
    const link = (await made.json()) as LinkAnswer;
    await fetch(`${rt.linkUrl}/${link.deeplink_id}`, {
      redirect: "manual",
      headers: { "user-agent": PIXEL, "x-forwarded-for": ip },
    });
  };

  it("matches probabilistically a tap from the install's IP on the same kind of phone", async () => {
    await tapFrom("81.2.69.160");
    await install(androidInstall("geo-1"), { "x-forwarded-for": "81.2.69.160" });
    expect(await attributionOf("geo-1")).toMatchObject({
      service_match_status: "matched_no_params",
      media_source: "tiktok",
      matching_type: "geo",
      confidence_score: "medium",
    });
    // Its report is recorded as an install that sent from the address, which matching reads.
    const day = { appId: APP, from: new Date(Date.now() - 3_600_000), to: new Date() };
    expect(await rt.stores.touches.installsAt("81.2.69.160", day, 10)).toBe(1);
    // Another address, no ad id, no referrer: organic.
    await install(androidInstall("organic-1"), { "x-forwarded-for": "198.51.100.7" });
    expect(await attributionOf("organic-1")).toEqual({
      service_match_status: "organic",
      media_source: "organic",
    });
  });

  it("caps at low a match at an address where more installs than a home's send their events, though few tapped", async () => {
    // An office's Wi-Fi: six phones installed elsewhere (organic) send their events from it.
    const OFFICE = "81.2.69.170";
    for (let i = 0; i < CROWDED_IP_DEVICES + 1; i++) {
      await install(androidInstall(`office-${i}`), { "x-forwarded-for": `198.51.100.${20 + i}` });
      const sent = await rt.post(
        "/v1/events",
        {
          events: [
            {
              event_id: `office-${i}-e1`,
              service_id: `office-${i}`,
              event_type: "LEVEL_COMPLETE",
              event_time: new Date().toISOString(),
              parameters: {},
            },
          ],
        },
        keys.sdkKey,
        { "x-forwarded-for": OFFICE },
      );
      expect(await sent.json()).toMatchObject({ accepted: 1 });
    }
    // One tap there, by its taps a home; then an install there of the same model.
    await tapFrom(OFFICE);
    await install(androidInstall("office-new"), { "x-forwarded-for": OFFICE });
    expect(await attributionOf("office-new")).toMatchObject({
      media_source: "tiktok",
      matching_type: "geo",
      confidence_score: "low",
    });
  });

  it("credits one tap to one install: a twin phone at the same address that installs too is organic", async () => {
    await tapFrom("81.2.69.161");
    await install(androidInstall("twin-1"), { "x-forwarded-for": "81.2.69.161" });
    const first = await attributionOf("twin-1");
    expect(first).toMatchObject({ media_source: "tiktok", confidence_score: "medium" });
    // The same model on the same release, from the same address, with no referrer.
    await install(androidInstall("twin-2"), { "x-forwarded-for": "81.2.69.161" });
    expect(await attributionOf("twin-2")).toEqual({
      service_match_status: "organic",
      media_source: "organic",
    });
  });

  describe("a phone whose clock runs 10 minutes slow", () => {
    const SLOW_MS = 10 * 60_000;
    /** The phone's clock now, and `ms` from now, as its SDK writes times. */
    const phoneClock = (ms = 0) => new Date(Date.now() + ms - SLOW_MS).toISOString();
    const tapLink = async (ip: string) => {
      const made = await rt.post("/v1/links", { media_source: "snapchat" }, keys.serverKey);
      const link = (await made.json()) as LinkAnswer;
      const tap = await fetch(`${rt.linkUrl}/${link.deeplink_id}`, {
        redirect: "manual",
        headers: { "user-agent": PIXEL, "x-forwarded-for": ip },
      });
      return new URL(tap.headers.get("location") ?? "").searchParams.get("referrer") ?? "";
    };

    it("keeps the tap whose click id the referrer brings back, and a network's click on its ad id", async () => {
      // By its own clock the phone opened the app minutes before the tap: its first open and
      // the time it sent the install are both on that clock.
      const referrer = await tapLink("81.2.69.170");
      await install(
        androidInstall("slow-referred", {
          first_open_time: phoneClock(),
          sent_at: phoneClock(),
          install_referrer: { referrer },
        }),
      );
      expect(await attributionOf("slow-referred")).toMatchObject({
        service_match_status: "matched_no_params",
        media_source: "snapchat",
        matching_type: "network",
        confidence_score: "high",
      });

      const maid = "38400000-8cf0-11bd-b23e-10b96e40000e";
      const reported = await rt.post(
        "/v1/touches",
        {
          touches: [
            {
              touch_type: "click",
              touch_time: new Date(Date.now() - 2 * 60_000).toISOString(),
              media_source: "network_c",
              maid,
            },
          ],
        },
        keys.serverKey,
      );
      expect(reported.status).toBe(202);
      await install(
        androidInstall("slow-by-maid", {
          maid,
          first_open_time: phoneClock(),
          sent_at: phoneClock(),
        }),
      );
      expect(await attributionOf("slow-by-maid")).toMatchObject({
        service_match_status: "matched_no_params",
        media_source: "network_c",
        matching_type: "network",
      });
    });

    it("still never credits a click made after Play's server clock says the install began", async () => {
      const began = Math.floor(Date.now() / 1000) - 60;
      const referrer = await tapLink("81.2.69.171");
      await install(
        androidInstall("slow-injected", {
          first_open_time: phoneClock(),
          sent_at: phoneClock(),
          install_referrer: { referrer, install_begin_timestamp_server_seconds: began },
        }),
        { "x-forwarded-for": "198.51.100.9" },
      );
      expect(await attributionOf("slow-injected")).toEqual({
        service_match_status: "organic",
        media_source: "organic",
      });
    });
  });

  describe("a phone 15 minutes slow whose client sends no clock", () => {
    const SLOW_MS = 15 * 60_000;
    /** A time by the service's clock as the phone's clock gives it: ISO, or Play's seconds. */
    const phoneTime = (ms: number) => new Date(ms - SLOW_MS).toISOString();
    const phoneSeconds = (ms: number) => Math.floor((ms - SLOW_MS) / 1000);

    /** A tap on a new link; the referrer Play hands the phone, and when the tap was made. */
    const tap = async () => {
      const made = await rt.post("/v1/links", { media_source: "reddit" }, keys.serverKey);
      const link = (await made.json()) as LinkAnswer;
      const tappedAt = Date.now();
      const response = await fetch(`${rt.linkUrl}/${link.deeplink_id}`, {
        redirect: "manual",
        headers: { "user-agent": PIXEL, "x-forwarded-for": "81.2.69.180" },
      });
      const location = new URL(response.headers.get("location") ?? "");
      return { referrer: location.searchParams.get("referrer") ?? "", tappedAt };
    };

    it("keeps the click id Play brings back: its click time gives the phone's offset", async () => {
      const { referrer, tappedAt } = await tap();
      // No sent_at: by its own clock the phone opened the app 15 minutes before the tap.
      await install(
        androidInstall("no-clock-referred", {
          first_open_time: phoneTime(Date.now()),
          install_referrer: {
            referrer,
            click_timestamp: phoneSeconds(tappedAt),
            install_begin_timestamp: phoneSeconds(tappedAt) + 20,
          },
        }),
        { "x-forwarded-for": "198.51.100.20" },
      );
      expect(await attributionOf("no-clock-referred")).toMatchObject({
        service_match_status: "matched_no_params",
        media_source: "reddit",
        matching_type: "network",
        confidence_score: "high",
      });
    });

    it("refuses the click when the install began before it on the phone's clock (injected)", async () => {
      const { referrer, tappedAt } = await tap();
      await install(
        androidInstall("no-clock-injected", {
          first_open_time: phoneTime(Date.now()),
          install_referrer: {
            referrer,
            click_timestamp: phoneSeconds(tappedAt),
            install_begin_timestamp: phoneSeconds(tappedAt) - 30,
          },
        }),
        { "x-forwarded-for": "198.51.100.21" },
      );
      expect(await attributionOf("no-clock-injected")).toEqual({
        service_match_status: "organic",
        media_source: "organic",
      });
    });
  });

  describe("an iPhone whose clock ran 3 hours fast on the app's first install", () => {
    it("calls the app's next install on that iPhone a reinstall, comparing first opens on the service's clock", async () => {
      const app = await rt.createApp("com.example.attributed.reinstalled", "ios");
      const idfv = "5B0C6E2A-3D61-4C4B-9E0B-7F5A2D9C1E44";
      const now = Date.now();
      const sent = async (serviceId: string, firstOpen: number, phoneNow: number) => {
        const body = installRequest(serviceId, {
          idfv,
          first_open_time: new Date(firstOpen).toISOString(),
          sent_at: new Date(phoneNow).toISOString(),
        });
        expect((await rt.post("/v1/installs", body, app.sdkKey)).status).toBe(202);
        await rt.attributionOf(serviceId, app.sdkKey);
      };
      // Opened 2 hours ago by the service's clock, which the phone read as an hour from now.
      await sent("fast-first", now + HOUR_MS, now + 3 * HOUR_MS);
      // Deleted and installed again on the same iPhone, its clock set right since.
      await sent("fast-again", now - 60_000, Date.now());
      await rt.workers.idle();
      await rt.flush();
      const since = Math.floor((now - 24 * HOUR_MS) / 1000);
      const response = await rt.get(`/api/v1/export?timestamp=${since}`, app.serverKey);
      const { data } = (await response.json()) as { data: ExportRecord[] };
      const row = (serviceId: string) => data.find((record) => record.service_id === serviceId);
      expect(row("fast-first")?.install_type).toBe("new_install");
      expect(row("fast-again")?.install_type).toBe("reinstall_same_device");
      // The export's own times put them in that order.
      expect(Date.parse(row("fast-first")?.event_time ?? "")).toBeLessThan(
        Date.parse(row("fast-again")?.event_time ?? ""),
      );
    });
  });

  it("skips installs of an app with attribution off, and reads not_configured when it is disabled", async () => {
    const app = await rt.stores.apps.get(APP);
    if (!app) throw new Error("no app");
    await rt.stores.apps.update(APP, (stored) =>
      withAttributionSettings(stored, { enabled: false }),
    );
    await install(androidInstall("skipped-1"));
    expect(await attributionOf("skipped-1")).toEqual({ service_match_status: "skipped" });
    await rt.stores.apps.update(APP, (stored) => ({ ...stored, enabled: false }));
    expect(await attributionOf("organic-1")).toEqual({ service_match_status: "not_configured" });
    await rt.stores.apps.update(APP, (stored) => ({
      ...stored,
      enabled: app.enabled,
      attribution: app.attribution,
    }));
    // Skipped is terminal: switched on again, the app's install is not matched after all.
    await rt.workers.idle();
    expect(await attributionOf("skipped-1")).toEqual({ service_match_status: "skipped" });
  });

  it("answers 404 for an unknown install and 422 for a bad wait", async () => {
    expect((await rt.get("/v1/installs/nobody/attribution", keys.sdkKey)).status).toBe(404);
    expect(
      (await rt.get("/v1/installs/organic-1/attribution?wait_seconds=21", keys.sdkKey)).status,
    ).toBe(422);
    // Given twice, it is not read as its last value.
    const twice = await rt.get(
      "/v1/installs/organic-1/attribution?wait_seconds=0&wait_seconds=20",
      keys.sdkKey,
    );
    expect(twice.status).toBe(422);
    expect(((await twice.json()) as { detail: string }).detail).toBe(
      'query: gives "wait_seconds" more than once: give each parameter once',
    );
    // Only plain digits: `1e1` is not read as 10 seconds, nor `0x5` as 5.
    for (const wait of ["1e1", "0x5", "5.0", "%205"]) {
      const answer = await rt.get(
        `/v1/installs/organic-1/attribution?wait_seconds=${wait}`,
        keys.sdkKey,
      );
      expect(answer.status, wait).toBe(422);
      expect(await answer.json(), wait).toEqual({
        error: "Unprocessable Entity",
        detail: "wait_seconds: must be a whole number of seconds from 0 to 20",
      });
    }
    expect((await rt.get("/v1/installs/organic-1/attribution", keys.serverKey)).status).toBe(401);
  });

  it("exports each install's service_install event with its attribution", async () => {
    await rt.workers.idle();
    await rt.flush();
    const since = Math.floor(Date.now() / 1000) - 86_400;
    const response = await rt.get(`/api/v1/export?timestamp=${since}`, keys.serverKey);
    const { data } = (await response.json()) as { data: ExportRecord[] };
    const installs = data.filter((record) => record.event_name === "service_install");
    const byInstall = Object.fromEntries(installs.map((record) => [record.service_id, record]));
    expect(Object.keys(byInstall).sort()).toEqual(
      [
        "by-maid-1",
        "by-maid-again",
        "consent-agreed",
        "consent-refused",
        "consent-tcf-measured",
        "consent-tcf-withheld",
        "consent-unasked",
        "consent-updated",
        "geo-1",
        "no-clock-injected",
        "no-clock-referred",
        ...Array.from({ length: CROWDED_IP_DEVICES + 1 }, (_, i) => `office-${i}`),
        "office-new",
        "organic-1",
        "referred-1",
        "referred-tapped-campaign",
        "referred-tapped-params",
        "skipped-1",
        "slow-by-maid",
        "slow-injected",
        "slow-referred",
        "twin-1",
        "twin-2",
      ].sort(),
    );
    expect(byInstall["referred-1"]).toMatchObject({
      media_source: "facebook_ads",
      campaign_name: "Winter",
      matching_type: "network",
      confidence_score: "high",
      click_to_first_open_hours: 0,
      os: "android",
    });
    expect(byInstall["by-maid-again"]).toMatchObject({ media_source: "network_b" });
    expect(byInstall["referred-tapped-campaign"]).toMatchObject({
      media_source: "partner",
      campaign_id: null,
      campaign_name: null,
      adset_id: null,
      ad_name: null,
    });
    expect(byInstall["geo-1"]).toMatchObject({ matching_type: "geo", media_source: "tiktok" });
    expect(byInstall["twin-1"]).toMatchObject({ matching_type: "geo", media_source: "tiktok" });
    expect(byInstall["twin-2"]).toMatchObject({ media_source: "organic" });
    expect(byInstall["office-new"]).toMatchObject({
      media_source: "tiktok",
      confidence_score: "low",
    });
    expect(byInstall["no-clock-referred"]).toMatchObject({ media_source: "reddit" });
    expect(byInstall["no-clock-injected"]).toMatchObject({ media_source: "organic" });
    expect(byInstall["organic-1"]).toMatchObject({ media_source: "organic", matching_type: null });
    expect(byInstall["skipped-1"]).toMatchObject({ media_source: null });
    // A clock ten minutes slow: the first open is exported at its time by the service's clock.
    const slow = byInstall["slow-referred"];
    expect(slow).toMatchObject({ media_source: "snapchat" });
    const slowInstall = await rt.stores.installs.get(APP, "slow-referred");
    expect(Date.parse(slow?.event_time ?? "")).toBeGreaterThan(
      Date.parse(slowInstall?.firstOpenTime ?? "") + 9 * 60_000,
    );
    expect(Date.parse(slow?.event_time ?? "")).toBeLessThanOrEqual(
      Date.parse(slowInstall?.receivedAt ?? ""),
    );
  });
});
