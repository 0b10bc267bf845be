import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { App } from "../ports/apps.ts";
import { storesOf } from "../touches/destination.ts";
import {
  escapeHtml,
  PAGE_CSP,
  PAGE_HEADERS,
  previewOf,
  renderLandingPage,
  renderPreviewPage,
} from "./landing-page.ts";
import { LANDING_STRINGS, landingLanguage } from "./landing-strings.ts";
import { testLink } from "./link.test-support.ts";

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>&'`;

const app: App = {
  appId: "com.example.game",
  name: "Example Game",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
  links: { appStoreId: "1234567890" },
};
const link = testLink({ campaignName: "Winter", url: "https://go.example.com/Kx3v9QpZ2aQ" });

const page = (overrides: Partial<Parameters<typeof renderLandingPage>[0]> = {}) =>
  renderLandingPage({
    app,
    link,
    platform: "other",
    stores: storesOf("other", app, link, "C1ick1d"),
    webUrl: null,
    acceptLanguage: null,
    ...overrides,
  });

/** The text of every inline `<style>` of a page. */
const styles = (html: string) => [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);

describe("the landing page", () => {
  it("names the app and the link, with a button to each store and a QR code on a desktop", async () => {
    const html = await page();
    expect(html).toContain('<h1 dir="auto">Example Game</h1>');
    // The campaign's name is the marketer's label, not the tapper's to read (the Play Store's
    // referrer carries it, as its utm_campaign, to the install).
    expect(html).not.toMatch(/>[^<]*Winter/);
    expect(html).toContain("https://go.example.com/Kx3v9QpZ2aQ");
    expect(html).toMatch(
      /<a class="button" data-store="google-play" href="https:\/\/play\.google\.com\/store\/apps\/details\?id=com\.example\.game&amp;referrer=service_click_id%3DC1ick1d/,
    );
    expect(html).toContain(
      '<a class="button" data-store="app-store" href="https://apps.apple.com/app/id1234567890">',
    );
    expect(html).toMatch(/<svg role="img" aria-label="QR code of this link" [^>]*viewBox=/);
  });

  it("shows the link's preview title and description, else the app's, never its campaign", async () => {
    const described = testLink({
      url: link.url,
      campaignName: "EU lookalikes, churned payers",
      previewTitle: "Race in the snow",
      previewDescription: "Ten new tracks this winter",
    });
    const html = await page({ link: described });
    expect(html).toContain('<p dir="auto">Race in the snow</p>');
    expect(html).toContain('<p class="muted" dir="auto">Ten new tracks this winter</p>');
    expect(html).not.toMatch(/>[^<]*lookalikes/);
    const defaults = { ...app, links: { ...app.links, previewDescription: "The app's own words" } };
    const fromApp = await page({ app: defaults });
    expect(fromApp).toContain('<p class="muted" dir="auto">The app&#39;s own words</p>');
    // The title falls back to the app's name, which the heading already says.
    expect(fromApp).not.toContain('<p dir="auto">Example Game</p>');
  });

  it("has no QR code on a phone, and says when no store has the app for it", async () => {
    const android = { ...app, links: {} };
    const fromIphone = await page({
      app: android,
      platform: "ios",
      stores: storesOf("ios", android, link, "c"),
    });
    expect(fromIphone).not.toContain("<svg");
    expect(fromIphone).toContain("<bdi>Example Game</bdi> is not available for this device yet.");
    const fromAndroid = await page({ platform: "android" });
    expect(fromAndroid).not.toContain("not available");
  });

  it("names a link's own page in no store by its platform", async () => {
    const elsewhere = testLink({
      url: link.url,
      androidUrl: "https://galaxystore.samsung.com/detail/com.example.game",
    });
    const html = await page({ link: elsewhere, stores: storesOf("other", app, elsewhere, "c") });
    expect(html).toContain(
      `<a class="button" data-store="android" href="https://galaxystore.samsung.com/detail/com.example.game">${LANDING_STRINGS.en.forAndroid}</a>`,
    );
    expect(html).not.toContain(LANDING_STRINGS.en.googlePlay);
    // The same for iOS, and each store's own name on its own button.
    const both = testLink({ url: link.url, iosUrl: "https://testflight.example/join/x" });
    const ios = await page({ link: both, stores: storesOf("other", app, both, "c") });
    expect(ios).toContain(
      `<a class="button" data-store="ios" href="https://testflight.example/join/x">${LANDING_STRINGS.en.forIos}</a>`,
    );
    const stores = await page();
    expect(stores).toContain(`${LANDING_STRINGS.en.appStore}</a>`);
    expect(stores).toContain(`${LANDING_STRINGS.en.googlePlay}</a>`);
  });

  it("opens the installed app from an Android phone, above the store buttons, in the page's language", async () => {
    const opener =
      "intent://go.example.com/Kx3v9QpZ2aQ?a=1&b=2#Intent;scheme=https;package=com.example.game;end";
    const html = await page({
      platform: "android",
      stores: storesOf("android", app, link, "c"),
      androidOpener: opener,
    });
    const button = `<a class="button open" data-open="android" href="${escapeHtml(opener)}">Open <bdi>Example Game</bdi></a>`;
    expect(html).toContain(button);
    expect(html.indexOf(button)).toBeLessThan(html.indexOf('data-store="google-play"'));
    const german = await page({
      app: { ...app, links: { languages: ["de"] } },
      platform: "android",
      androidOpener: opener,
    });
    expect(german).toContain("><bdi>Example Game</bdi> öffnen</a>");
    expect(await page({ platform: "android" })).not.toContain("data-open");
  });

  it("has Safari's Smart App Banner on an iPhone, giving the app the tapped link, for an app with an App Store id", async () => {
    const html = await page({
      platform: "ios",
      stores: storesOf("ios", app, link, "c"),
      openUrl: 'https://go.example.com/Kx3v9QpZ2aQ?tags=a,b&x="y"',
    });
    expect(html).toContain(
      '<meta name="apple-itunes-app" content="app-id=1234567890, app-argument=https://go.example.com/Kx3v9QpZ2aQ?tags=a%2Cb&amp;x=&quot;y&quot;">',
    );
    expect(await page({ platform: "ios", app: { ...app, links: {} } })).not.toContain(
      "apple-itunes-app",
    );
    expect(await page({ platform: "android" })).not.toContain("apple-itunes-app");
    const disabled = testLink({ url: link.url, disabled: true });
    expect(await page({ platform: "ios", link: disabled })).not.toContain("apple-itunes-app");
    expect(await page()).not.toContain("apple-itunes-app");
  });

  it("has no heading over store buttons when no store has the app", async () => {
    const html = await page({ platform: "ios", stores: [] });
    expect(html).not.toContain("<h2>");
    expect(html).not.toContain("<ul>");
    expect(await page()).toContain("<h2>Get <bdi>Example Game</bdi></h2>");
  });

  it("draws the QR code of a link too long for one from the bare link, larger the denser it is", async () => {
    const viewBoxSide = (html: string) =>
      Number(/<svg [^>]*viewBox="0 0 (\d+) \1"/.exec(html)?.[1]);
    const widthOf = (html: string) => Number(/<svg [^>]*width="(\d+)"/.exec(html)?.[1]);
    const short = await page();
    const long = testLink({ url: `${link.url}?deep_link_path=/${"x".repeat(400)}` });
    const dense = await page({ link: long });
    // Holding the whole link: more modules, drawn larger.
    expect(viewBoxSide(dense)).toBeGreaterThan(viewBoxSide(short));
    expect(widthOf(dense)).toBeGreaterThan(widthOf(short));
    // More than any QR code holds: the bare link's code, not a failed page.
    const tooLong = testLink({ url: `${link.url}?deep_link_path=/${"x".repeat(3000)}` });
    const bare = await page({ link: tooLong });
    expect(viewBoxSide(bare)).toBe(viewBoxSide(short));
    expect(bare).toContain(escapeHtml(tooLong.url));
  });

  it("escapes every value of the app and the link, in text and in attributes", async () => {
    const hostileApp: App = {
      ...app,
      name: HOSTILE,
      links: { previewTitle: HOSTILE, previewDescription: HOSTILE, previewImageUrl: undefined },
    };
    const hostileLink = testLink({
      campaignName: HOSTILE,
      url: `https://go.example.com/Kx3v9QpZ2aQ?q=${HOSTILE}`,
      previewImageUrl: `https://cdn.example.com/${HOSTILE}`,
    });
    for (const html of [
      await page({
        app: hostileApp,
        link: hostileLink,
        webUrl: `https://game.example.com/${HOSTILE}`,
      }),
      renderPreviewPage(hostileApp, hostileLink),
    ]) {
      expect(html).not.toContain("<script");
      expect(html).not.toContain("<img");
      expect(html).not.toContain("onerror=alert(2)>");
      expect(html).not.toContain(`"><script`);
      expect(html).toContain(escapeHtml(HOSTILE));
      // Every tag the page holds is one of its own.
      const tags = new Set([...html.matchAll(/<([a-z0-9]+)[\s>]/g)].map((m) => m[1]));
      for (const tag of tags) {
        expect(
          [
            "html",
            "head",
            "meta",
            "title",
            "style",
            "body",
            "main",
            "h1",
            "h2",
            "p",
            "span",
            "bdi",
            "ul",
            "li",
            "a",
            "figure",
            "figcaption",
            "svg",
            "path",
          ],
          `<${tag}>`,
        ).toContain(tag);
      }
    }
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });

  it("names an app whose name holds `$&` or `$'` as it is, in every sentence that names it", async () => {
    const dollars = { ...app, name: "Cash$&Co $' $$", links: {} };
    const html = await page({
      app: dollars,
      platform: "ios",
      stores: storesOf("ios", dollars, link, "c"),
    });
    expect(html).toContain(`<h2>Get <bdi>${escapeHtml(dollars.name)}</bdi></h2>`);
    expect(html).toContain(
      `<bdi>${escapeHtml(dollars.name)}</bdi> is not available for this device yet.`,
    );
    expect(html).not.toContain("{app}");
  });

  it("keeps a right-to-left name's own direction without reordering the page's words around it", async () => {
    const hebrew = { ...app, name: "משחק!", links: { appStoreId: "1234567890" } };
    const rtlLink = testLink({ url: link.url, previewTitle: "חורף 2026" });
    const html = await page({
      app: hebrew,
      link: rtlLink,
      platform: "android",
      stores: storesOf("android", { ...hebrew, platform: "ios" }, rtlLink, "c"),
    });
    expect(html).toContain('<h1 dir="auto">משחק!</h1>');
    expect(html).toContain('<p dir="auto">חורף 2026</p>');
    expect(html).toContain("<h2>Get <bdi>משחק!</bdi></h2>");
    expect(html).toContain("<bdi>משחק!</bdi> is not available for this device yet.");
    const preview = renderPreviewPage(hebrew, testLink({ previewDescription: "מרוץ בשלג" }));
    expect(preview).toContain('<h1 dir="auto">משחק!</h1>');
    expect(preview).toContain('<p dir="auto">מרוץ בשלג</p>');
    expect(preview).toContain("<bdi>משחק!</bdi></a>");
  });

  it("is in the app's language the browser asks for, else the app's first, else English", async () => {
    const german = { ...app, links: { ...app.links, languages: ["de", "fr"] } };
    expect(await page({ app: german, acceptLanguage: "fr-CH, fr;q=0.9, en;q=0.8" })).toContain(
      LANDING_STRINGS.fr.googlePlay,
    );
    const html = await page({ app: german, acceptLanguage: "ja" });
    expect(html).toContain('<html lang="de"');
    expect(html).toContain(LANDING_STRINGS.de.googlePlay);
    expect(await page({ acceptLanguage: "de" })).toContain('<html lang="en"');
    expect(landingLanguage(["de", "en"], "en;q=0.5, de;q=0")).toBe("en");
    expect(landingLanguage(undefined, "de")).toBe("en");
    // A language refused is not the fallback while the app has another.
    expect(landingLanguage(["de", "en"], "de;q=0")).toBe("en");
    expect(landingLanguage(["de", "en"], "de-DE;q=0, fr")).toBe("en");
    expect(landingLanguage(["de", "en"], "de;q=0, en;q=0")).toBe("de");
    // A weight that is no weight asks for nothing; every entry counts, however many.
    expect(landingLanguage(["ja", "en"], "ja;q=0.1, en;q=-1")).toBe("ja");
    const many = [...Array.from({ length: 29 }, (_, i) => `x${i}-zz`), "EN-us"].join(",");
    expect(landingLanguage(["de", "en"], many)).toBe("en");
    // No header, or one of nothing but noise: the app's first.
    for (const header of [null, "", " ", ";;,,", "\u0000", "*;q=abc"]) {
      expect(landingLanguage(["fr", "en"], header)).toBe("fr");
    }
  });

  it("loads nothing but its own stylesheet, allowed by its hash, and sets no cookie", async () => {
    expect(PAGE_CSP).toContain("default-src 'none'");
    expect(PAGE_CSP).toContain("frame-ancestors 'none'");
    expect(PAGE_CSP).toContain("base-uri 'none'");
    expect(PAGE_CSP).toContain("form-action 'none'");
    expect(PAGE_CSP).not.toMatch(/unsafe|script-src|\*|https:/);
    for (const html of [await page(), renderPreviewPage(app, link)]) {
      const [style, ...more] = styles(html);
      expect(more).toEqual([]);
      const hash = createHash("sha256")
        .update(style ?? "")
        .digest("base64");
      expect(PAGE_CSP).toContain(`style-src 'sha256-${hash}'`);
      expect(html).not.toMatch(/\sstyle=|<script|<link|<iframe|<form|<img/i);
    }
    expect(Object.keys(PAGE_HEADERS).map((name) => name.toLowerCase())).not.toContain("set-cookie");
    expect(PAGE_HEADERS).toMatchObject({
      "content-security-policy": PAGE_CSP,
      "x-content-type-options": "nosniff",
    });
  });
});

