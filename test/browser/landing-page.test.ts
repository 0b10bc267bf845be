/**
 * The link host's landing page in a real browser (the machine's Chromium), against the
 * embedded runtime: at a phone's width (390 px) and a desktop's (1280 px) it never scrolls
 * sideways, its one stylesheet applies under its Content-Security-Policy with nothing refused,
 * and on a desktop its QR code, read back from the screen, is the link itself (the bare link,
 * for one too long for any QR code).
 *
 * Each page is saved as a PNG in test-results/browser/ for a person to look at.
 */
import jsQR from "jsqr";

// jsqr is CommonJS: its function is the module and, as its types say, its `default`.
const readQr = jsQR.default;

import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withLinkSettings } from "../../src/links/app-settings.ts";
import { QR_TAP_PARAM } from "../../src/links/link-qr.ts";
import type { LinkAnswer } from "../../src/links/links.ts";
import { PIXEL } from "../support/agents.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";
import { DESKTOP, documentWidth, launchChromium, PHONE, screenshot } from "./support/browser.ts";

const APP_ID = "com.example.landing.browser";
const DESKTOP_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const IPHONE_AGENT =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

/** The page's window, as far as the test reads it. */
type Styled = { getComputedStyle(element: unknown): { display: string } };

/** The pixels of a PNG, drawn by the browser on a blank page (no policy of the link host's). */
const pixelsOf = async (
  blank: Page,
  png: Buffer,
): Promise<{ width: number; height: number; data: number[] }> =>
  blank.evaluate(`(async () => {
    const blob = await (await fetch("data:image/png;base64,${png.toString("base64")}")).blob();
    const bitmap = await createImageBitmap(blob);
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext("2d");
    context.drawImage(bitmap, 0, 0);
    const image = context.getImageData(0, 0, bitmap.width, bitmap.height);
    return { width: image.width, height: image.height, data: Array.from(image.data) };
  })()`);

/** The text of the page's QR code, read back from its pixels on the screen. */
/** A link as a desktop's QR code gives it: marked as the QR's. */
const fromQr = (href: string): string => {
  const url = new URL(href);
  url.searchParams.set(QR_TAP_PARAM, "1");
  return url.href;
};

const qrText = async (context: BrowserContext, page: Page): Promise<string | undefined> => {
  const qr = page.getByRole("img", { name: "QR code of this link" });
  const blank = await context.newPage();
  const { width, height, data } = await pixelsOf(blank, await qr.screenshot());
  await blank.close();
  return readQr(Uint8ClampedArray.from(data), width, height)?.data;
};

