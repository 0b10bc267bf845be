/**
 * The link host's landing page and previews over HTTP against the embedded runtime: an iPhone,
 * an Android phone and a desktop tap links of an Android-only app, an iOS-only app and an app
 * in both stores (registered as either platform), with and without a web URL; each gets its redirect or the landing page (the
 * app's name, the right store buttons, a QR code on a desktop), and each tap is one click with
 * its platform in the touch store. A link with `landing_page` gets the page on every platform,
 * its buttons where its redirects go; a disabled link's page is the tapper's device's; a link
 * too long for a QR code still gets its page. The crawler of each chat in the preview fetchers'
 * table gets the preview tags and no click.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DevicePlatform } from "../../src/domain/touch.ts";
import { withLinkSettings } from "../../src/links/app-settings.ts";
import { PAGE_CSP } from "../../src/links/landing-page.ts";
import { LANDING_STRINGS } from "../../src/links/landing-strings.ts";
import type { LinkAnswer } from "../../src/links/links.ts";
import { clickIdOfReferrer } from "../../src/touches/destination.ts";
import { PREVIEW_FETCHERS } from "../../src/touches/preview-fetchers.ts";
import { PIXEL } from "../support/agents.ts";
import { storeButtons } from "../support/landing-page.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

/** The Play package of the iOS app's Android build. */
const ANDROID_BUILD = "com.example.landing.iosboth.android";

const APPS = {
  androidOnly: { id: "com.example.landing.android", platform: "android", settings: {} },
  iosOnly: {
    id: "com.example.landing.ios",
    platform: "ios",
    settings: { appStoreId: "1111111111" },
  },
  both: {
    id: "com.example.landing.both",
    platform: "android",
    settings: { appStoreId: "2222222222" },
  },
  iosBoth: {
    id: "com.example.landing.iosboth",
    platform: "ios",
    settings: { appStoreId: "3333333333", playPackage: ANDROID_BUILD },
  },
} as const;
type AppKind = keyof typeof APPS;

const DEVICES = {
  android: PIXEL,
  ios: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  other:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
} as const satisfies Record<DevicePlatform, string>;

const WEB = "https://landing.example.com/winter";
const PLAY = "https://play.google.com/store/apps/details";
const appStore = (id: string) => `https://apps.apple.com/app/id${id}`;

/** What a tap must get: a redirect's target, or the page with these store buttons. */
type Expected =
  | { readonly redirect: string }
  | { readonly page: readonly ("google-play" | "app-store")[] };

/** Each app and device, without and with the link's web URL. */
const EXPECTED: Record<AppKind, Record<DevicePlatform, [Expected, Expected]>> = {
  androidOnly: {
    android: [{ redirect: PLAY }, { redirect: PLAY }],
    ios: [{ page: ["google-play"] }, { redirect: WEB }],
    other: [{ page: ["google-play"] }, { redirect: WEB }],
  },
  iosOnly: {
    android: [{ page: ["app-store"] }, { redirect: WEB }],
    ios: [{ redirect: appStore("1111111111") }, { redirect: appStore("1111111111") }],
    other: [{ page: ["app-store"] }, { redirect: WEB }],
  },
  both: {
    android: [{ redirect: PLAY }, { redirect: PLAY }],
    ios: [{ redirect: appStore("2222222222") }, { redirect: appStore("2222222222") }],
    other: [{ page: ["google-play", "app-store"] }, { redirect: WEB }],
  },
  iosBoth: {
    android: [
      { redirect: `${PLAY}?id=${ANDROID_BUILD}&` },
      { redirect: `${PLAY}?id=${ANDROID_BUILD}&` },
    ],
    ios: [{ redirect: appStore("3333333333") }, { redirect: appStore("3333333333") }],
    other: [{ page: ["google-play", "app-store"] }, { redirect: WEB }],
  },
};

