import { describe, expect, it } from "vitest";
import { appsOfHost } from "../../links/app-settings.ts";
import { testLink } from "../../links/link.test-support.ts";
import type { App } from "../../ports/apps.ts";
import type { Touch } from "../../ports/touches.ts";
import { clickIdOfReferrer } from "../../touches/destination.ts";
import { apiEvent, CONTEXT } from "../api-event.test-support.ts";
import { createClickHandler } from "./link-host.ts";

const app = (appId: string, hosts?: string[]): App => ({
  appId,
  name: appId,
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
  ...(hosts ? { links: { hosts } } : {}),
});

describe("appsOfHost", () => {
  const apps = [app("own", ["go.example.com"]), app("plain"), app("other", ["links.other.com"])];

  it("gives the apps that name the host asked, whatever its case or a closing dot", () => {
    expect(appsOfHost(apps, "Go.Example.com").map((a) => a.appId)).toEqual(["own"]);
    expect(appsOfHost(apps, "go.example.com.").map((a) => a.appId)).toEqual(["own"]);
  });

  it("gives the apps naming no host on the service's own host", () => {
    expect(appsOfHost(apps, "127.0.0.1:8788").map((a) => a.appId)).toEqual(["plain"]);
    expect(appsOfHost(apps, undefined).map((a) => a.appId)).toEqual(["plain"]);
  });
});

/** An Android app's id is its Play package, which its taps are sent to. */
const PLAIN = "com.example.plain";

