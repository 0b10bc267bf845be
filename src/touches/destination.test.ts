import { describe, expect, it } from "vitest";
import { androidOpenerOf, clickIdOfReferrer, destinationOf, storesOf } from "./destination.ts";

/** A click id of the link host's shape: 22 letters and digits. */
const CLICK = "C1ick1dC1ick1dC1ick1d0";

const android = {
  appId: "com.example.game",
  platform: "android" as const,
  links: { webUrl: "https://game.example.com/" },
};
const ios = {
  appId: "com.example.game.ios",
  platform: "ios" as const,
  links: { appStoreId: "1234567890" },
};
const link = { mediaSource: "facebook_ads", campaignName: "Winter Sale" };

describe("destinationOf", () => {
  it("sends Android to the Play Store with a referrer that carries the click id back", () => {
    const url = new URL(destinationOf("android", android, link, CLICK) ?? "");
    expect(url.origin + url.pathname).toBe("https://play.google.com/store/apps/details");
    expect(url.searchParams.get("id")).toBe("com.example.game");
    const referrer = url.searchParams.get("referrer");
    expect(clickIdOfReferrer(referrer)).toBe(CLICK);
    expect(new URLSearchParams(referrer ?? "").get("utm_source")).toBe("facebook_ads");
    expect(new URLSearchParams(referrer ?? "").get("utm_campaign")).toBe("Winter Sale");
  });

  it("adds no referrer for a tap that is not counted", () => {
    expect(destinationOf("android", android, link, null)).toBe(
      "https://play.google.com/store/apps/details?id=com.example.game",
    );
  });

  it("sends iOS to the App Store and anything else to the web", () => {
    expect(destinationOf("ios", ios, link, "c")).toBe("https://apps.apple.com/app/id1234567890");
    expect(destinationOf("other", android, link, "c")).toBe("https://game.example.com/");
    // No web site: nowhere (the landing page, with its QR code, for a desktop).
    expect(destinationOf("other", ios, link, "c")).toBeNull();
  });

  it("sends an Android device without Google Play to the web, or to the link's own Android URL elsewhere", () => {
    const noPlay = (app: Parameters<typeof destinationOf>[1], own: { androidUrl?: string } = {}) =>
      destinationOf("android", app, { ...link, ...own }, CLICK, {}, false);
    expect(noPlay(android)).toBe("https://game.example.com/");
    // The app's page in another store, which the link names: that one.
    const gallery = "https://appgallery.huawei.com/app/C100000000";
    expect(noPlay(android, { androidUrl: gallery })).toBe(gallery);
    // Neither a site nor another store: nowhere (the landing page).
    expect(noPlay({ ...android, links: {} })).toBeNull();
  });

  it("lets the link's own destinations win, still carrying the referrer to a Play Store URL", () => {
    const own = {
      ...link,
      androidUrl: "https://play.google.com/store/apps/details?id=com.example.game&hl=de",
      iosUrl: "https://apps.apple.com/de/app/id1234567890",
      webUrl: "https://game.example.com/winter",
    };
    const url = new URL(destinationOf("android", android, own, CLICK) ?? "");
    expect(url.searchParams.get("hl")).toBe("de");
    expect(clickIdOfReferrer(url.searchParams.get("referrer"))).toBe(CLICK);
    // Play's host written with `www.`: Play all the same, which carries the referrer.
    const www = { ...own, androidUrl: own.androidUrl.replace("//play.", "//www.play.") };
    const wwwUrl = new URL(destinationOf("android", android, www, CLICK) ?? "");
    expect(clickIdOfReferrer(wwwUrl.searchParams.get("referrer"))).toBe(CLICK);
    expect(destinationOf("ios", ios, own, CLICK)).toBe(own.iosUrl);
    expect(destinationOf("other", android, own, CLICK)).toBe(own.webUrl);
  });

  it("keeps the referrer a link's own Play URL carries, its UTM values first, with the click id", () => {
    const own = {
      ...link,
      androidUrl:
        "https://play.google.com/store/apps/details?id=com.example.game&referrer=utm_source%3Dgoogle%26utm_medium%3Dcpc%26gclid%3Dabc%26service_click_id%3Dstale&hl=de",
    };
    const url = new URL(destinationOf("android", android, own, CLICK) ?? "");
    const referrer = new URLSearchParams(url.searchParams.get("referrer") ?? "");
    expect(clickIdOfReferrer(url.searchParams.get("referrer"))).toBe(CLICK);
    expect(referrer.getAll("service_click_id")).toEqual([CLICK]);
    expect(referrer.get("utm_source")).toBe("google");
    expect(referrer.get("utm_medium")).toBe("cpc");
    expect(referrer.get("gclid")).toBe("abc");
    // The link's campaign where the marketer's referrer named none.
    expect(referrer.get("utm_campaign")).toBe("Winter Sale");
    expect(url.searchParams.get("hl")).toBe("de");
  });

  it("names the link's campaign in the referrer only where the link has one and the marketer's has none", () => {
    const referrerOf = (destination: string | null) =>
      new URLSearchParams(new URL(destination ?? "").searchParams.get("referrer") ?? "");
    const unnamed = { mediaSource: "facebook_ads", campaignName: null };
    expect(referrerOf(destinationOf("android", android, unnamed, CLICK)).has("utm_campaign")).toBe(
      false,
    );
    const marketers = {
      ...link,
      androidUrl:
        "https://play.google.com/store/apps/details?id=com.example.game&referrer=utm_campaign%3Dblack_friday",
    };
    expect(
      referrerOf(destinationOf("android", android, marketers, CLICK)).getAll("utm_campaign"),
    ).toEqual(["black_friday"]);
  });

  it("has nowhere to send a tap for an app that names no store page or site", () => {
    const bare = { appId: "com.example.game.ios", platform: "ios" as const };
    expect(destinationOf("ios", bare, link, CLICK)).toBeNull();
    expect(destinationOf("android", bare, link, CLICK)).toBeNull();
    expect(destinationOf("other", bare, link, CLICK)).toBeNull();
    expect(storesOf("ios", bare, link, CLICK)).toEqual([]);
  });

  it("gives a web destination the tapped URL's parameters it has none of, and a store none", () => {
    const tapped = { utm_campaign: "spring", gclid: "G 1&x", lang: "de" };
    const web = { ...link, webUrl: "https://game.example.com/land?lang=en#top" };
    expect(destinationOf("other", android, web, null, tapped)).toBe(
      "https://game.example.com/land?lang=en&utm_campaign=spring&gclid=G+1%26x#top",
    );
    expect(destinationOf("other", android, link, CLICK, tapped)).toBe(
      "https://game.example.com/?utm_campaign=spring&gclid=G+1%26x&lang=de",
    );
    expect(destinationOf("other", android, link, CLICK, {})).toBe("https://game.example.com/");
    const store = new URL(destinationOf("android", android, link, CLICK, tapped) ?? "");
    expect(store.searchParams.has("gclid")).toBe(false);
  });

  it("sends a device of the other platform to the web, or says there is nowhere to go", () => {
    expect(destinationOf("ios", android, link, "c")).toBe("https://game.example.com/");
    expect(destinationOf("android", ios, link, "c")).toBeNull();
  });

  it("sends no tap to a Play page of an Android app whose id no package can have", () => {
    const unlisted = { ...android, appId: "game-android" };
    expect(destinationOf("android", unlisted, link, CLICK)).toBe("https://game.example.com/");
    expect(destinationOf("android", { ...unlisted, links: {} }, link, CLICK)).toBeNull();
    expect(storesOf("other", unlisted, link, null)).toEqual([]);
  });

  it("sends an iPhone to the App Store page of an Android app that names its iOS build", () => {
    const both = { ...android, links: { ...android.links, appStoreId: "1234567890" } };
    expect(destinationOf("ios", both, link, "c")).toBe("https://apps.apple.com/app/id1234567890");
  });

  it("sends an Android phone to the Play page of an iOS app that names its Android build", () => {
    const both = { ...ios, links: { ...ios.links, playPackage: "com.example.game" } };
    const url = new URL(destinationOf("android", both, link, CLICK) ?? "");
    expect(url.origin + url.pathname).toBe("https://play.google.com/store/apps/details");
    expect(url.searchParams.get("id")).toBe("com.example.game");
    // The install comes back on the Android build, with the click id Play hands it.
    expect(clickIdOfReferrer(url.searchParams.get("referrer"))).toBe(CLICK);
    expect(storesOf("other", both, link, null).map((s) => s.store)).toEqual([
      "google-play",
      "app-store",
    ]);
  });
});

