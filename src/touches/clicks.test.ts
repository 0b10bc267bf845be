/**
 * What a tap records of itself: the tapped URL's parameters within a link's own bounds (none of
 * the service's marks among them), the agent cut to its bound, and the QR code's URL a landing
 * page shows.
 */
import { describe, expect, it } from "vitest";
import { testLink } from "../links/link.test-support.ts";
import { LINK_LIMITS } from "../links/link-limits.ts";
import { QR_TAP_PARAM } from "../links/link-qr.ts";
import type { App } from "../ports/apps.ts";
import type { Touch } from "../ports/touches.ts";
import { createClickRecorder, HINTS_ASKED_PARAM, type Tap } from "./clicks.ts";
import { TOUCH_LIMITS } from "./touch-request.ts";

const APP: App = {
  appId: "com.example.plain",
  name: "Plain",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};
/** The apps the recorder reads, as a test may set them. */
const APPS = new Map<string, App>([[APP.appId, APP]]);
const ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

const recorderOf = (link = testLink({ appId: APP.appId })) => {
  const recorded: Touch[] = [];
  const tap = createClickRecorder({
    links: { get: async (id) => (id === link.deeplinkId ? link : undefined) },
    apps: { get: async (appId) => APPS.get(appId) },
    allApps: async () => [...APPS.values()],
    clicks: { record: async (click) => void recorded.push(click) },
    countries: { countryOf: () => null },
    onRecordFailure: (error) => {
      throw error;
    },
  });
  const tapWith = (query: Tap["query"], agent = ANDROID, sourceIp = "81.2.69.142") =>
    tap({ deeplinkId: link.deeplinkId, query, sourceIp, headers: { "user-agent": agent } });
  return { tapWith, recorded };
};

describe("a tap's click", () => {
  it("keeps the tapped URL's parameters within a link's bounds, and none of the service's marks", async () => {
    const { tapWith, recorded } = recorderOf();
    const query: Record<string, string> = {
      "": "no name",
      ["k".repeat(LINK_LIMITS.maxParamKeyLength + 1)]: "name too long",
      [HINTS_ASKED_PARAM]: "1",
      [QR_TAP_PARAM]: "1",
      long: "v".repeat(LINK_LIMITS.maxParamValueLength + 1),
      // A parameter like any other, never the kept parameters' prototype.
      ["__proto__"]: "proto",
    };
    for (let n = 0; n < LINK_LIMITS.maxParams + 5; n += 1) query[`p${n}`] = String(n);
    await tapWith(query);
    const [click] = recorded;
    expect(click?.urlParams.long).toBe("v".repeat(LINK_LIMITS.maxParamValueLength));
    expect(Object.getOwnPropertyDescriptor(click?.urlParams, "__proto__")?.value).toBe("proto");
    // The first of them, in the tapped order, up to the bound: `long`, `__proto__`, then p0...
    const kept = Object.keys(click?.urlParams ?? {});
    expect(kept).toHaveLength(LINK_LIMITS.maxParams);
    expect(kept.slice(0, 3)).toEqual(["long", "__proto__", "p0"]);
    expect(click?.urlParams[`p${LINK_LIMITS.maxParams - 3}`]).toBe(
      String(LINK_LIMITS.maxParams - 3),
    );
    expect(Object.hasOwn(click?.urlParams ?? {}, `p${LINK_LIMITS.maxParams - 2}`)).toBe(false);
    for (const dropped of [
      "",
      "k".repeat(LINK_LIMITS.maxParamKeyLength + 1),
      HINTS_ASKED_PARAM,
      QR_TAP_PARAM,
    ]) {
      expect(Object.hasOwn(click?.urlParams ?? {}, dropped), dropped).toBe(false);
    }
  });

  it("keeps the address a tap came from as the matcher reads it: an IPv4-mapped one as IPv4", async () => {
    const { tapWith, recorded } = recorderOf();
    for (const sourceIp of ["::ffff:81.2.69.142", "2A00:1450:4001:0811:0000:0000:0000:200E"]) {
      await tapWith({}, ANDROID, sourceIp);
    }
    expect(recorded.map((click) => click.ip)).toEqual(["81.2.69.142", "2a00:1450:4001:811::200e"]);
  });

  it("cuts the agent to its bound", async () => {
    const { tapWith, recorded } = recorderOf();
    await tapWith({}, `${ANDROID} ${"x".repeat(TOUCH_LIMITS.maxUserAgentLength)}`);
    expect(recorded[0]?.userAgent).toHaveLength(TOUCH_LIMITS.maxUserAgentLength);
  });

  it("gives a landing page the link's URL marked as a QR code's, with the tapped parameters it lacks while they fit", async () => {
    const link = testLink({ appId: APP.appId, landingPage: true, params: { campaign: "spring" } });
    const { tapWith } = recorderOf(link);
    const short = await tapWith({ ref: "mail" });
    expect(short.kind === "landing" && new URL(short.qrUrl).searchParams.get("ref")).toBe("mail");
    expect(short.kind === "landing" && new URL(short.qrUrl).searchParams.get(QR_TAP_PARAM)).toBe(
      "1",
    );
    // Too long for a QR code a phone's camera reads: the link's own URL, marked.
    const long = await tapWith({
      ref: "r".repeat(LINK_LIMITS.maxParamValueLength),
      more: "m".repeat(LINK_LIMITS.maxParamValueLength),
    });
    expect(long.kind === "landing" && long.qrUrl).toBe(`${link.url}?${QR_TAP_PARAM}=1`);
  });

  it("sends a Fire tablet or a Huawei phone, which have no Google Play, to the app's site, counted as an Android tap", async () => {
    const fire =
      "Mozilla/5.0 (Linux; Android 9; KFMAWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/120.3.1 like Chrome/120.0.6099.230 Safari/537.36";
    const { tapWith, recorded } = recorderOf();
    const withSite = { ...APP, links: { webUrl: "https://plain.example.com/" } };
    APPS.set(APP.appId, withSite);
    try {
      expect(await tapWith({}, fire)).toMatchObject({
        kind: "redirect",
        location: "https://plain.example.com/",
      });
      expect(await tapWith({})).toMatchObject({
        kind: "redirect",
        location: expect.stringMatching(/^https:\/\/play\.google\.com\//),
      });
      expect(recorded.map((click) => click.platform)).toEqual(["android", "android"]);
    } finally {
      APPS.set(APP.appId, APP);
    }
  });

  it("shows a Fire tablet without a site no Play Store button it could not open, and still opens the app", async () => {
    const fire =
      "Mozilla/5.0 (Linux; Android 9; KFMAWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/120.3.1 like Chrome/120.0.6099.230 Safari/537.36";
    const { tapWith } = recorderOf();
    const page = await tapWith({}, fire);
    expect(page.kind).toBe("landing");
    if (page.kind !== "landing") return;
    expect(page.stores).toEqual([]);
    expect(page.androidOpener).toMatch(new RegExp(`;package=${APP.appId};end$`));
    const pixel = await tapWith({});
    expect(pixel.kind).toBe("redirect");
  });
});
