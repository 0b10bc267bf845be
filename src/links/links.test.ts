import { describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../domain/errors.ts";
import type { App } from "../ports/apps.ts";
import type { Link, LinkStore } from "../ports/links.ts";
import { testLink } from "./link.test-support.ts";
import { LINK_LIMITS } from "./link-limits.ts";
import { createLinks, linkAnswer, linkUrl } from "./links.ts";

const app: App = {
  appId: "com.example.game",
  name: "Game",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};

const memoryLinks = (taken: string[] = []): LinkStore & { stored: Map<string, Link> } => {
  const stored = new Map<string, Link>();
  return {
    stored,
    create: async (link) => {
      if (stored.has(link.deeplinkId) || taken.includes(link.deeplinkId)) return false;
      stored.set(link.deeplinkId, link);
      return true;
    },
    get: async (id) => stored.get(id),
    listByApp: async () => ({ links: [...stored.values()], next: null }),
    update: async (appId, id, change) => {
      const link = stored.get(id);
      if (!link || link.appId !== appId) return undefined;
      const defined = Object.entries(change).filter(([, value]) => value !== undefined);
      const updated = { ...link, ...Object.fromEntries(defined) };
      stored.set(id, updated);
      return updated;
    },
  };
};

describe("linkUrl", () => {
  it("puts the id in the path and deep_link_path and the parameters in the query, encoded", () => {
    const url = linkUrl("https://go.example.com/", "Kx3v9QpZ2aQ", {
      deepLinkPath: "/levels/7?x=1",
      params: { promo: "WINTER & more", "a.b": "ü" },
    });
    expect(url).toBe(
      "https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7%3Fx%3D1&promo=WINTER+%26+more&a.b=%C3%BC",
    );
    const parsed = new URL(url);
    expect(parsed.pathname.split("/").filter(Boolean)).toEqual(["Kx3v9QpZ2aQ"]);
    expect(Object.fromEntries(parsed.searchParams)).toEqual({
      deep_link_path: "/levels/7?x=1",
      promo: "WINTER & more",
      "a.b": "ü",
    });
  });
});

describe("createLinks", () => {
  const ids = (...values: string[]) => {
    const queue = [...values];
    return () => queue.shift() ?? "ZZZZZZZZZZZ";
  };

  it("names the app's own link host when it has one, else the service's", async () => {
    const store = memoryLinks();
    const links = (owned: App) =>
      createLinks({
        links: store,
        apps: { get: async () => owned },
        linkBaseUrl: () => "http://127.0.0.1:8788",
        newId: ids("AAAAAAAAAAA"),
      });
    const plain = await links(app).create(app.appId, { media_source: "x" });
    expect(plain.url).toBe("http://127.0.0.1:8788/AAAAAAAAAAA");
    const hosted = { ...app, links: { hosts: ["go.example.com", "links.example.com"] } };
    const own = await links(hosted).create(app.appId, { media_source: "x" });
    expect(own.url).toBe("https://go.example.com/ZZZZZZZZZZZ");
    // A host with a port is one's own machine's: its scheme is the service's link host's.
    const local = { ...app, links: { hosts: ["links.test:8788"] } };
    const onThisMachine = createLinks({
      links: memoryLinks(),
      apps: { get: async () => local },
      linkBaseUrl: () => "http://127.0.0.1:8788",
      newId: ids("CCCCCCCCCCC"),
    });
    expect((await onThisMachine.create(app.appId, { media_source: "x" })).url).toBe(
      "http://links.test:8788/CCCCCCCCCCC",
    );
  });

  it("tries another id when one is taken", async () => {
    const store = memoryLinks(["AAAAAAAAAAA"]);
    const links = createLinks({
      links: store,
      apps: { get: async () => app },
      linkBaseUrl: () => "http://127.0.0.1:8788",
      newId: ids("AAAAAAAAAAA", "BBBBBBBBBBB"),
    });
    expect((await links.create(app.appId, { media_source: "x" })).deeplinkId).toBe("BBBBBBBBBBB");
  });

  it("refuses a bad body and answers another app's link as unknown", async () => {
    const store = memoryLinks();
    const links = createLinks({
      links: store,
      apps: { get: async () => app },
      linkBaseUrl: () => "http://127.0.0.1:8788",
    });
    await expect(links.create(app.appId, { params: { promo: 1 } })).rejects.toThrow(
      ValidationError,
    );
    const made = await links.create(app.appId, { media_source: "x" });
    await expect(links.get("com.example.other", made.deeplinkId)).rejects.toThrow(NotFoundError);
    await expect(
      links.update("com.example.other", made.deeplinkId, { disabled: true }),
    ).rejects.toThrow(NotFoundError);
    expect((await links.update(app.appId, made.deeplinkId, { disabled: true })).disabled).toBe(
      true,
    );
  });

  it("refuses, storing nothing, a link whose URL would be longer than a link may be", async () => {
    const store = memoryLinks();
    const links = createLinks({
      links: store,
      apps: { get: async () => app },
      linkBaseUrl: () => "http://127.0.0.1:8788",
    });
    // Each param within its own bounds; encoded, "ü" takes six characters of the URL.
    const params = (value: string) =>
      Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, value]));
    const fits = await links.create(app.appId, {
      media_source: "x",
      params: params("a".repeat(480)),
    });
    expect(fits.url.length).toBeGreaterThan(3_900);
    expect(fits.url.length).toBeLessThanOrEqual(LINK_LIMITS.maxLinkUrlLength);
    await expect(
      links.create(app.appId, { media_source: "x", params: params("ü".repeat(100)) }),
    ).rejects.toThrow(/the link's URL would be 4\d{3} characters, over the 4096 a link may have/);
    expect((await store.listByApp(app.appId, { limit: 10 })).links).toHaveLength(1);
  });

  it("takes a URL of the longest a link may have, and not a character more", async () => {
    const store = memoryLinks();
    const links = createLinks({
      links: store,
      apps: { get: async () => app },
      linkBaseUrl: () => "http://127.0.0.1:8788",
      newId: ids("AAAAAAAAAAA", "BBBBBBBBBBB"),
    });
    const eight = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`k${i}`, "a".repeat(480)]),
    );
    const without = linkUrl("http://127.0.0.1:8788", "AAAAAAAAAAA", {
      deepLinkPath: null,
      params: eight,
    }).length;
    const pad = LINK_LIMITS.maxLinkUrlLength - without - "&k8=".length;
    const longest = await links.create(app.appId, {
      media_source: "x",
      params: { ...eight, k8: "b".repeat(pad) },
    });
    expect(longest.url.length).toBe(LINK_LIMITS.maxLinkUrlLength);
    await expect(
      links.create(app.appId, { media_source: "x", params: { ...eight, k8: "b".repeat(pad + 1) } }),
    ).rejects.toThrow(ValidationError);
  });

  it("keeps every field a link is made with, and its defaults where none is given", async () => {
    const links = createLinks({
      links: memoryLinks(),
      apps: { get: async () => app },
      linkBaseUrl: () => "http://127.0.0.1:8788",
      newId: ids("AAAAAAAAAAA", "BBBBBBBBBBB"),
      now: () => new Date("2026-11-30T10:00:00.000Z"),
    });
    const made = await links.create(app.appId, {
      media_source: "facebook_ads",
      campaign_id: "c1",
      campaign_name: "Winter",
      adset_id: "s1",
      adset_name: "Set",
      ad_id: "a1",
      ad_name: "Ad",
      deep_link_path: "/levels/7",
      params: { promo: "W" },
      android_url: "https://play.example/x",
      ios_url: "https://apps.example/x",
      web_url: "https://www.example.com/x",
      landing_page: true,
      forward_params: false,
      preview_title: "Title",
      preview_description: "Words",
      preview_image_url: "https://cdn.example.com/p.png",
    });
    expect(made).toEqual({
      deeplinkId: "AAAAAAAAAAA",
      appId: app.appId,
      url: "http://127.0.0.1:8788/AAAAAAAAAAA?deep_link_path=%2Flevels%2F7&promo=W",
      mediaSource: "facebook_ads",
      campaignId: "c1",
      campaignName: "Winter",
      adsetId: "s1",
      adsetName: "Set",
      adId: "a1",
      adName: "Ad",
      deepLinkPath: "/levels/7",
      params: { promo: "W" },
      androidUrl: "https://play.example/x",
      iosUrl: "https://apps.example/x",
      webUrl: "https://www.example.com/x",
      disabled: false,
      landingPage: true,
      forwardParams: false,
      previewTitle: "Title",
      previewDescription: "Words",
      previewImageUrl: "https://cdn.example.com/p.png",
      cost: null,
      createdAt: "2026-11-30T10:00:00.000Z",
    });
    // None given: each optional field at its default, as the store's test link has them.
    const plain = await links.create(app.appId, { media_source: "x" });
    expect(plain).toEqual(
      testLink({
        deeplinkId: "BBBBBBBBBBB",
        appId: app.appId,
        url: "http://127.0.0.1:8788/BBBBBBBBBBB",
        mediaSource: "x",
        createdAt: "2026-11-30T10:00:00.000Z",
      }),
    );
  });

  it("keeps a link's cost, answers it, and changes or clears it only when asked", async () => {
    const links = createLinks({
      links: memoryLinks(),
      apps: { get: async () => app },
      linkBaseUrl: () => "http://127.0.0.1:8788",
    });
    const made = await links.create(app.appId, {
      media_source: "x",
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "EUR",
    });
    expect(made.cost).toEqual({ model: "CPI", value: 2.5, currency: "EUR" });
    expect(linkAnswer(made)).toMatchObject({
      cost_model: "CPI",
      cost_value: 2.5,
      cost_currency: "EUR",
    });
    const plain = await links.create(app.appId, { media_source: "x" });
    expect(plain.cost).toBeNull();
    expect(linkAnswer(plain)).toMatchObject({
      cost_model: null,
      cost_value: null,
      cost_currency: null,
    });
    // A change of something else leaves the cost.
    expect((await links.update(app.appId, made.deeplinkId, { disabled: true })).cost).toEqual(
      made.cost,
    );
    const cpc = { cost_model: "CPC", cost_value: 0.1, cost_currency: "USD" };
    expect((await links.update(app.appId, made.deeplinkId, cpc)).cost).toEqual({
      model: "CPC",
      value: 0.1,
      currency: "USD",
    });
    const clear = { cost_model: null, cost_value: null, cost_currency: null };
    expect((await links.update(app.appId, made.deeplinkId, clear)).cost).toBeNull();
    await expect(
      links.update(app.appId, made.deeplinkId, { cost_model: "CPC", cost_value: 1 }),
    ).rejects.toThrow(ValidationError);
  });
});