describe("androidOpenerOf", () => {
  const tapped = "https://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7&sub1=a%26b";
  const play = `https://play.google.com/store/apps/details?id=com.example.game&referrer=service_click_id%3D${CLICK}`;

  it("opens the link in the app by its package, else goes to the Play page with the click's referrer", () => {
    expect(androidOpenerOf(android, tapped, play)).toBe(
      `intent://go.example.com/Kx3v9QpZ2aQ?deep_link_path=%2Flevels%2F7&sub1=a%26b#Intent;scheme=https;package=com.example.game;S.browser_fallback_url=${encodeURIComponent(play)};end`,
    );
    // The fallback, read back as Android reads an intent's extra, is the Play page unchanged.
    const opener = androidOpenerOf(android, tapped, play) ?? "";
    const extra = /S\.browser_fallback_url=([^;]*);/.exec(opener)?.[1] ?? "";
    expect(decodeURIComponent(extra)).toBe(play);
  });

  it("names an iOS app's Android build, keeps a link host's port and scheme, and may have no fallback", () => {
    const iosBoth = { ...ios, links: { playPackage: "com.example.game.android" } };
    expect(androidOpenerOf(iosBoth, "http://127.0.0.1:8788/abc", null)).toBe(
      "intent://127.0.0.1:8788/abc#Intent;scheme=http;package=com.example.game.android;end",
    );
  });

  it("has none for an app with no Android package, or a link no intent carries", () => {
    expect(androidOpenerOf(ios, tapped, null)).toBeNull();
    expect(androidOpenerOf({ ...android, appId: "game-android" }, tapped, null)).toBeNull();
    expect(androidOpenerOf(android, "ftp://go.example.com/abc", null)).toBeNull();
    expect(androidOpenerOf(android, "not a url", null)).toBeNull();
  });
});

