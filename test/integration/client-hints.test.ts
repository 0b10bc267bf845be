/**
 * Chrome's reduced agent over HTTP against the embedded runtime: a tap that hides the phone's
 * model and OS version is asked for the client hints that tell them (`Accept-CH`, on a
 * redirect to the same link) and recorded nothing; that redirect followed with them, as Chrome
 * follows it, is one click with the hints' model and version; an install of that model then
 * matches at the confidence of a full agent's tap, one of another model does not. A browser that sends
 * no client hints at all, and a repeat that still lacks them, are answered as before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LinkAnswer } from "../../src/links/links.ts";
import { HINTS_ASKED_PARAM } from "../../src/touches/clicks.ts";
import { clickIdOfReferrer } from "../../src/touches/destination.ts";
import { PIXEL as FULL } from "../support/agents.ts";
import { installRequest } from "../support/installs.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.hinted";
const REDUCED =
  "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
/** The client hints Chrome sends every site unasked. */
const LOW_ENTROPY = {
  "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
  "sec-ch-ua-mobile": "?1",
  "sec-ch-ua-platform": '"Android"',
};
/** What a Pixel 8 on Android 14 tells when asked. */
const PIXEL_HINTS = {
  "sec-ch-ua-model": '"Pixel 8"',
  "sec-ch-ua-platform-version": '"14.0.0"',
};

const androidInstall = (serviceId: string, deviceModel = "Pixel 8") =>
  installRequest(serviceId, {
    os: "android",
    os_version: "14",
    device_model: deviceModel,
    sdk_platform: "kotlin",
    idfv: null,
    maid: null,
    first_open_time: new Date().toISOString(),
  });

describe("Chrome's client hints on the link host", () => {
  let rt: TestRuntime;
  let keys: { sdkKey: string; serverKey: string };
  let link: LinkAnswer;

  const tap = (ip: string, headers: Record<string, string>, path = `/${link.deeplink_id}`) =>
    fetch(`${rt.linkUrl}${path}`, {
      redirect: "manual",
      headers: { "x-forwarded-for": ip, ...headers },
    });

  const clicksFrom = async (ip: string) =>
    (
      await rt.stores.touches.byIp(ip, {
        appId: APP,
        from: new Date(Date.now() - 3_600_000),
        to: new Date(Date.now() + 60_000),
      })
    ).filter((touch) => touch.deeplinkId === link.deeplink_id);

  const attributionOf = (serviceId: string) => rt.attributionOf(serviceId, keys.sdkKey);

  const install = async (serviceId: string, ip: string, deviceModel?: string) => {
    const response = await rt.post(
      "/v1/installs",
      androidInstall(serviceId, deviceModel),
      keys.sdkKey,
      {
        "x-forwarded-for": ip,
      },
    );
    expect(response.status).toBe(202);
  };

  beforeAll(async () => {
    rt = await startTestRuntime({ trustProxy: true });
    keys = await rt.createApp(APP, "android");
    const made = await rt.post("/v1/links", { media_source: "hinted_ads" }, keys.serverKey);
    link = (await made.json()) as LinkAnswer;
  });

  afterAll(() => rt?.dispose());

  it("asks Chrome's reduced agent for its hints on a redirect, and records the tap it follows with them", async () => {
    const ip = "81.2.69.201";
    const asked = await tap(
      ip,
      { "user-agent": REDUCED, ...LOW_ENTROPY },
      `/${link.deeplink_id}?sub1=abc`,
    );
    expect(asked.status).toBe(302);
    const named = (asked.headers.get("accept-ch") ?? "").split(",").map((h) => h.trim());
    expect(named.map((h) => h.toLowerCase())).toEqual(
      expect.arrayContaining(["sec-ch-ua-model", "sec-ch-ua-platform-version"]),
    );
    // Asked, not made critical: Chrome would restart the whole redirect chain for it.
    expect(asked.headers.get("critical-ch")).toBeNull();
    expect(asked.headers.get("cache-control")).toBe("no-store");
    // Back to the same link, marked as asked: Chrome follows it with the hints. A reference of
    // a query alone keeps the path the tap came by, prefix and all, behind a proxy.
    const location = asked.headers.get("location") ?? "";
    expect(location.startsWith("?")).toBe(true);
    const again = new URL(location, new URL(`/${link.deeplink_id}?sub1=abc`, rt.linkUrl));
    expect(again.pathname).toBe(`/${link.deeplink_id}`);
    expect(again.searchParams.get("sub1")).toBe("abc");
    expect(again.searchParams.get(HINTS_ASKED_PARAM)).toBe("1");
    expect(await clicksFrom(ip)).toHaveLength(0);

    // Chrome follows it with the hints.
    const repeated = await tap(
      ip,
      { "user-agent": REDUCED, ...LOW_ENTROPY, ...PIXEL_HINTS },
      `${again.pathname}${again.search}`,
    );
    expect(repeated.status).toBe(302);
    const clickId = clickIdOfReferrer(
      new URL(repeated.headers.get("location") ?? "").searchParams.get("referrer"),
    );
    const clicks = await clicksFrom(ip);
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({
      clickId,
      platform: "android",
      deviceModel: "Pixel 8",
      osVersion: "14",
      userAgent: REDUCED,
      urlParams: { sub1: "abc" },
    });
  });

  it("matches an install of the hinted model at a full agent's confidence, and not one of another model", async () => {
    // A full agent's tap and install, for the confidence to hold the hinted one to.
    await tap("81.2.69.202", { "user-agent": FULL });
    await install("full-agent-1", "81.2.69.202");
    const full = await attributionOf("full-agent-1");
    expect(full).toMatchObject({ matching_type: "geo", media_source: "hinted_ads" });

    await tap("81.2.69.203", { "user-agent": REDUCED, ...LOW_ENTROPY, ...PIXEL_HINTS });
    await install("hinted-1", "81.2.69.203");
    const hinted = await attributionOf("hinted-1");
    expect(hinted).toMatchObject({
      matching_type: "geo",
      media_source: "hinted_ads",
      confidence_score: full.confidence_score,
    });
    expect(hinted.confidence_score).toBe("medium");

    await tap("81.2.69.204", { "user-agent": REDUCED, ...LOW_ENTROPY, ...PIXEL_HINTS });
    await install("other-model-1", "81.2.69.204", "SM-S911B");
    expect(await attributionOf("other-model-1")).toEqual({
      service_match_status: "organic",
      media_source: "organic",
    });
  });

  it("never asks twice: a repeat still without the hints is recorded and sent on", async () => {
    const ip = "81.2.69.205";
    const marked = await tap(
      ip,
      { "user-agent": REDUCED, ...LOW_ENTROPY },
      `/${link.deeplink_id}?${HINTS_ASKED_PARAM}=1`,
    );
    expect(marked.status).toBe(302);
    expect(marked.headers.get("location")).toMatch(/^https:\/\/play\.google\.com\//);
    const clicks = await clicksFrom(ip);
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({ deviceModel: null, osVersion: null, urlParams: {} });
  });

  it("answers a browser that sends no client hints as before", async () => {
    const ip = "81.2.69.206";
    const plain = await tap(ip, { "user-agent": REDUCED });
    expect(plain.status).toBe(302);
    expect(plain.headers.get("location")).toMatch(/^https:\/\/play\.google\.com\//);
    expect(await clicksFrom(ip)).toHaveLength(1);
  });
});