describe("the tap route", () => {
  const link = testLink({ appId: PLAIN });
  const stored: Touch[] = [];
  const failures: unknown[] = [];
  const handler = (storeFails = false, trustViewerAddress?: boolean) =>
    createClickHandler({
      ...(trustViewerAddress === undefined ? {} : { trustViewerAddress }),
      links: { get: async (id) => (id === link.deeplinkId ? link : undefined) },
      apps: { get: async (appId) => (appId === PLAIN ? app(PLAIN) : undefined) },
      allApps: async () => [app(PLAIN), app("com.example.brand", ["go.brand.example"])],
      clicks: {
        record: async (click) => {
          if (storeFails) throw new Error("store down");
          stored.push(click);
        },
      },
      countries: { countryOf: () => null },
      onRecordFailure: (error) => failures.push(error),
    });
  const android = {
    "User-Agent":
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  };

  it("answers the plain 404 page to an event with no link in its path (AWS's catch-all route)", async () => {
    const response = await handler()(apiEvent({ path: "/a/b", headers: android }), CONTEXT);
    expect(response.statusCode).toBe(404);
    expect(response.headers["content-type"]).toContain("text/html");
    expect(response.headers["content-security-policy"]).toMatch(/^default-src 'none'/);
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("opens no other app's link on a host an app names as its own, and every app's elsewhere", async () => {
    // The catch-all route's form of the path, which the handler reads the link from.
    const path = `/${link.deeplinkId}/`;
    const on = (host: string) => apiEvent({ path, headers: { ...android, Host: host } });
    const count = stored.length;
    // The brand's domain is no redirector for another app's link (whose web URL anyone sets).
    expect((await handler()(on("go.brand.example"), CONTEXT)).statusCode).toBe(404);
    expect((await handler()(on("GO.BRAND.EXAMPLE"), CONTEXT)).statusCode).toBe(404);
    expect(stored.length).toBe(count);
    expect((await handler()(on("127.0.0.1:8788"), CONTEXT)).statusCode).toBe(302);
    expect(stored.length).toBe(count + 1);
  });

  it("refuses a prefetch, counting nothing, so that the tap asks again", async () => {
    const path = `/${link.deeplinkId}/`;
    const count = stored.length;
    const purposes: Record<string, string>[] = [
      { "Sec-Purpose": "prefetch" },
      { "Sec-Purpose": "prefetch;prerender" },
      { Purpose: "prefetch" },
      { "X-Purpose": "preview" },
      { "X-Moz": "prefetch" },
      // Behind the CDN, folded into one header.
      { "X-Tap-Fetch": "sec-purpose=prefetch&sec-fetch-mode=navigate" },
    ];
    for (const purpose of purposes) {
      const response = await handler()(
        apiEvent({ path, headers: { ...android, ...purpose } }),
        CONTEXT,
      );
      // Refused, and not as a failure of the service's own (no 5xx, which its alarm counts).
      expect(response.statusCode).toBe(425);
      expect(response.headers["cache-control"]).toBe("no-store");
    }
    expect(stored.length).toBe(count);
    // The tap itself.
    expect((await handler()(apiEvent({ path, headers: android }), CONTEXT)).statusCode).toBe(302);
    expect(stored.length).toBe(count + 1);
  });

  it("sends on, counting nothing, a page that embeds the link: an image's, a script's, a fetch's, a frame no one tapped", async () => {
    const path = `/${link.deeplinkId}/`;
    const count = stored.length;
    const embeds: Record<string, string>[] = [
      { "Sec-Fetch-Dest": "image", "Sec-Fetch-Mode": "no-cors" },
      { "Sec-Fetch-Dest": "script", "Sec-Fetch-Mode": "no-cors" },
      { "Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors" },
      { "Sec-Fetch-Dest": "iframe", "Sec-Fetch-Mode": "navigate" },
      { "X-Tap-Fetch": "sec-fetch-dest=image&sec-fetch-mode=no-cors" },
    ];
    for (const embed of embeds) {
      const response = await handler()(
        apiEvent({ path, headers: { ...android, ...embed } }),
        CONTEXT,
      );
      expect(response.statusCode, JSON.stringify(embed)).toBe(302);
      const location = new URL(response.headers.location ?? "");
      expect(clickIdOfReferrer(location.searchParams.get("referrer"))).toBeNull();
    }
    expect(stored.length).toBe(count);
    // A person's tap: a page's, or one inside a frame.
    const taps: Record<string, string>[] = [
      { "Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-User": "?1" },
      { "Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate" },
      { "Sec-Fetch-Dest": "iframe", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-User": "?1" },
      { "X-Tap-Fetch": "sec-fetch-dest=document&sec-fetch-mode=navigate&sec-fetch-user=%3F1" },
    ];
    for (const tap of taps) {
      const response = await handler()(
        apiEvent({ path, headers: { ...android, ...tap } }),
        CONTEXT,
      );
      const location = new URL(response.headers.location ?? "");
      expect(
        clickIdOfReferrer(location.searchParams.get("referrer")),
        JSON.stringify(tap),
      ).not.toBeNull();
    }
    expect(stored.length).toBe(count + taps.length);
  });

  it("takes a link pasted with a final slash that only the catch-all route took (on AWS)", async () => {
    const response = await handler()(
      apiEvent({ path: `/${link.deeplinkId}/`, headers: android, sourceIp: "81.2.69.143" }),
      CONTEXT,
    );
    expect(response.statusCode).toBe(302);
    expect(new URL(response.headers.location ?? "").origin).toBe("https://play.google.com");
    expect(stored.at(-1)).toMatchObject({ ip: "81.2.69.143", deeplinkId: link.deeplinkId });
    // Two slashes, or a segment before or after the link, name no link.
    for (const path of [
      `/${link.deeplinkId}//`,
      `/${link.deeplinkId}/x`,
      `/x/${link.deeplinkId}/`,
      "//",
    ]) {
      const other = await handler()(apiEvent({ path, headers: android }), CONTEXT);
      expect(other.statusCode).toBe(404);
    }
  });

  it("takes a link an auto-linker took in with what followed it, and no longer id", async () => {
    for (const tail of [")", ".", ",", "%20", "%E2%80%8B", "\u200b", "&utm_source=x"]) {
      const response = await handler()(
        apiEvent({
          path: `/${link.deeplinkId}${tail}`,
          params: { deeplink_id: `${link.deeplinkId}${tail}` },
          headers: android,
        }),
        CONTEXT,
      );
      expect(response.statusCode, tail).toBe(302);
      expect(stored.at(-1)?.deeplinkId).toBe(link.deeplinkId);
    }
    // Another letter or digit makes another id, which names no link.
    const longer = await handler()(
      apiEvent({
        path: `/${link.deeplinkId}x`,
        params: { deeplink_id: `${link.deeplinkId}x` },
        headers: android,
      }),
      CONTEXT,
    );
    expect(longer.statusCode).toBe(404);
  });

  it("still redirects a tap whose click could not be stored, without a click id, and says so in the log", async () => {
    const response = await handler(true)(
      apiEvent({
        params: { deeplink_id: link.deeplinkId },
        headers: android,
        sourceIp: "81.2.69.142",
      }),
      CONTEXT,
    );
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location ?? "");
    expect(location.origin).toBe("https://play.google.com");
    // The Play referrer names no click: none was stored for the install to come back to.
    expect(clickIdOfReferrer(location.searchParams.get("referrer"))).toBeNull();
    expect(failures).toHaveLength(1);
  });

  it("records the tap with the caller's address before it answers", async () => {
    const response = await handler()(
      apiEvent({
        params: { deeplink_id: link.deeplinkId },
        headers: android,
        sourceIp: "81.2.69.142",
      }),
      CONTEXT,
    );
    expect(response.statusCode).toBe(302);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(stored.at(-1)).toMatchObject({
      ip: "81.2.69.142",
      platform: "android",
      deeplinkId: link.deeplinkId,
    });
  });

  const tapVia = async (viewerAddress: string, trustViewerAddress?: boolean) => {
    await handler(false, trustViewerAddress)(
      apiEvent({
        params: { deeplink_id: link.deeplinkId },
        // CloudFront's own address as API Gateway sees it, and the viewer's in the header.
        headers: { ...android, "CloudFront-Viewer-Address": viewerAddress },
        sourceIp: "130.176.98.7",
      }),
      CONTEXT,
    );
    return stored.at(-1)?.ip;
  };

  it("records the viewer's address CloudFront forwards when the link host stands behind it", async () => {
    expect(await tapVia("81.2.69.142:443", true)).toBe("81.2.69.142");
    expect(await tapVia("2001:db8::1:51234", true)).toBe("2001:db8::1");
    expect(await tapVia("[2001:db8::1]:443", true)).toBe("2001:db8::1");
    // A header that holds no address leaves the one API Gateway saw.
    expect(await tapVia("nonsense", true)).toBe("130.176.98.7");
  });

  it("ignores the viewer-address header unless told to trust it: any client can send one", async () => {
    expect(await tapVia("81.2.69.142:443")).toBe("130.176.98.7");
    expect(await tapVia("81.2.69.142:443", false)).toBe("130.176.98.7");
  });

  it("asks Chrome's reduced agent for its hints without recording, and records its repeat", async () => {
    const reduced = {
      "User-Agent":
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
      "Sec-CH-UA": '"Chromium";v="131"',
    };
    const before = stored.length;
    const asked = await handler()(
      apiEvent({ params: { deeplink_id: link.deeplinkId }, headers: reduced }),
      CONTEXT,
    );
    expect(asked.statusCode).toBe(302);
    // Asked for, not made critical: a Critical-CH restart would replay the whole redirect chain.
    expect(asked.headers["critical-ch"]).toBeUndefined();
    expect(asked.headers["accept-ch"]).toBe("Sec-CH-UA-Model, Sec-CH-UA-Platform-Version");
    // The query alone: the path the browser tapped, prefix and all, is kept.
    expect(asked.headers.location).toBe("?service_hints=1");
    expect(stored).toHaveLength(before);
    // A repeated parameter keeps every value, as tapped.
    const withQuery = await handler()(
      {
        ...apiEvent({
          params: { deeplink_id: link.deeplinkId },
          query: { sub1: "y", a: "b c" },
          headers: reduced,
        }),
        multiValueQueryStringParameters: { sub1: ["x", "y"], a: ["b c"] },
      },
      CONTEXT,
    );
    expect(withQuery.headers.location).toBe("?sub1=x&sub1=y&a=b+c&service_hints=1");
    expect(stored).toHaveLength(before);
    const repeated = await handler()(
      apiEvent({
        params: { deeplink_id: link.deeplinkId },
        query: { service_hints: "1" },
        headers: {
          ...reduced,
          "Sec-CH-UA-Model": '"Pixel 8"',
          "Sec-CH-UA-Platform-Version": '"14.0.0"',
        },
      }),
      CONTEXT,
    );
    expect(repeated.statusCode).toBe(302);
    expect(stored.at(-1)).toMatchObject({ deviceModel: "Pixel 8", osVersion: "14" });
  });

  it("records the last value of a repeated parameter, whichever its gateway's single-value map kept", async () => {
    const tapped = await handler()(
      {
        ...apiEvent({
          params: { deeplink_id: link.deeplinkId },
          query: { promo: "A" },
          headers: android,
        }),
        multiValueQueryStringParameters: { promo: ["A", "B"] },
      },
      CONTEXT,
    );
    expect(tapped.statusCode).toBe(302);
    expect(stored.at(-1)?.urlParams).toEqual({ promo: "B" });
  });

  it("records the parameters of a gateway that passes only its single-value map", async () => {
    const tapped = await handler()(
      apiEvent({
        params: { deeplink_id: link.deeplinkId },
        query: { promo: "A" },
        headers: android,
      }),
      CONTEXT,
    );
    expect(tapped.statusCode).toBe(302);
    expect(stored.at(-1)?.urlParams).toEqual({ promo: "A" });
  });

  it("answers a desktop with nowhere to go with the landing page and its policy, and a crawler with the preview", async () => {
    const desktop = {
      "User-Agent":
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    };
    const page = await handler()(
      apiEvent({ params: { deeplink_id: link.deeplinkId }, headers: desktop }),
      CONTEXT,
    );
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.headers["set-cookie"]).toBeUndefined();
    expect(String(page.body)).toContain('<svg role="img"');
    expect(stored.at(-1)).toMatchObject({ platform: "other", deeplinkId: link.deeplinkId });

    const before = stored.length;
    const preview = await handler()(
      apiEvent({
        params: { deeplink_id: link.deeplinkId },
        headers: { "User-Agent": "Twitterbot/1.0" },
      }),
      CONTEXT,
    );
    expect(preview.statusCode).toBe(200);
    expect(String(preview.body)).toContain('<meta name="twitter:card" content="summary">');
    expect(stored).toHaveLength(before);
  });
});
