/**
 * Links, taps on the link host, an ad network's touches and the attribution an SDK reads of
 * them, on any target: links made over the API and with the CLI, app settings with the CLI.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { LinkAnswer } from "../../../src/links/links.ts";
import { clickIdOfReferrer } from "../../../src/touches/destination.ts";
import { PIXEL } from "../../support/agents.ts";
import { androidInstallRequest } from "../../support/installs.ts";
import { itAll, itNeeds, type Keys, openTarget, type Target } from "../../support/target.ts";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const DESKTOP =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const FINGERPRINT =
  "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

const androidInstall = androidInstallRequest;

describe("links, taps and touches", () => {
  let target: Target;
  let app: string;
  let keys: Keys;
  let iosKeys: Keys;

  const makeLink = async (body: Record<string, unknown>) => {
    const response = await target.post("/v1/links", body, keys.serverKey);
    expect(response.status).toBe(201);
    return (await response.json()) as LinkAnswer;
  };

  /** The attribution an SDK reads, once it is no longer pending. */
  const attributionOf = (serviceId: string) =>
    target.eventually(`${serviceId} is attributed`, async () => {
      const response = await target.get(
        `/v1/installs/${serviceId}/attribution?wait_seconds=10`,
        keys.sdkKey,
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, string>;
      expect(body.service_match_status).not.toBe("pending");
      return body;
    });

  beforeAll(async () => {
    target = await openTarget();
    app = target.appId("com.example.linked");
    keys = await target.createApp(app, "android");
    await target.cli(
      "apps",
      "config",
      "--app-id",
      app,
      "--web-url",
      "https://game.example.com/",
      "--android-sha256",
      FINGERPRINT,
    );
    const iosApp = target.appId("com.example.linked.ios");
    iosKeys = await target.createApp(iosApp, "ios");
    await target.cli("apps", "config", "--app-id", iosApp, "--app-store-id", "1234567890");
  });

  afterAll(() => target?.dispose());

  itAll("makes a link over the API, reads it back, and lists it", async () => {
    const link = await makeLink({
      media_source: "facebook_ads",
      campaign_name: "Winter",
      deep_link_path: "/levels/7",
      params: { promo: "WINTER" },
    });
    expect(link.deeplink_id).toMatch(/^[0-9A-Za-z]{11}$/);
    const url = new URL(link.url);
    expect(url.pathname).toBe(`/${link.deeplink_id}`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      deep_link_path: "/levels/7",
      promo: "WINTER",
    });
    const read = await target.get(`/v1/links/${link.deeplink_id}`, keys.serverKey);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(link);
    const listed = await target.get("/v1/links?limit=100", keys.serverKey);
    const page = (await listed.json()) as { data: LinkAnswer[] };
    expect(page.data.map((l) => l.deeplink_id)).toContain(link.deeplink_id);
  });

  itAll("refuses a bad link body, and keys without the links scope", async () => {
    const bad = await target.post("/v1/links", { campaign_id: "1" }, keys.serverKey);
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: string }).detail).toContain("media_source");
    expect((await target.post("/v1/links", { media_source: "x" }, keys.sdkKey)).status).toBe(401);
    expect((await target.get("/v1/links/not-an-id", keys.serverKey)).status).toBe(422);
  });

  itAll("lists an app's links newest first, page by page, and never another app's", async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await target.post(
        "/v1/links",
        { media_source: "paging", campaign_id: String(i) },
        iosKeys.serverKey,
      );
      expect(response.status).toBe(201);
      made.push(((await response.json()) as LinkAnswer).deeplink_id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : "?limit=2";
      const response = await target.get(`/v1/links${query}`, iosKeys.serverKey);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: LinkAnswer[]; next_cursor: string | null };
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((link) => link.deeplink_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...made].reverse());

    // Another app's link is as unknown as a link that does not exist.
    expect((await target.get(`/v1/links/${made[0]}`, keys.serverKey)).status).toBe(404);
    expect((await target.get("/v1/links?limit=0", iosKeys.serverKey)).status).toBe(422);
    expect((await target.get("/v1/links?cursor=bogus", iosKeys.serverKey)).status).toBe(422);
    // A cursor made by hand, of keys no page gives, is as wrong as one that does not parse.
    for (const forged of [
      { deeplinkId: "", createdKey: "" },
      { deeplinkId: made[0], createdKey: "2026-01-01T00:00:00.000Z#another" },
    ]) {
      const cursor = Buffer.from(JSON.stringify(forged)).toString("base64url");
      const answer = await target.get(`/v1/links?cursor=${cursor}`, iosKeys.serverKey);
      expect(answer.status, JSON.stringify(forged)).toBe(422);
    }
  });

  itAll("makes a link with the CLI that the API then shows", async () => {
    const made = JSON.parse(
      await target.cli(
        "links",
        "create",
        "--app-id",
        app,
        "--media-source",
        "tiktok",
        "--campaign-name",
        "Spring",
        "--json",
      ),
    ) as { deeplink_id: string; url: string };
    const read = await target.get(`/v1/links/${made.deeplink_id}`, keys.serverKey);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ media_source: "tiktok", campaign_name: "Spring" });
  });

  itAll(
    "sets a link's landing page, forwarding and preview with the CLI, and changes them",
    async () => {
      const made = JSON.parse(
        await target.cli(
          "links",
          "create",
          "--app-id",
          app,
          "--media-source",
          "chats",
          "--landing-page",
          "--no-forward-params",
          "--preview-title",
          "Winter Cup",
          "--preview-image-url",
          "https://cdn.example.com/winter.png",
          "--json",
        ),
      ) as LinkAnswer;
      expect(made).toMatchObject({
        landing_page: true,
        forward_params: false,
        preview_title: "Winter Cup",
        preview_image_url: "https://cdn.example.com/winter.png",
      });
      await target.cli(
        "links",
        "update",
        made.deeplink_id,
        "--app-id",
        app,
        "--landing-page",
        "off",
        "--forward-params",
        "on",
        "--preview-title",
        "",
      );
      const read = await target.get(`/v1/links/${made.deeplink_id}`, keys.serverKey);
      expect(await read.json()).toMatchObject({
        landing_page: false,
        forward_params: true,
        preview_title: null,
        preview_image_url: "https://cdn.example.com/winter.png",
      });
    },
  );

  itNeeds(
    ["linkHost"],
    "gives a desktop the landing page of an app with no web site, and a chat's crawler the app's preview",
    async () => {
      const iosApp = target.appId("com.example.linked.ios");
      await target.cli("apps", "config", "--app-id", iosApp, "--preview-title", "The iOS game");
      const response = await target.post("/v1/links", { media_source: "qr" }, iosKeys.serverKey);
      const link = (await response.json()) as LinkAnswer;
      const desktop = await target.tap(`/${link.deeplink_id}`, { "user-agent": DESKTOP });
      expect(desktop.status).toBe(200);
      expect(desktop.headers.get("content-security-policy")).toContain("default-src 'none'");
      const page = await desktop.text();
      expect(page).toContain(`<h1 dir="auto">App ${iosApp}</h1>`);
      expect(page).toContain(
        'data-store="app-store" href="https://apps.apple.com/app/id1234567890"',
      );
      expect(page).toContain('<svg role="img"');

      await target.eventually("the crawler sees the app's preview", async () => {
        const slack = await target.tap(`/${link.deeplink_id}`, {
          "user-agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        });
        expect(slack.status).toBe(200);
        expect(await slack.text()).toContain('<meta property="og:title" content="The iOS game">');
      });
    },
  );

  itNeeds(["linkHost"], "names the link host in a link's URL", async () => {
    const link = await makeLink({ media_source: "x" });
    expect(new URL(link.url).origin).toBe(new URL(target.linkUrl).origin);
  });

  itNeeds(
    ["linkHost"],
    "sends an Android tap to the Play Store with its click id, a desktop to the web, and an unknown link to a 404",
    async () => {
      const link = await makeLink({ media_source: "facebook_ads" });
      const android = await target.tap(`/${link.deeplink_id}?sub1=abc`, { "user-agent": PIXEL });
      expect(android.status).toBe(302);
      expect(android.headers.get("cache-control")).toBe("no-store");
      const location = new URL(android.headers.get("location") ?? "");
      expect(location.origin + location.pathname).toBe(
        "https://play.google.com/store/apps/details",
      );
      expect(location.searchParams.get("id")).toBe(app);
      expect(clickIdOfReferrer(location.searchParams.get("referrer"))).toMatch(/^[0-9A-Za-z]{22}$/);

      const desktop = await target.tap(`/${link.deeplink_id}`, { "user-agent": DESKTOP });
      expect(desktop.status).toBe(302);
      expect(desktop.headers.get("location")).toBe("https://game.example.com/");

      const unknown = await target.tap("/AAAAAAAAAAA", { "user-agent": PIXEL });
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toContain("Link not found");
    },
  );

  itNeeds(["linkHost"], "sends an iPhone's tap to the App Store page the CLI set", async () => {
    const response = await target.post("/v1/links", { media_source: "tiktok" }, iosKeys.serverKey);
    const link = (await response.json()) as LinkAnswer;
    const tap = await target.tap(`/${link.deeplink_id}`, { "user-agent": IPHONE });
    expect(tap.status).toBe(302);
    expect(tap.headers.get("location")).toBe("https://apps.apple.com/app/id1234567890");
  });

  itNeeds(
    ["linkHost"],
    "serves assetlinks.json with the app's fingerprint set by the CLI",
    async () => {
      await target.eventually("assetlinks.json names the app", async () => {
        const response = await target.tap("/.well-known/assetlinks.json");
        expect(response.status).toBe(200);
        const statements = (await response.json()) as {
          target: { package_name: string; sha256_cert_fingerprints: string[] };
        }[];
        expect(statements.find((s) => s.target.package_name === app)?.target).toMatchObject({
          sha256_cert_fingerprints: [FINGERPRINT],
        });
      });
    },
  );

  itNeeds(
    ["linkHost"],
    "attributes an install to the tap whose click id its Play referrer brings back",
    async () => {
      const link = await makeLink({
        media_source: "facebook_ads",
        campaign_id: "123",
        campaign_name: "Winter",
        deep_link_path: "/levels/7",
        params: { promo: "WINTER" },
      });
      const tap = await target.tap(`/${link.deeplink_id}`, { "user-agent": PIXEL });
      const referrer =
        new URL(tap.headers.get("location") ?? "").searchParams.get("referrer") ?? "";
      const serviceId = randomUUID();
      const now = Math.floor(Date.now() / 1000);
      const installed = await target.post(
        "/v1/installs",
        androidInstall(serviceId, {
          install_referrer: {
            referrer,
            click_timestamp: now - 5,
            install_begin_timestamp: now - 2,
          },
        }),
        keys.sdkKey,
      );
      expect(installed.status).toBe(202);
      expect(await attributionOf(serviceId)).toMatchObject({
        service_match_status: "matched",
        media_source: "facebook_ads",
        campaign_id: "123",
        campaign_name: "Winter",
        deep_link_path: "/levels/7",
        promo: "WINTER",
        matching_type: "network",
        confidence_score: "high",
      });
    },
  );

  itAll(
    "takes a network's touches, answers each, and refuses keys without the s2s scope",
    async () => {
      const response = await target.post(
        "/v1/touches",
        {
          touches: [
            {
              touch_type: "click",
              touch_time: minutesAgo(5),
              media_source: "network_a",
              maid: randomUUID(),
            },
            { touch_type: "view", touch_time: minutesAgo(1), media_source: "network_a" },
          ],
        },
        keys.serverKey,
      );
      expect(response.status).toBe(202);
      const answer = (await response.json()) as {
        accepted: { index: number; click_id: string }[];
        rejected: { index: number; detail: string }[];
      };
      expect(answer.accepted.map((a) => a.index)).toEqual([0]);
      expect(answer.rejected.map((r) => r.index)).toEqual([1]);
      expect(answer.rejected[0]?.detail).toContain("touch_type");
      expect((await target.post("/v1/touches", { touches: [{}] }, keys.sdkKey)).status).toBe(401);
      const empty = await target.post("/v1/touches", { touches: [] }, keys.serverKey);
      expect(empty.status).toBe(422);
      expect(((await empty.json()) as { detail: string }).detail).toContain("touches");
      const tooMany = await target.post(
        "/v1/touches",
        { touches: Array.from({ length: 1_001 }, () => ({})) },
        keys.serverKey,
      );
      expect(tooMany.status).toBe(422);
      expect((await target.post("/v1/touches", "not json", keys.serverKey)).status).toBe(400);
    },
  );

  itAll("attributes an install to a network's click on its advertising id", async () => {
    const gaid = randomUUID();
    const reported = await target.post(
      "/v1/touches",
      {
        touches: [
          {
            touch_type: "click",
            touch_time: new Date(Date.now() - 2 * 3_600_000).toISOString(),
            media_source: "network_b",
            campaign_name: "Spring",
            maid: gaid,
          },
        ],
      },
      keys.serverKey,
    );
    expect(reported.status).toBe(202);
    const serviceId = randomUUID();
    await target.post("/v1/installs", androidInstall(serviceId, { maid: gaid }), keys.sdkKey);
    expect(await attributionOf(serviceId)).toMatchObject({
      service_match_status: "matched_no_params",
      media_source: "network_b",
      campaign_name: "Spring",
      matching_type: "network",
      click_to_first_open_hours: "2",
    });
  });
});