describe("storesOf", () => {
  const both = { ...android, links: { appStoreId: "1234567890" } };

  it("lists each store the app is in, the tapper's first, Play's with the click's referrer", () => {
    const fromAndroid = storesOf("android", both, link, CLICK);
    expect(fromAndroid.map((s) => s.store)).toEqual(["google-play", "app-store"]);
    expect(clickIdOfReferrer(new URL(fromAndroid[0]?.url ?? "").searchParams.get("referrer"))).toBe(
      CLICK,
    );
    expect(storesOf("ios", both, link, "c").map((s) => s.store)).toEqual([
      "app-store",
      "google-play",
    ]);
    expect(storesOf("other", android, link, null)).toEqual([
      {
        platform: "android",
        store: "google-play",
        url: "https://play.google.com/store/apps/details?id=com.example.game",
      },
    ]);
    expect(storesOf("android", ios, link, "c")).toEqual([
      { platform: "ios", store: "app-store", url: "https://apps.apple.com/app/id1234567890" },
    ]);
    expect(storesOf("other", { ...ios, links: {} }, link, "c")).toEqual([]);
  });

  it("sends each button where a redirect would: the link's own destinations first", () => {
    const own = {
      ...link,
      androidUrl: "https://play.google.com/store/apps/details?id=com.example.game&listing=winter",
      iosUrl: "https://apps.apple.com/app/id1234567890?ppid=6c0fb2d5",
    };
    const [play, appStore] = storesOf("other", android, own, CLICK);
    expect(play?.store).toBe("google-play");
    expect(new URL(play?.url ?? "").searchParams.get("listing")).toBe("winter");
    expect(clickIdOfReferrer(new URL(play?.url ?? "").searchParams.get("referrer"))).toBe(CLICK);
    // The app has no App Store id; the link's own iOS page is still a button.
    expect(appStore).toEqual({ platform: "ios", store: "app-store", url: own.iosUrl });
    // Apple's older store host is the App Store all the same.
    const itunes = { ...link, iosUrl: "https://itunes.apple.com/app/id1234567890" };
    expect(storesOf("ios", android, itunes, CLICK)[0]).toEqual({
      platform: "ios",
      store: "app-store",
      url: itunes.iosUrl,
    });
    // A page in no store is the platform's button all the same.
    const elsewhere = { ...link, androidUrl: "https://galaxystore.samsung.com/detail/com.example" };
    expect(storesOf("android", ios, elsewhere, "c")).toEqual([
      { platform: "android", store: null, url: elsewhere.androidUrl },
      { platform: "ios", store: "app-store", url: "https://apps.apple.com/app/id1234567890" },
    ]);
  });
});

describe("clickIdOfReferrer", () => {
  it("reads the click id as Play hands the referrer over", () => {
    expect(clickIdOfReferrer(`service_click_id=${CLICK}&utm_source=fb`)).toBe(CLICK);
  });

  it("reads it from a referrer encoded once more, or from the Play URL's whole query", () => {
    const referrer = `service_click_id=${CLICK}&utm_source=fb`;
    expect(clickIdOfReferrer(encodeURIComponent(referrer))).toBe(CLICK);
    expect(clickIdOfReferrer(`id=com.example.game&referrer=${encodeURIComponent(referrer)}`)).toBe(
      CLICK,
    );
    // The Play URL's query passed on encoded itself, its referrer within it encoded twice.
    const twice = encodeURIComponent(encodeURIComponent(referrer));
    expect(clickIdOfReferrer(`id=com.example.game&referrer=${twice}`)).toBe(CLICK);
  });

  it("takes nothing that is no click id of the link host's shape", () => {
    expect(clickIdOfReferrer("service_click_id=x")).toBeNull();
    expect(clickIdOfReferrer(`service_click_id=${"é".repeat(800)}`)).toBeNull();
    expect(clickIdOfReferrer("utm_source=google-play&utm_medium=organic")).toBeNull();
    expect(clickIdOfReferrer("%E0%A4%A")).toBeNull();
    expect(clickIdOfReferrer(null)).toBeNull();
  });

  it("reads no deeper than the shapes a client passes on, nor inside another parameter's value", () => {
    const referrer = `service_click_id=${CLICK}`;
    // Three times encoded: none of the shapes a client passes on.
    const thrice = encodeURIComponent(encodeURIComponent(encodeURIComponent(referrer)));
    expect(clickIdOfReferrer(thrice)).toBeNull();
    // A query whose value holds an escaped click id: the value is the campaign's, not a referrer.
    expect(clickIdOfReferrer(`utm_content=x${encodeURIComponent(`&${referrer}`)}`)).toBeNull();
  });
});
