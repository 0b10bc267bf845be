/**
 * Links and the link host over HTTP: making and managing links through the API, a tap on each
 * platform redirected and recorded (in the touch store and the lake), bots and disabled links
 * redirected but not counted, unknown ids and hostile requests answered with a plain 404, and
 * the `.well-known` files built from the apps' settings. The landing page and the previews:
 * landing-pages.test.ts; Chrome's client hints: client-hints.test.ts.
 */
import { get } from "node:http";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markAdminChange } from "../../src/embedded/admin-changes.ts";
import { dataPaths } from "../../src/embedded/data-dir.ts";
import { withLinkSettings } from "../../src/links/app-settings.ts";
import type { LinkAnswer } from "../../src/links/links.ts";
import { clickIdOfReferrer } from "../../src/touches/destination.ts";
import { PIXEL } from "../support/agents.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const ANDROID_APP = "com.example.linked";
const IOS_APP = "com.example.linked.ios";
const FINGERPRINT =
  "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5";

const AGENTS = {
  android: PIXEL,
  ios: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  desktop:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  facebook: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  twitter: "Twitterbot/1.0",
  google:
    "Mozilla/5.0 (compatible; Google-PageRenderer; +https://developers.google.com/+/web/snippet/)",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
};

describe("links and the link host", () => {
  let rt: TestRuntime;
  let android: { sdkKey: string; serverKey: string };
  let ios: { sdkKey: string; serverKey: string };

  const makeLink = async (body: Record<string, unknown>, key = android.serverKey) => {
    const response = await rt.post("/v1/links", body, key);
    expect(response.status).toBe(201);
    return (await response.json()) as LinkAnswer;
  };

  /** A tap on the link host, as a phone (or a bot) makes it, without following the redirect. */
  const tap = (path: string, agent: string, headers: Record<string, string> = {}) =>
    fetch(`${rt.linkUrl}${path}`, {
      redirect: "manual",
      headers: { "user-agent": agent, ...headers },
    });

  const touchesOfLink = async (deeplinkId: string) => {
    const since = new Date(Date.now() - 3_600_000);
    const found = await rt.stores.touches.byIp("127.0.0.1", {
      appId: ANDROID_APP,
      from: since,
      to: new Date(Date.now() + 60_000),
    });
    return found.filter((touch) => touch.deeplinkId === deeplinkId);
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    android = await rt.createApp(ANDROID_APP, "android");
    ios = await rt.createApp(IOS_APP, "ios");
    await rt.stores.apps.update(ANDROID_APP, (app) =>
      withLinkSettings(app, {
        webUrl: "https://game.example.com/",
        androidSha256Fingerprints: [FINGERPRINT],
      }),
    );
    await rt.stores.apps.update(IOS_APP, (app) =>
      withLinkSettings(app, { appStoreId: "1234567890", appleTeamId: "9JA89QQLNQ" }),
    );
  });

  afterAll(() => rt?.dispose());

  it("makes a link whose URL carries its deep link path and parameters", async () => {
    const link = await makeLink({
      media_source: "facebook_ads",
      campaign_id: "123",
      campaign_name: "Winter",
      deep_link_path: "/levels/7",
      params: { promo: "WINTER" },
    });
    expect(link.deeplink_id).toMatch(/^[0-9A-Za-z]{11}$/);
    const url = new URL(link.url);
    expect(`${url.origin}`).toBe(rt.linkUrl);
    expect(url.pathname).toBe(`/${link.deeplink_id}`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      deep_link_path: "/levels/7",
      promo: "WINTER",
    });
    expect(link).toMatchObject({
      media_source: "facebook_ads",
      campaign_name: "Winter",
      disabled: false,
      android_url: null,
    });

    const read = await rt.get(`/v1/links/${link.deeplink_id}`, android.serverKey);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(link);
  });

  it("refuses a bad link body with the field named, and keys without the links scope", async () => {
    const bad = await rt.post(
      "/v1/links",
      { campaign_id: "1", params: { deep_link_path: "/x" } },
      android.serverKey,
    );
    expect(bad.status).toBe(422);
    const body = (await bad.json()) as { error: string; detail: string };
    expect(body.error).toBe("Unprocessable Entity");
    expect(body.detail).toContain("media_source");
    expect(body.detail).toContain("deep_link_path");
    expect((await rt.post("/v1/links", { media_source: "x" }, android.sdkKey)).status).toBe(401);
    expect((await rt.post("/v1/links", "{nope", android.serverKey)).status).toBe(400);
  });

  it("sends Android to the Play Store with the click id in the referrer, and records the click", async () => {
    const link = await makeLink({
      media_source: "facebook_ads",
      campaign_name: "Winter",
      deep_link_path: "/levels/7",
      params: { promo: "WINTER" },
    });
    const response = await tap(`/${link.deeplink_id}?sub1=abc&fbclid=xyz`, AGENTS.android, {
      "accept-language": "de-CH,de;q=0.9",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.origin + location.pathname).toBe("https://play.google.com/store/apps/details");
    expect(location.searchParams.get("id")).toBe(ANDROID_APP);
    const clickId = clickIdOfReferrer(location.searchParams.get("referrer"));
    expect(clickId).toMatch(/^[0-9A-Za-z]{22}$/);

    const stored = await rt.stores.touches.get(clickId ?? "");
    expect(stored).toMatchObject({
      appId: ANDROID_APP,
      deeplinkId: link.deeplink_id,
      touchType: "click",
      source: "link",
      mediaSource: "facebook_ads",
      campaignName: "Winter",
      platform: "android",
      osVersion: "14",
      deviceModel: "Pixel 8",
      language: "de-CH",
      ip: "127.0.0.1",
      params: { promo: "WINTER", deep_link_path: "/levels/7" },
      urlParams: { sub1: "abc", fbclid: "xyz" },
    });

    await rt.flush();
    const duckdb = await DuckDBInstance.create(":memory:");
    const connection = await duckdb.connect();
    const lake = dataPaths(rt.config.dataDir).lake;
    const reader = await connection.runAndReadAll(
      `SELECT click_id, ip_truncated, platform, params, app_id FROM read_parquet('${join(lake, "touches")}/*/*/*.parquet', hive_partitioning = true) WHERE click_id = '${clickId}'`,
    );
    const rows = reader.getRowObjectsJson();
    connection.closeSync();
    duckdb.closeSync();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      ip_truncated: "127.0.0.0",
      platform: "android",
      app_id: ANDROID_APP,
    });
    expect(JSON.parse(String(rows[0]?.params))).toEqual({
      promo: "WINTER",
      deep_link_path: "/levels/7",
      sub1: "abc",
      fbclid: "xyz",
    });
  });

  it("sends iOS to the App Store and anything else to the web", async () => {
    const iosLink = await makeLink({ media_source: "tiktok" }, ios.serverKey);
    const fromIphone = await tap(`/${iosLink.deeplink_id}`, AGENTS.ios);
    expect(fromIphone.status).toBe(302);
    expect(fromIphone.headers.get("location")).toBe("https://apps.apple.com/app/id1234567890");

    const link = await makeLink({ media_source: "web_campaign" });
    const fromDesktop = await tap(`/${link.deeplink_id}`, AGENTS.desktop);
    expect(fromDesktop.headers.get("location")).toBe("https://game.example.com/");
    const own = await makeLink({ media_source: "x", web_url: "https://game.example.com/winter" });
    expect((await tap(`/${own.deeplink_id}`, AGENTS.desktop)).headers.get("location")).toBe(
      "https://game.example.com/winter",
    );
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(1);
  });

  it("sends a shared link's later taps where its destinations are changed to, and back to the store once cleared", async () => {
    const link = await makeLink({ media_source: "moved" });
    const patch = async (change: Record<string, unknown>) => {
      const response = await rt.fetch(
        `/v1/links/${link.deeplink_id}`,
        {
          method: "PATCH",
          body: JSON.stringify(change),
          headers: { "content-type": "application/json" },
        },
        android.serverKey,
      );
      expect(response.status).toBe(200);
      return (await response.json()) as LinkAnswer;
    };
    const moved = await patch({
      android_url: "https://shop.example.com/android",
      web_url: "https://shop.example.com/winter",
    });
    expect(moved).toMatchObject({
      android_url: "https://shop.example.com/android",
      ios_url: null,
      web_url: "https://shop.example.com/winter",
      // The link's own URL, already shared, stays as it is.
      url: link.url,
    });
    expect((await tap(`/${link.deeplink_id}`, AGENTS.android)).headers.get("location")).toBe(
      "https://shop.example.com/android",
    );
    expect((await tap(`/${link.deeplink_id}`, AGENTS.desktop)).headers.get("location")).toBe(
      "https://shop.example.com/winter",
    );
    // Cleared, Android goes to its store page again; the web URL left alone stays.
    expect(await patch({ android_url: null })).toMatchObject({
      android_url: null,
      web_url: "https://shop.example.com/winter",
    });
    expect((await tap(`/${link.deeplink_id}`, AGENTS.android)).headers.get("location")).toMatch(
      /^https:\/\/play\.google\.com\/store\/apps\/details\?id=/,
    );
  });

  it("redirects taps on a link whose destinations hold non-ASCII characters, encoded as browsers do", async () => {
    const link = await makeLink({
      media_source: "unicode",
      web_url: "https://b.example/ü❄?q=ä#é",
      ios_url: "https://bücher.example/straße",
      android_url: "https://b.example/ü",
    });
    // Stored as given: the link reads back as it was made.
    expect(link.web_url).toBe("https://b.example/ü❄?q=ä#é");
    const fromDesktop = await tap(`/${link.deeplink_id}`, AGENTS.desktop);
    expect(fromDesktop.status).toBe(302);
    expect(fromDesktop.headers.get("location")).toBe(
      "https://b.example/%C3%BC%E2%9D%84?q=%C3%A4#%C3%A9",
    );
    const fromIphone = await tap(`/${link.deeplink_id}`, AGENTS.ios);
    expect(fromIphone.headers.get("location")).toBe("https://xn--bcher-kva.example/stra%C3%9Fe");
    const fromAndroid = await tap(`/${link.deeplink_id}`, AGENTS.android);
    expect(fromAndroid.headers.get("location")).toBe("https://b.example/%C3%BC");
  });

  it("sends a desktop to the web with the tapped URL's parameters the web URL has none of", async () => {
    const link = await makeLink({
      media_source: "forwarded",
      web_url: "https://game.example.com/land?utm_source=site",
    });
    const response = await tap(
      `/${link.deeplink_id}?utm_source=news&utm_campaign=spring&gclid=G1`,
      AGENTS.desktop,
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(
      "https://game.example.com/land?utm_source=site&utm_campaign=spring&gclid=G1",
    );
  });

  it("sends the web destination as written for a link made with forward_params false, until changed", async () => {
    const link = await makeLink({
      media_source: "unforwarded",
      web_url: "https://partner.example.com/offer?ref=ours",
      forward_params: false,
    });
    expect(link.forward_params).toBe(false);
    const tapped = `/${link.deeplink_id}?utm_campaign=spring&gclid=G2`;
    const response = await tap(tapped, AGENTS.desktop);
    expect(response.headers.get("location")).toBe("https://partner.example.com/offer?ref=ours");
    // The click still keeps what the tapped URL said.
    const [click] = await touchesOfLink(link.deeplink_id);
    expect(click?.urlParams).toMatchObject({ utm_campaign: "spring", gclid: "G2" });

    const patch = (change: Record<string, unknown>) =>
      rt.fetch(
        `/v1/links/${link.deeplink_id}`,
        {
          method: "PATCH",
          body: JSON.stringify(change),
          headers: { "content-type": "application/json" },
        },
        android.serverKey,
      );
    // Disabled, it sends every tap to the web, as written too.
    expect((await patch({ disabled: true })).status).toBe(200);
    expect((await tap(tapped, AGENTS.android)).headers.get("location")).toBe(
      "https://partner.example.com/offer?ref=ours",
    );
    // Its landing page's web button, as written too.
    expect((await patch({ disabled: false, landing_page: true })).status).toBe(200);
    const page = await tap(tapped, AGENTS.android);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(
      '<a href="https://partner.example.com/offer?ref=ours" data-store="web">',
    );

    const changed = await patch({ landing_page: false, forward_params: true });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as LinkAnswer).forward_params).toBe(true);
    expect((await tap(tapped, AGENTS.desktop)).headers.get("location")).toBe(
      "https://partner.example.com/offer?ref=ours&utm_campaign=spring&gclid=G2",
    );
  });

  it("redirects bots without counting them, and gives link-preview fetchers the preview", async () => {
    const link = await makeLink({ media_source: "shared" });
    for (const agent of [AGENTS.googlebot, ""]) {
      const response = await tap(`/${link.deeplink_id}`, agent);
      expect(response.status).toBe(302);
      // Where a person on a computer goes: the app's site.
      expect(response.headers.get("location"), agent).toBe("https://game.example.com/");
    }
    // A crawler as a phone goes where the phone would, with no click id to credit.
    const smartphoneBot =
      "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    const crawled = await tap(`/${link.deeplink_id}`, smartphoneBot);
    expect(crawled.status).toBe(302);
    const store = new URL(crawled.headers.get("location") ?? "");
    expect(store.origin + store.pathname).toBe("https://play.google.com/store/apps/details");
    expect(store.searchParams.get("id")).toBe("com.example.linked");
    expect(store.href).not.toContain("service_click_id");
    // Chats' crawlers unfurl the link's card (test/integration/landing-pages.test.ts).
    for (const agent of [AGENTS.slack, AGENTS.facebook, AGENTS.twitter, AGENTS.google]) {
      const response = await tap(`/${link.deeplink_id}`, agent);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<meta property="og:title"');
    }
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(0);
    await tap(`/${link.deeplink_id}`, AGENTS.android);
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(1);
  });

  it("answers a HEAD as its GET would, headers without a body, and records no click", async () => {
    const head = (path: string, agent: string) =>
      fetch(`${rt.linkUrl}${path}`, {
        method: "HEAD",
        redirect: "manual",
        headers: { "user-agent": agent },
      });
    const link = await makeLink({ media_source: "checked", campaign_name: "Spring" });
    const checked = await head(`/${link.deeplink_id}`, AGENTS.android);
    expect(checked.status).toBe(302);
    const location = new URL(checked.headers.get("location") ?? "");
    expect(location.origin + location.pathname).toBe("https://play.google.com/store/apps/details");
    expect(location.searchParams.get("id")).toBe(ANDROID_APP);
    // No click was made, so the referrer carries no click id for an install to bring back.
    expect(clickIdOfReferrer(location.searchParams.get("referrer"))).toBeNull();
    expect(await checked.text()).toBe("");

    const landing = await makeLink({ media_source: "checked", landing_page: true });
    const page = await head(`/${landing.deeplink_id}`, AGENTS.android);
    const tapped = await tap(`/${landing.deeplink_id}`, AGENTS.android);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe("");
    for (const name of ["content-type", "content-security-policy", "cache-control", "vary"]) {
      expect(page.headers.get(name)).toBe(tapped.headers.get(name));
    }
    expect(await tapped.text()).toContain("<!doctype html>");

    expect((await head("/NoSuchLink0", AGENTS.android)).status).toBe(404);
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(0);
    // The landing page's GET is the one click of that link.
    expect(await touchesOfLink(landing.deeplink_id)).toHaveLength(1);
    await tap(`/${link.deeplink_id}`, AGENTS.android);
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(1);
  });

  it("sends a disabled link's taps to the web and records none; enabling it counts again", async () => {
    const link = await makeLink({ media_source: "paused" });
    const disable = await rt.fetch(
      `/v1/links/${link.deeplink_id}`,
      {
        method: "PATCH",
        body: JSON.stringify({ disabled: true }),
        headers: { "content-type": "application/json" },
      },
      android.serverKey,
    );
    expect(disable.status).toBe(200);
    expect(((await disable.json()) as LinkAnswer).disabled).toBe(true);
    const response = await tap(`/${link.deeplink_id}`, AGENTS.android);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("https://game.example.com/");
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(0);

    const bad = await rt.fetch(
      `/v1/links/${link.deeplink_id}`,
      { method: "PATCH", body: JSON.stringify({ disabled: "yes" }) },
      android.serverKey,
    );
    expect(bad.status).toBe(422);
    const other = await rt.fetch(
      `/v1/links/${link.deeplink_id}`,
      { method: "PATCH", body: JSON.stringify({ disabled: false }) },
      ios.serverKey,
    );
    expect(other.status).toBe(404);

    await rt.fetch(
      `/v1/links/${link.deeplink_id}`,
      { method: "PATCH", body: JSON.stringify({ disabled: false }) },
      android.serverKey,
    );
    await tap(`/${link.deeplink_id}`, AGENTS.android);
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(1);
  });

  it("counts no click of a page that embeds the link, and sends it on without a click id", async () => {
    const link = await makeLink({ media_source: "embedded" });
    /** A browser's request: Node's fetch would send its own Sec-Fetch-Mode beside these. */
    const browse = (headers: Record<string, string>) =>
      new Promise<{ status: number; location: string }>((resolve, reject) => {
        get(
          `${rt.linkUrl}/${link.deeplink_id}`,
          { headers: { "user-agent": AGENTS.android, ...headers } },
          (response) => {
            response.resume();
            resolve({
              status: response.statusCode ?? 0,
              location: response.headers.location ?? "",
            });
          },
        ).on("error", reject);
      });
    for (const embed of [
      { "sec-fetch-dest": "image", "sec-fetch-mode": "no-cors", "sec-fetch-site": "cross-site" },
      { "sec-fetch-dest": "iframe", "sec-fetch-mode": "navigate", "sec-fetch-site": "cross-site" },
    ]) {
      const response = await browse(embed);
      expect(response.status).toBe(302);
      expect(response.location).toMatch(/^https:\/\/play\.google\.com\//);
      expect(response.location).not.toContain("service_click_id");
    }
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(0);
    const tapped = await browse({
      "sec-fetch-dest": "document",
      "sec-fetch-mode": "navigate",
      "sec-fetch-user": "?1",
    });
    expect(tapped.location).toContain("service_click_id");
    expect(await touchesOfLink(link.deeplink_id)).toHaveLength(1);
  });

  it("answers unknown ids, other paths and hostile requests with a plain page, never a 5xx", async () => {
    const paths = [
      "/AAAAAAAAAAA",
      "/short",
      "/",
      "/a/b/c",
      "/%00%ff",
      "/%E0%A4%A",
      "/..%2f..%2fetc%2fpasswd",
      `/${"x".repeat(5_000)}`,
      "/AAAAAAAAAAA?%zz=%zz&a=%00",
      `/AAAAAAAAAAA?${"q=1&".repeat(2_000)}`,
      "/.well-known/other",
      "//evil.example.com/",
      // Targets a URL would read as a host, and cannot.
      "//",
      "//[",
      "//%zz/AAAAAAAAAAA",
      "//a:99999/",
    ];
    for (const path of paths) {
      const response = await tap(path, AGENTS.android);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toContain("text/html");
      expect(await response.text(), path).toContain("Link not found");
    }
    const link = await makeLink({ media_source: "hostile" });
    const hostile = await tap(
      `/${link.deeplink_id}?%zz=%zz&a=%00&${"k".repeat(100)}=1`,
      AGENTS.android,
    );
    expect(hostile.status).toBe(302);
    const post = await fetch(`${rt.linkUrl}/${link.deeplink_id}`, { method: "POST", body: "x" });
    expect(post.status).toBe(404);
    // Headers over the listener's 16 KiB (a browser's cookies for the host): a page, not JSON.
    const crowded = await fetch(`${rt.linkUrl}/${link.deeplink_id}`, {
      redirect: "manual",
      headers: { "user-agent": AGENTS.android, cookie: `c=${"a".repeat(20_000)}` },
    });
    expect(crowded.status).toBe(431);
    expect(crowded.headers.get("content-type")).toContain("text/html");
    expect(crowded.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await crowded.text()).toContain("This link could not be opened");
  });

  it("serves the .well-known files built from the apps' settings", async () => {
    const aasa = await fetch(`${rt.linkUrl}/.well-known/apple-app-site-association`);
    expect(aasa.status).toBe(200);
    expect(aasa.headers.get("content-type")).toBe("application/json");
    expect(await aasa.json()).toEqual({
      applinks: {
        apps: [],
        details: [
          {
            appIDs: [`9JA89QQLNQ.${IOS_APP}`],
            components: [{ "/": "/*", comment: "Every link of this host." }],
            appID: `9JA89QQLNQ.${IOS_APP}`,
            paths: ["*"],
          },
        ],
      },
    });
    const assetLinks = await fetch(`${rt.linkUrl}/.well-known/assetlinks.json`);
    expect(assetLinks.status).toBe(200);
    expect(await assetLinks.json()).toEqual([
      {
        relation: ["delegate_permission/common.handle_all_urls"],
        target: {
          namespace: "android_app",
          package_name: ANDROID_APP,
          sha256_cert_fingerprints: [FINGERPRINT],
        },
      },
    ]);

    // The CLI changes a setting and marks the data folder: the very next request shows it.
    await rt.stores.apps.update(IOS_APP, (app) =>
      withLinkSettings(app, { appleTeamId: "ABCDE12345" }),
    );
    await markAdminChange(rt.config.dataDir);
    const changed = await fetch(`${rt.linkUrl}/.well-known/apple-app-site-association`);
    expect(JSON.stringify(await changed.json())).toContain(`ABCDE12345.${IOS_APP}`);
  });

  it("lists an Android app's iOS build by its bundle id: one build with the iOS app of that id, none beside another", async () => {
    const details = async () =>
      (
        (await (await fetch(`${rt.linkUrl}/.well-known/apple-app-site-association`)).json()) as {
          applinks: { details: { appID: string }[] };
        }
      ).applinks.details.map((detail) => detail.appID);
    const setBundleId = async (iosBundleId: string) => {
      await rt.stores.apps.update(ANDROID_APP, (app) =>
        withLinkSettings(app, { iosBundleId, appleTeamId: "ABCDE12345" }),
      );
      await markAdminChange(rt.config.dataDir);
    };
    // The Android app's iOS build is the iOS app: the host still claims for it, once.
    await setBundleId(IOS_APP);
    expect(await details()).toEqual([`ABCDE12345.${IOS_APP}`]);
    // Another iOS build on the host: either would open for the other's links, so neither.
    await setBundleId("com.example.linked.other");
    expect(await details()).toEqual([]);
    const assetLinks = await (await fetch(`${rt.linkUrl}/.well-known/assetlinks.json`)).json();
    expect(assetLinks).toHaveLength(1);
    await setBundleId("");
    expect(await details()).toEqual([`ABCDE12345.${IOS_APP}`]);
  });
});
