/**
 * Chrome's client hints on the link host, in the machine's Chromium told it is a Pixel 8 on
 * Android 14 behind Chrome's reduced agent (`Android 10; K`), as Chrome on that phone is: a
 * tap is asked for the model and OS version on a redirect to the same link, Chromium follows
 * it with them, and the tap is one click of a Pixel 8 on Android 14 whose click id the store
 * is sent. Through an ad network's click tracker on another origin, as many ads reach a link,
 * the tracker is passed once: the link host asks for the hints without Critical-CH, which
 * would make Chromium go through the whole redirect chain again.
 *
 * The stores are never reached: their names resolve to nothing in this browser.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LinkAnswer } from "../../src/links/links.ts";
import { HINTS_ASKED_PARAM } from "../../src/touches/clicks.ts";
import { clickIdOfReferrer } from "../../src/touches/destination.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";
import { launchChromium } from "./support/browser.ts";

const APP_ID = "com.example.hints.browser";
/** Chrome's agent on every Android phone since its reduction. */
const REDUCED_AGENT =
  "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
/** What Chrome on a Pixel 8 tells a site that asks (CDP's `UserAgentMetadata`). */
const PIXEL_8 = {
  brands: [
    { brand: "Chromium", version: "131" },
    { brand: "Google Chrome", version: "131" },
  ],
  fullVersion: "131.0.0.0",
  platform: "Android",
  platformVersion: "14.0.0",
  architecture: "",
  model: "Pixel 8",
  mobile: true,
};

describe("Chrome's client hints on the link host, in a browser", () => {
  let rt: TestRuntime;
  let browser: Browser;
  let serverKey: string;
  let tracker: Server;
  let trackerHits = 0;
  /** Where the tracker sends its next tap. */
  let trackerTarget = "";

  beforeAll(async () => {
    rt = await startTestRuntime();
    ({ serverKey } = await rt.createApp(APP_ID, "android"));
    // An ad network's click tracker: counts the tap, then redirects it to the advertiser's link.
    tracker = createServer((_request, response) => {
      trackerHits += 1;
      response.writeHead(302, { location: trackerTarget });
      response.end();
    });
    await new Promise<void>((resolve) => tracker.listen(0, "127.0.0.1", resolve));
    browser = await launchChromium(["--host-resolver-rules=MAP play.google.com ~NOTFOUND"]);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => tracker?.close(resolve));
    await rt?.dispose();
  });

  const newLink = async (): Promise<LinkAnswer> => {
    const made = await rt.post("/v1/links", { media_source: "hinted_browser" }, serverKey);
    expect(made.status).toBe(201);
    return (await made.json()) as LinkAnswer;
  };

  /** A page of a Pixel 8's Chrome, and the requests it makes until it leaves for the store. */
  const pixelPage = async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setUserAgentOverride", {
      userAgent: REDUCED_AGENT,
      userAgentMetadata: PIXEL_8,
    });
    const requests: Request[] = [];
    page.on("request", (request) => requests.push(request));
    return { page, requests, close: () => context.close() };
  };

  /** Opens `url` and waits for the request that leaves for the Play Store, which fails here. */
  const tapThrough = async (page: Page, url: string) => {
    const toStore = page.waitForRequest((request) =>
      request.url().startsWith("https://play.google.com/"),
    );
    await page.goto(url).catch(() => undefined);
    return toStore;
  };

  const clicksOf = async (link: LinkAnswer) =>
    (
      await rt.stores.touches.byIp("127.0.0.1", {
        appId: APP_ID,
        from: new Date(Date.now() - 3_600_000),
        to: new Date(Date.now() + 60_000),
      })
    ).filter((touch) => touch.deeplinkId === link.deeplink_id);

  it("asks for the model on a redirect, and records the tap Chromium follows it with once", async () => {
    const link = await newLink();
    const { page, requests, close } = await pixelPage();
    try {
      const store = await tapThrough(page, link.url);
      const taps = requests.filter((request) => request.url().startsWith(rt.linkUrl));
      expect(taps).toHaveLength(2);
      const [asked, hinted] = taps;
      expect((await asked?.allHeaders())?.["sec-ch-ua-model"]).toBeUndefined();
      expect(new URL(hinted?.url() ?? "").searchParams.get(HINTS_ASKED_PARAM)).toBe("1");
      expect(await hinted?.allHeaders()).toMatchObject({
        "sec-ch-ua-model": '"Pixel 8"',
        "sec-ch-ua-platform-version": '"14.0.0"',
      });

      const clicks = await clicksOf(link);
      expect(clicks).toHaveLength(1);
      expect(clicks[0]).toMatchObject({
        deviceModel: "Pixel 8",
        osVersion: "14",
        platform: "android",
        userAgent: REDUCED_AGENT,
      });
      const referrer = new URL(store.url()).searchParams.get("referrer");
      expect(clickIdOfReferrer(referrer)).toBe(clicks[0]?.clickId);
    } finally {
      await close();
    }
  });

  it("passes an ad network's click tracker in front of the link once", async () => {
    const link = await newLink();
    trackerTarget = `${link.url}?sub1=ad-7`;
    trackerHits = 0;
    const { page, close } = await pixelPage();
    try {
      // Another origin than the link host's (its own port), as a network's tracker is.
      const { port } = tracker.address() as AddressInfo;
      await tapThrough(page, `http://localhost:${port}/click`);
      expect(trackerHits).toBe(1);
      const clicks = await clicksOf(link);
      expect(clicks).toHaveLength(1);
      expect(clicks[0]).toMatchObject({ deviceModel: "Pixel 8", urlParams: { sub1: "ad-7" } });
    } finally {
      await close();
    }
  });
});