describe("the landing page in a browser", () => {
  let rt: TestRuntime;
  let browser: Browser;
  let link: LinkAnswer;
  /** A link of an Android-only app, which an iPhone gets the page of. */
  let androidOnly: LinkAnswer;
  let androidOnlyKey: string;

  /** A link with long words and a long URL, as ads make them: the page must still fit a phone. */
  const makeLink = async (serverKey: string) => {
    const made = await rt.post(
      "/v1/links",
      {
        media_source: "browser_landing",
        campaign_name: "Winter",
        // What the page shows of the link: words longer than a phone is wide.
        preview_title: `Winterfestspielemeisterschaftsqualifikationsrunde ${"x".repeat(40)}`,
        preview_description: `${"Schneeballschlachtweltmeisterschaft ".repeat(6)}${"y".repeat(80)}`,
        deep_link_path: `/levels/${"7".repeat(120)}`,
        params: { promo: "WINTER", creative: "c".repeat(200) },
      },
      serverKey,
    );
    expect(made.status).toBe(201);
    return (await made.json()) as LinkAnswer;
  };

  beforeAll(async () => {
    rt = await startTestRuntime();
    androidOnlyKey = (await rt.createApp(`${APP_ID}.android`, "android")).serverKey;
    androidOnly = await makeLink(androidOnlyKey);
    const { serverKey } = await rt.createApp(APP_ID, "android");
    // In both stores, no web site: a desktop gets the page with its QR code.
    await rt.stores.apps.update(APP_ID, (app) =>
      withLinkSettings(app, { appStoreId: "1234567890" }),
    );
    link = await makeLink(serverKey);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await rt?.dispose();
  });

  /** The page as a browser of this kind and size shows it, with what its console reported. */
  const open = async (
    viewport: { width: number; height: number },
    userAgent: string,
    url = link.url,
  ) => {
    const context: BrowserContext = await browser.newContext({ viewport, userAgent });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    expect(await context.cookies()).toEqual([]);
    return { context, page, problems };
  };

  it.each([
    ["desktop", DESKTOP],
    ["phone-width", PHONE],
  ] as const)(
    "shows a desktop at %s width the link's QR code, which decodes to the link, and no sideways scroll",
    async (name, viewport) => {
      const { context, page, problems } = await open(viewport, DESKTOP_AGENT);
      await page.getByRole("heading", { level: 1, name: `App ${APP_ID}` }).waitFor();
      await screenshot(page, `landing-${name}`);

      const width = await documentWidth(page);
      expect(width.scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(width.innerWidth);
      // The hashed stylesheet applied: the buttons are drawn as buttons.
      const play = page.getByRole("link", { name: "Get it on Google Play" });
      expect(
        await play.evaluate(
          (a: unknown) => (globalThis as unknown as Styled).getComputedStyle(a).display,
        ),
      ).toBe("block");
      await expect
        .poll(() => page.getByRole("link", { name: "Download on the App Store" }).count())
        .toBe(1);
      expect(problems, "nothing refused by the policy, no error").toEqual([]);

      const qr = page.getByRole("img", { name: "QR code of this link" });
      const box = await qr.boundingBox();
      expect(box?.width).toBeGreaterThanOrEqual(Math.min(200, viewport.width - 60));
      expect(await qrText(context, page)).toBe(fromQr(link.url));
      await context.close();
    },
  );

  it("puts the tapped URL's own parameters in a desktop's QR code, for the phone's tap", async () => {
    // A network's click id on the tapped URL: the phone's tap, which an install matches,
    // must carry it.
    const tapped = `${link.url}${link.url.includes("?") ? "&" : "?"}clickid=N1&sub1=a%20b`;
    const { context, page, problems } = await open(DESKTOP, DESKTOP_AGENT, tapped);
    const opened = new URL((await qrText(context, page)) ?? "");
    expect(opened.searchParams.get("clickid")).toBe("N1");
    expect(opened.searchParams.get("sub1")).toBe("a b");
    // Marked as a QR code's: the phone's tap is charged no per-click price a second time.
    expect(opened.searchParams.get(QR_TAP_PARAM)).toBe("1");
    for (const [key, value] of new URL(link.url).searchParams) {
      expect(opened.searchParams.get(key)).toBe(value);
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows a desktop the bare link's QR code for a link too long for any QR code", async () => {
    const made = await rt.post(
      "/v1/links",
      {
        media_source: "browser_landing",
        deep_link_path: `/${"x".repeat(900)}`,
        params: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`p${i}`, "a".repeat(480)])),
      },
      androidOnlyKey,
    );
    expect(made.status).toBe(201);
    const long = (await made.json()) as LinkAnswer;
    const { context, page, problems } = await open(DESKTOP, DESKTOP_AGENT, long.url);
    const bare = new URL(long.url);
    bare.search = "";
    expect(await qrText(context, page)).toBe(fromQr(bare.href));
    const width = await documentWidth(page);
    expect(width.scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(width.innerWidth);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows an iPhone at a phone's width the store buttons of an app it is not in, and no sideways scroll", async () => {
    const { context, page, problems } = await open(PHONE, IPHONE_AGENT, androidOnly.url);
    await page.getByRole("heading", { level: 1, name: `App ${APP_ID}.android` }).waitFor();
    await screenshot(page, "landing-iphone");
    const width = await documentWidth(page);
    expect(width.scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(width.innerWidth);
    expect(await page.getByText("is not available for this device yet").count()).toBe(1);
    expect(await page.getByRole("img").count(), "no QR code on a phone").toBe(0);
    const box = await page.getByRole("link", { name: "Get it on Google Play" }).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows an Android phone at a phone's width the Open button of a landing_page link above the store's, and no sideways scroll", async () => {
    const paged = await rt.post(
      "/v1/links",
      { media_source: "browser_landing", landing_page: true, params: { c: "c".repeat(300) } },
      androidOnlyKey,
    );
    const { url } = (await paged.json()) as LinkAnswer;
    const { context, page, problems } = await open(PHONE, PIXEL, url);
    const openButton = page.getByRole("link", { name: `Open App ${APP_ID}.android` });
    await openButton.waitFor();
    await screenshot(page, "landing-android-open");
    const width = await documentWidth(page);
    expect(width.scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(width.innerWidth);
    const href = (await openButton.getAttribute("href")) ?? "";
    expect(href.startsWith(`intent://${new URL(url).host}/`)).toBe(true);
    expect(href).toContain(`;package=${APP_ID}.android;`);
    const openBox = await openButton.boundingBox();
    const play = await page.getByRole("link", { name: "Get it on Google Play" }).boundingBox();
    expect(openBox && openBox.x >= 0 && openBox.x + openBox.width <= PHONE.width).toBe(true);
    expect(openBox && play && openBox.y < play.y, "the Open button above the store's").toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});