describe("the link host's landing page and previews", () => {
  let rt: TestRuntime;
  const serverKeys = {} as Record<AppKind, string>;

  const makeLink = async (kind: AppKind, body: Record<string, unknown>) => {
    const response = await rt.post("/v1/links", body, serverKeys[kind]);
    expect(response.status).toBe(201);
    return (await response.json()) as LinkAnswer;
  };

  const tap = (link: LinkAnswer, agent: string, headers: Record<string, string> = {}) =>
    fetch(`${rt.linkUrl}/${link.deeplink_id}`, {
      redirect: "manual",
      headers: { "user-agent": agent, ...headers },
    });

  const clicksOf = async (kind: AppKind, link: LinkAnswer) => {
    const found = await rt.stores.touches.byIp("127.0.0.1", {
      appId: APPS[kind].id,
      from: new Date(Date.now() - 3_600_000),
      to: new Date(Date.now() + 60_000),
    });
    return found.filter((touch) => touch.deeplinkId === link.deeplink_id);
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    for (const [kind, app] of Object.entries(APPS) as [AppKind, (typeof APPS)[AppKind]][]) {
      serverKeys[kind] = (await rt.createApp(app.id, app.platform)).serverKey;
      await rt.stores.apps.update(app.id, (stored) => withLinkSettings(stored, app.settings));
    }
  });

  afterAll(() => rt?.dispose());

  describe.each(Object.keys(APPS) as AppKind[])("a link of the %s app", (kind) => {
    it.each([
      ["without", 0],
      ["with", 1],
    ] as const)(
      "%s a web URL: each device gets its redirect or the page, and is one click with its platform",
      async (_, withWeb) => {
        const link = await makeLink(kind, {
          media_source: "landing_test",
          campaign_name: "Winter Cup",
          preview_title: "Race in the snow",
          ...(withWeb ? { web_url: WEB } : {}),
        });
        for (const platform of Object.keys(DEVICES) as DevicePlatform[]) {
          const expected = EXPECTED[kind][platform][withWeb];
          const context = `${kind}, ${platform}, ${withWeb ? "web" : "no web"}`;
          const seen = new Set((await clicksOf(kind, link)).map((touch) => touch.clickId));
          const response = await tap(link, DEVICES[platform]);
          const fresh = (await clicksOf(kind, link)).filter((touch) => !seen.has(touch.clickId));
          expect(fresh.length, context).toBe(1);
          const click = fresh[0];
          expect(click?.platform, context).toBe(platform);
          if ("redirect" in expected) {
            expect(response.status, context).toBe(302);
            const location = response.headers.get("location") ?? "";
            expect(location.startsWith(expected.redirect), `${context}: ${location}`).toBe(true);
            continue;
          }
          expect(response.status, context).toBe(200);
          expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
          expect(response.headers.get("content-security-policy")).toBe(PAGE_CSP);
          expect(response.headers.get("cache-control")).toBe("no-store");
          expect(response.headers.get("set-cookie")).toBeNull();
          const html = await response.text();
          expect(html, context).toContain(`<h1 dir="auto">App ${APPS[kind].id}</h1>`);
          expect(html, context).toContain("Race in the snow");
          // The campaign's name is the marketer's label, not the tapper's to read.
          expect(html, context).not.toContain("Winter Cup");
          expect(html, context).toContain(link.url.replaceAll("&", "&amp;"));
          const buttons = storeButtons(html);
          const order = platform === "ios" ? [...expected.page].reverse() : expected.page;
          expect(
            buttons.map((button) => button.store),
            context,
          ).toEqual(order);
          // The Play Store's button carries this tap's click id to the install, as a redirect would.
          const play = buttons.find((button) => button.store === "google-play");
          if (play) {
            expect(clickIdOfReferrer(new URL(play.url).searchParams.get("referrer"))).toBe(
              click?.clickId,
            );
          }
          expect(html.includes('<svg role="img"'), `${context}: the QR code`).toBe(
            platform === "other",
          );
        }
      },
    );
  });

  it("gives a landing_page link's page to every platform, each tap a click", async () => {
    const link = await makeLink("both", { media_source: "landing_only", landing_page: true });
    expect(link.landing_page).toBe(true);
    for (const platform of Object.keys(DEVICES) as DevicePlatform[]) {
      const response = await tap(link, DEVICES[platform]);
      expect(response.status, platform).toBe(200);
      const html = await response.text();
      expect(storeButtons(html).length, platform).toBe(2);
      expect(html.includes("<svg"), platform).toBe(platform === "other");
    }
    expect((await clicksOf("both", link)).map((click) => click.platform).sort()).toEqual([
      "android",
      "ios",
      "other",
    ]);

    // Turned off over the API: redirects again.
    const patched = await rt.fetch(
      `/v1/links/${link.deeplink_id}`,
      { method: "PATCH", body: JSON.stringify({ landing_page: false }) },
      serverKeys.both,
    );
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as LinkAnswer).landing_page).toBe(false);
    const redirected = await tap(link, DEVICES.android);
    expect(redirected.status).toBe(302);
    // Straight to the Play Store, with this tap's click id.
    const store = new URL(redirected.headers.get("location") ?? "");
    expect(`${store.origin}${store.pathname}`).toBe(PLAY);
    expect(clickIdOfReferrer(store.searchParams.get("referrer"))).toMatch(/^[A-Za-z0-9_-]{16,}$/);
  });

  it("sends a disabled link without a web URL to the page of the tapper's device, counting nothing", async () => {
    const link = await makeLink("both", { media_source: "landing_paused" });
    const disabled = await rt.fetch(
      `/v1/links/${link.deeplink_id}`,
      { method: "PATCH", body: JSON.stringify({ disabled: true }) },
      serverKeys.both,
    );
    expect(disabled.status).toBe(200);
    for (const platform of Object.keys(DEVICES) as DevicePlatform[]) {
      const response = await tap(link, DEVICES[platform]);
      expect(response.status, platform).toBe(200);
      const html = await response.text();
      const buttons = storeButtons(html);
      expect(
        buttons.map((button) => button.store),
        platform,
      ).toEqual(platform === "ios" ? ["app-store", "google-play"] : ["google-play", "app-store"]);
      // No click: no click id in the store's referrer.
      const play = buttons.find((button) => button.store === "google-play");
      expect(new URL(play?.url ?? "").searchParams.get("referrer"), platform).toBeNull();
      expect(html.includes("<svg"), `${platform}: the QR code`).toBe(platform === "other");
    }
    expect(await clicksOf("both", link)).toHaveLength(0);
  });

  it("opens the installed app from a landing_page link's page: an intent on Android, Safari's banner on an iPhone", async () => {
    const opened = (html: string) =>
      /<a class="button open" data-open="android" href="([^"]+)"/
        .exec(html)?.[1]
        ?.replaceAll("&amp;", "&") ?? null;
    for (const kind of ["both", "iosBoth"] as const) {
      const link = await makeLink(kind, { media_source: "landing_open", landing_page: true });
      const tapped = `${link.url}?sub1=reel`;
      const seen = new Set((await clicksOf(kind, link)).map((touch) => touch.clickId));
      const page = await fetch(tapped, { headers: { "user-agent": DEVICES.android } });
      const html = await page.text();
      const click = (await clicksOf(kind, link)).find((touch) => !seen.has(touch.clickId));
      const opener = opened(html) ?? "";
      const packageName = kind === "both" ? APPS.both.id : ANDROID_BUILD;
      const { host, pathname } = new URL(link.url);
      expect(
        opener.startsWith(
          `intent://${host}${pathname}?sub1=reel#Intent;scheme=http;package=${packageName};`,
        ),
        opener,
      ).toBe(true);
      // Not installed: the Play page of the Play button, whose referrer names this tap's click.
      const fallback = decodeURIComponent(
        /S\.browser_fallback_url=([^;]*);end$/.exec(opener)?.[1] ?? "",
      );
      expect(fallback).toBe(
        storeButtons(html).find((button) => button.store === "google-play")?.url,
      );
      expect(clickIdOfReferrer(new URL(fallback).searchParams.get("referrer"))).toBe(
        click?.clickId,
      );

      const fromIphone = await (
        await fetch(tapped, { headers: { "user-agent": DEVICES.ios } })
      ).text();
      expect(opened(fromIphone)).toBeNull();
      const appStoreId = APPS[kind].settings.appStoreId;
      expect(fromIphone).toContain(
        `<meta name="apple-itunes-app" content="app-id=${appStoreId}, app-argument=${tapped}">`,
      );
    }
    // An app with no Android build has no Open button; a disabled link's page none either.
    const iosOnly = await makeLink("iosOnly", { media_source: "landing_open", landing_page: true });
    expect(opened(await (await tap(iosOnly, DEVICES.android)).text())).toBeNull();
    const paused = await makeLink("both", { media_source: "landing_open", landing_page: true });
    await rt.fetch(
      `/v1/links/${paused.deeplink_id}`,
      { method: "PATCH", body: JSON.stringify({ disabled: true }) },
      serverKeys.both,
    );
    expect(opened(await (await tap(paused, DEVICES.android)).text())).toBeNull();
  });

  it("sends each button of a landing_page link where its redirect would go", async () => {
    const own = {
      android_url:
        "https://play.google.com/store/apps/details?id=com.example.landing.both&listing=winter",
      ios_url: "https://apps.apple.com/app/id2222222222?ppid=6c0fb2d5",
    };
    const redirected = await makeLink("both", { media_source: "landing_own", ...own });
    const paged = await makeLink("both", {
      media_source: "landing_own",
      landing_page: true,
      ...own,
    });
    // The same page, apart from the click id the Play Store's referrer carries.
    const withoutReferrer = (url: string) => {
      const parsed = new URL(url);
      parsed.searchParams.delete("referrer");
      return parsed.href;
    };
    for (const platform of ["android", "ios"] as const) {
      const location = (await tap(redirected, DEVICES[platform])).headers.get("location") ?? "";
      const html = await (await tap(paged, DEVICES[platform])).text();
      const button = storeButtons(html)[0];
      expect(button?.store, platform).toBe(platform === "ios" ? "app-store" : "google-play");
      expect(withoutReferrer(button?.url ?? ""), platform).toBe(withoutReferrer(location));
      expect(button?.url.startsWith(platform === "ios" ? own.ios_url : own.android_url)).toBe(true);
    }
  });

  it("answers a desktop's tap of a link too long for a QR code with the page, one click", async () => {
    const link = await makeLink("androidOnly", {
      media_source: "landing_long",
      deep_link_path: `/${"x".repeat(900)}`,
      params: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`p${i}`, "a".repeat(480)])),
    });
    expect(link.url.length).toBeGreaterThan(3000);
    const response = await tap(link, DEVICES.other);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<svg role="img"');
    expect(await clicksOf("androidOnly", link)).toHaveLength(1);
  });

  it("speaks the app's language the browser asks for", async () => {
    const speaking = (languages: string[]) =>
      rt.stores.apps.update(APPS.androidOnly.id, (app) => withLinkSettings(app, { languages }));
    await speaking(["de", "fr"]);
    const link = await makeLink("androidOnly", { media_source: "landing_words" });
    const french = await (
      await tap(link, DEVICES.other, { "accept-language": "fr-FR,fr;q=0.9" })
    ).text();
    expect(french).toContain('<html lang="fr"');
    expect(french).toContain(LANDING_STRINGS.fr.googlePlay);
    const other = await (await tap(link, DEVICES.ios, { "accept-language": "en-US" })).text();
    expect(other).toContain('<html lang="de"');
    expect(other).toContain(LANDING_STRINGS.de.googlePlay);
    await speaking([]);
  });

  describe("the crawlers that unfurl links", () => {
    let link: LinkAnswer;
    beforeAll(async () => {
      link = await makeLink("both", {
        media_source: "shared_in_chats",
        preview_title: `Winter Cup: "level 7" & more`,
        preview_description: "Race your friends through the snowy castle.",
        preview_image_url: "https://cdn.example.com/cards/winter.png",
      });
    });

    it.each(PREVIEW_FETCHERS.map((fetcher) => [fetcher.name, fetcher.example] as const))(
      "gives %s the preview's tags and counts no click",
      async (_, agent) => {
        const response = await tap(link, agent);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-security-policy")).toBe(PAGE_CSP);
        const html = await response.text();
        for (const tag of [
          `<meta property="og:title" content="Winter Cup: &quot;level 7&quot; &amp; more">`,
          `<meta property="og:description" content="Race your friends through the snowy castle.">`,
          `<meta property="og:image" content="https://cdn.example.com/cards/winter.png">`,
          `<meta property="og:url" content="${link.url}">`,
          `<meta name="twitter:card" content="summary_large_image">`,
          `<meta name="twitter:title" content="Winter Cup: &quot;level 7&quot; &amp; more">`,
        ]) {
          expect(html).toContain(tag);
        }
        expect(await clicksOf("both", link)).toHaveLength(0);
      },
    );

    it("falls back to the app's preview, else its name, and takes a change over the API", async () => {
      const plain = await makeLink("iosOnly", { media_source: "plain_share" });
      const slack = PREVIEW_FETCHERS.find((fetcher) => fetcher.name === "Slack")?.example ?? "";
      expect(await (await tap(plain, slack)).text()).toContain(
        `<meta property="og:title" content="App ${APPS.iosOnly.id}">`,
      );
      await rt.stores.apps.update(APPS.iosOnly.id, (app) =>
        withLinkSettings(app, { previewTitle: "The iOS game" }),
      );
      expect(await (await tap(plain, slack)).text()).toContain(
        '<meta property="og:title" content="The iOS game">',
      );
      const changed = await rt.fetch(
        `/v1/links/${plain.deeplink_id}`,
        { method: "PATCH", body: JSON.stringify({ preview_title: "Its own" }) },
        serverKeys.iosOnly,
      );
      expect(changed.status).toBe(200);
      expect(await (await tap(plain, slack)).text()).toContain(
        '<meta property="og:title" content="Its own">',
      );
      const refused = await rt.fetch(
        `/v1/links/${plain.deeplink_id}`,
        { method: "PATCH", body: JSON.stringify({ preview_image_url: "http://a.example/x.png" }) },
        serverKeys.iosOnly,
      );
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain("preview_image_url: must be an https URL");
    });
  });
});
