/**
 * The link host's own pages: the landing page a tap gets where its device has nowhere to go
 * (or the link asks for it), and the preview page the crawlers of chats and feeds get.
 *
 * Both are small and safe: one HTML document made on the server, no script at all, every
 * value from a link or an app escaped, one inline stylesheet allowed by its hash in a strict
 * Content-Security-Policy (nothing else may load: no image, font, frame or form target), and
 * no cookie. The QR code of the link, for a desktop, is inline SVG drawn by `qrcode`.
 */
import { createHash } from "node:crypto";
import QRCode from "qrcode";
import type { DevicePlatform } from "../domain/touch.ts";
import type { App } from "../ports/apps.ts";
import type { Link } from "../ports/links.ts";
import type { StoreButton } from "../touches/destination.ts";
import {
  LANDING_STRINGS,
  type LandingLanguage,
  type LandingStrings,
  landingLanguage,
} from "./landing-strings.ts";
import { LINK_QR_CORRECTION, LINK_QR_MODULE_PX, linkQr } from "./link-qr.ts";

/** Text for HTML, in an element or a quoted attribute. */
export const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (char) =>
      ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char] ?? char,
  );

/** The page's one stylesheet: a phone's width first, no width wider than the screen. */
const STYLE = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7;overflow-wrap:anywhere}
main{max-width:32rem;margin:0 auto;padding:2rem 1.25rem}
h1{font-size:1.75rem;line-height:1.2;margin:0 0 .5rem}
h2{font-size:1.125rem;margin:1.5rem 0 .75rem}
p{margin:.5rem 0}
.muted{color:#57606a}
.url{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.875rem;word-break:break-all}
ul{list-style:none;margin:0;padding:0}
li{margin:.75rem 0}
.button{display:block;padding:.875rem 1rem;border-radius:.75rem;background:#1b1f24;color:#fff;text-align:center;font-weight:600;text-decoration:none}
.button.open{background:#0969da}
.button:focus-visible{outline:3px solid #0969da;outline-offset:2px}
a{color:#0969da}
figure{margin:1.5rem 0;text-align:center}
figure svg{display:block;max-width:100%;height:auto;margin:0 auto;background:#fff}
figcaption{margin-top:.5rem}
`.trim();

const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

/**
 * Nothing loads but the one stylesheet: no script, image, font, frame, form or base, and the
 * page may not be framed (so no click is taken from it in another site's frame).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The headers of the link host's pages: these two and its 404. */
export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": PAGE_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
} as const;

/** What a card shows of the link: its own preview, else the app's, else the app's name. */
export interface Preview {
  readonly title: string;
  readonly description: string | null;
  readonly imageUrl: string | null;
}

export const previewOf = (app: App, link: Link): Preview => ({
  title: link.previewTitle ?? app.links?.previewTitle ?? app.name,
  description: link.previewDescription ?? app.links?.previewDescription ?? null,
  imageUrl: link.previewImageUrl ?? app.links?.previewImageUrl ?? null,
});

/** The Open Graph and Twitter card tags of the link's preview. */
const previewTags = (app: App, link: Link): string => {
  const preview = previewOf(app, link);
  // As a browser would fetch it: a space or a quote percent-encoded, the host in punycode. The
  // API keeps the URL as the marketer wrote it, and a card's fetcher may not mend it.
  const image = preview.imageUrl === null ? null : (URL.parse(preview.imageUrl)?.href ?? null);
  const tags: [string, string, string | null][] = [
    ["property", "og:type", "website"],
    ["property", "og:site_name", app.name],
    ["property", "og:url", link.url],
    ["property", "og:title", preview.title],
    ["property", "og:description", preview.description],
    ["property", "og:image", image],
    ["name", "twitter:card", image ? "summary_large_image" : "summary"],
    ["name", "twitter:title", preview.title],
    ["name", "twitter:description", preview.description],
    ["name", "twitter:image", image],
  ];
  return tags
    .filter((tag): tag is [string, string, string] => tag[2] !== null)
    .map(([kind, name, content]) => `<meta ${kind}="${name}" content="${escapeHtml(content)}">`)
    .join("\n");
};

const document = (
  language: LandingLanguage,
  app: App,
  link: Link,
  title: string,
  body: string,
  head = "",
) => `<!doctype html>
<html lang="${language}" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<meta name="description" content="${escapeHtml(previewOf(app, link).description ?? app.name)}">
${previewTags(app, link)}${head}
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;

const QR_MARGIN = 4;
const QR_MIN_PX = 240;

/** The QR code of a link (`linkQr`) as inline SVG, drawn larger the denser it is. */
export const linkQrSvg = async (linkUrl: string, label: string): Promise<string> => {
  const { text, modules } = linkQr(linkUrl);
  const svg = await QRCode.toString(text, {
    type: "svg",
    margin: QR_MARGIN,
    errorCorrectionLevel: LINK_QR_CORRECTION,
    width: Math.max(QR_MIN_PX, (modules + 2 * QR_MARGIN) * LINK_QR_MODULE_PX),
  });
  return svg.replace(/^<svg /, `<svg role="img" aria-label="${escapeHtml(label)}" `);
};

/** A store's own name on its button; a page elsewhere is named by its platform. */
const buttonLabel = (button: StoreButton, words: LandingStrings): string =>
  button.store === "google-play"
    ? words.googlePlay
    : button.store === "app-store"
      ? words.appStore
      : button.platform === "android"
        ? words.forAndroid
        : words.forIos;

export interface LandingPage {
  readonly app: App;
  readonly link: Link;
  readonly platform: DevicePlatform;
  readonly stores: readonly StoreButton[];
  readonly webUrl: string | null;
  /** What the desktop's QR code opens: the link, with the tap's own parameters. */
  readonly qrUrl?: string;
  /** The link as the app is given it when the page opens the app, with the tap's parameters. */
  readonly openUrl?: string;
  /** The link of the Android "Open" button, which opens the installed app (`androidOpenerOf`). */
  readonly androidOpener?: string | null;
  /** The tapper's `Accept-Language`. */
  readonly acceptLanguage: string | null | undefined;
}

/**
 * The landing page: the app's name, the link's preview title and description, and the link, a
 * button for each platform the link has somewhere to go on (and the web site), and on a desktop
 * the link's QR code to open it on a phone.
 */
export const renderLandingPage = async (page: LandingPage): Promise<string> => {
  const { app, link, platform, stores } = page;
  const language = landingLanguage(app.links?.languages, page.acceptLanguage);
  const words = LANDING_STRINGS[language];
  // The app's name in the page's sentences, isolated: its own script's direction (a Hebrew or
  // an Arabic name) must not reorder the words around it.
  const name = (text: string) =>
    text
      .split("{app}")
      .map(escapeHtml)
      .join(`<bdi>${escapeHtml(app.name)}</bdi>`);
  // The link's own words for the public, its card's: never its campaign's name or id, the
  // marketer's label, which the tapper has no use for and may not be meant to read.
  const preview = previewOf(app, link);
  const storeFor = stores.some((store) => store.platform === platform);
  const parts = [
    `<h1 dir="auto">${escapeHtml(app.name)}</h1>`,
    preview.title === app.name ? "" : `<p dir="auto">${escapeHtml(preview.title)}</p>`,
    preview.description === null
      ? ""
      : `<p class="muted" dir="auto">${escapeHtml(preview.description)}</p>`,
    `<p class="muted">${escapeHtml(words.link)}: <span class="url">${escapeHtml(link.url)}</span></p>`,
  ];
  if (platform === "other") {
    parts.push(
      `<figure>${await linkQrSvg(page.qrUrl ?? link.url, words.qrLabel)}<figcaption>${escapeHtml(words.scanOnPhone)}</figcaption></figure>`,
    );
  } else if (!storeFor) {
    parts.push(`<p>${name(words.unavailable)}</p>`);
  }
  if (page.androidOpener) {
    parts.push(
      `<p><a class="button open" data-open="android" href="${escapeHtml(page.androidOpener)}">${name(words.openApp)}</a></p>`,
    );
  }
  if (stores.length > 0) {
    parts.push(`<h2>${name(words.getTheApp)}</h2>`);
    parts.push(
      `<ul>${stores
        .map(
          (store) =>
            `<li><a class="button" data-store="${store.store ?? store.platform}" href="${escapeHtml(store.url)}">${escapeHtml(
              buttonLabel(store, words),
            )}</a></li>`,
        )
        .join("")}</ul>`,
    );
  }
  if (page.webUrl !== null) {
    parts.push(
      `<p><a href="${escapeHtml(page.webUrl)}" data-store="web">${escapeHtml(words.website)}</a></p>`,
    );
  }
  return document(
    language,
    app,
    link,
    previewOf(app, link).title,
    parts.filter(Boolean).join("\n"),
    // A disabled link opens nothing in the app, as its Android page has no Open button.
    platform === "ios" && !link.disabled ? smartAppBanner(app, page.openUrl ?? link.url) : "",
  );
};

/**
 * Safari's Smart App Banner on an iPhone: "Open" where the app is installed, which gives it the
 * link (`app-argument`, as `application(_:open:options:)` or a scene's `openURLContexts`
 * deliver it), "View" in the App Store where it is not. Of an app with an App Store id; a
 * comma, which would end the meta's value, percent-encoded in the link.
 */
const smartAppBanner = (app: App, openUrl: string): string => {
  const appStoreId = app.links?.appStoreId;
  if (!appStoreId) return "";
  const argument = openUrl.replaceAll(",", "%2C");
  return `\n<meta name="apple-itunes-app" content="${escapeHtml(`app-id=${appStoreId}, app-argument=${argument}`)}">`;
};

/** The page a chat's or a feed's crawler makes the link's card from. */
export const renderPreviewPage = (app: App, link: Link, acceptLanguage?: string | null): string => {
  const language = landingLanguage(app.links?.languages, acceptLanguage);
  const preview = previewOf(app, link);
  const body = [
    `<h1 dir="auto">${escapeHtml(preview.title)}</h1>`,
    preview.description === null ? "" : `<p dir="auto">${escapeHtml(preview.description)}</p>`,
    `<p><a href="${escapeHtml(link.url)}"><bdi>${escapeHtml(app.name)}</bdi></a></p>`,
  ];
  return document(language, app, link, preview.title, body.filter(Boolean).join("\n"));
};