describe("the preview page", () => {
  it("has the Open Graph and Twitter card tags of the link, else the app's defaults, else its name", () => {
    const own = testLink({
      url: "https://go.example.com/Kx3v9QpZ2aQ",
      previewTitle: "Winter Cup",
      previewDescription: "Race your friends",
      previewImageUrl: "https://cdn.example.com/winter.png",
    });
    const html = renderPreviewPage(app, own);
    expect(html).toContain('<meta property="og:title" content="Winter Cup">');
    expect(html).toContain('<meta property="og:description" content="Race your friends">');
    expect(html).toContain(
      '<meta property="og:image" content="https://cdn.example.com/winter.png">',
    );
    expect(html).toContain('<meta property="og:url" content="https://go.example.com/Kx3v9QpZ2aQ">');
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(html).toContain('<meta name="twitter:title" content="Winter Cup">');
    // Every tag, in order: the card's kind and the app's name besides the link's own.
    const tags = [
      ...html.matchAll(/<meta (property|name)="((?:og|twitter):[a-z_]+)" content="([^"]*)">/g),
    ].map((match) => `${match[1]} ${match[2]}: ${match[3]}`);
    expect(tags).toEqual([
      "property og:type: website",
      "property og:site_name: Example Game",
      "property og:url: https://go.example.com/Kx3v9QpZ2aQ",
      "property og:title: Winter Cup",
      "property og:description: Race your friends",
      "property og:image: https://cdn.example.com/winter.png",
      "name twitter:card: summary_large_image",
      "name twitter:title: Winter Cup",
      "name twitter:description: Race your friends",
      "name twitter:image: https://cdn.example.com/winter.png",
    ]);

    // The image as the API took it (a space, a quote, a host not in ASCII), sent as a URL.
    const written = renderPreviewPage(
      app,
      testLink({ previewImageUrl: 'https://bücher.example/winter card "v2".png' }),
    );
    for (const tag of ['property="og:image"', 'name="twitter:image"']) {
      expect(written).toContain(
        `<meta ${tag} content="https://xn--bcher-kva.example/winter%20card%20%22v2%22.png">`,
      );
    }

    const defaults = { ...app, links: { previewTitle: "Example Game: the app" } };
    expect(previewOf(defaults, link)).toEqual({
      title: "Example Game: the app",
      description: null,
      imageUrl: null,
    });
    const plain = renderPreviewPage({ ...app, links: {} }, link);
    expect(plain).toContain('<meta property="og:title" content="Example Game">');
    expect(plain).toContain('<meta name="twitter:card" content="summary">');
    expect(plain).not.toContain("og:image");
  });
});
