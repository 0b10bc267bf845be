import { describe, expect, it } from "vitest";
import { appleAppSiteAssociation, assetLinks, crowdedHostsOf } from "./well-known.ts";

const FINGERPRINT =
  "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5";

const iosGame = {
  appId: "com.example.game.ios",
  platform: "ios" as const,
  links: { appleTeamId: "9JA89QQLNQ" },
};
const androidGame = {
  appId: "com.example.game",
  platform: "android" as const,
  links: { androidSha256Fingerprints: [FINGERPRINT] },
};
const apps = [iosGame, androidGame];

/** Apps without the settings a file needs: the service's own host may carry another owner's. */
const bare = { appId: "com.example.bare", platform: "ios" as const };
const unsigned = {
  appId: "com.example.unsigned",
  platform: "android" as const,
  links: { androidSha256Fingerprints: [] },
};

describe("the .well-known files", () => {
  it("lists each iOS app with a team id in apple-app-site-association, in both generations' keys", () => {
    expect(appleAppSiteAssociation(apps)).toEqual({
      applinks: {
        apps: [],
        details: [
          {
            appIDs: ["9JA89QQLNQ.com.example.game.ios"],
            components: [{ "/": "/*", comment: "Every link of this host." }],
            appID: "9JA89QQLNQ.com.example.game.ios",
            paths: ["*"],
          },
        ],
      },
    });
  });

  it("lists each Android app with certificates in assetlinks.json", () => {
    expect(assetLinks(apps)).toEqual([
      {
        relation: ["delegate_permission/common.handle_all_urls"],
        target: {
          namespace: "android_app",
          package_name: "com.example.game",
          sha256_cert_fingerprints: [FINGERPRINT],
        },
      },
    ]);
    expect(assetLinks([])).toEqual([]);
  });

  it("lists no app whose settings lack what its file needs: an iOS app without a team id, an Android one without certificates", () => {
    expect(appleAppSiteAssociation([bare]).applinks.details).toEqual([]);
    expect(assetLinks([unsigned])).toEqual([]);
  });
});

describe("a host that carries another app of the platform, without the settings", () => {
  it("claims no path: the listed app would open for the other's links", () => {
    expect(appleAppSiteAssociation([...apps, bare]).applinks.details).toEqual([]);
    expect(assetLinks([...apps, unsigned])).toEqual([]);
    // The other platform's one app still.
    expect(assetLinks([...apps, bare]).map((link) => link.target.package_name)).toEqual([
      "com.example.game",
    ]);
    expect(appleAppSiteAssociation([...apps, unsigned]).applinks.details).toHaveLength(1);
  });
});

describe("a host with two apps of one platform", () => {
  const twoOfEach = [
    ...apps,
    {
      appId: "com.example.other.ios",
      platform: "ios" as const,
      links: { appleTeamId: "ABCDE12345" },
    },
    {
      appId: "com.example.other",
      platform: "android" as const,
      links: { androidSha256Fingerprints: [FINGERPRINT] },
    },
  ];

  it("claims no path for either: each would open for the other's links", () => {
    expect(appleAppSiteAssociation(twoOfEach).applinks.details).toEqual([]);
    expect(assetLinks(twoOfEach)).toEqual([]);
  });

  it("still claims the other platform's one app", () => {
    const iosTwice = twoOfEach.filter((app) => app.appId !== "com.example.other");
    expect(appleAppSiteAssociation(iosTwice).applinks.details).toEqual([]);
    expect(assetLinks(iosTwice).map((link) => link.target.package_name)).toEqual([
      "com.example.game",
    ]);
  });
});

describe("an app in both stores", () => {
  const android = {
    appId: "com.example.shop",
    platform: "android" as const,
    links: {
      appStoreId: "1234567890",
      iosBundleId: "com.example.shop.ios",
      appleTeamId: "9JA89QQLNQ",
      androidSha256Fingerprints: [FINGERPRINT],
    },
  };
  const ios = {
    appId: "com.example.shop.ios",
    platform: "ios" as const,
    links: {
      playPackage: "com.example.shop",
      appleTeamId: "9JA89QQLNQ",
      androidSha256Fingerprints: [FINGERPRINT],
    },
  };

  it("is claimed for its other store's build: an Android app's iOS bundle id, an iOS app's Play package", () => {
    expect(appleAppSiteAssociation([android]).applinks.details.map((d) => d.appIDs)).toEqual([
      ["9JA89QQLNQ.com.example.shop.ios"],
    ]);
    expect(assetLinks([ios]).map((link) => link.target.package_name)).toEqual(["com.example.shop"]);
  });

  it("is one build with the app of the other platform that is the same build", () => {
    expect(appleAppSiteAssociation([android, ios]).applinks.details.map((d) => d.appID)).toEqual([
      "9JA89QQLNQ.com.example.shop.ios",
    ]);
    expect(assetLinks([android, ios])).toHaveLength(1);
  });

  it("claims nothing where the host carries another build of that platform", () => {
    expect(appleAppSiteAssociation([android, iosGame]).applinks.details).toEqual([]);
    expect(assetLinks([ios, androidGame])).toEqual([]);
  });

  it("without the other store's id is an app of its own platform only", () => {
    const { iosBundleId: _, ...links } = android.links;
    expect(appleAppSiteAssociation([{ ...android, links }, iosGame]).applinks.details).toHaveLength(
      1,
    );
  });
});

describe("the hosts whose files leave an app out", () => {
  const shop = { appId: "com.example.shop", platform: "ios" as const };

  it("names the other builds of the platform on the app's host, for a file that would list it", () => {
    // The service's own host: every app without a host of its own.
    expect(crowdedHostsOf(iosGame, [iosGame, androidGame, shop])).toEqual([
      { host: null, platform: "ios", others: ["com.example.shop"] },
    ]);
    // Android has one build there: listed, nothing to say.
    expect(crowdedHostsOf(androidGame, [iosGame, androidGame, shop])).toEqual([]);
  });

  it("says nothing of an app the file would not list anyway, or one on a host of its own", () => {
    expect(crowdedHostsOf(shop, [iosGame, shop])).toEqual([]);
    const own = { ...iosGame, links: { ...iosGame.links, hosts: ["go.game.example"] } };
    expect(crowdedHostsOf(own, [own, shop])).toEqual([]);
    // An Android app naming the same iOS build is that build: one build, listed.
    const both = { ...androidGame, links: { ...androidGame.links, iosBundleId: iosGame.appId } };
    expect(crowdedHostsOf(iosGame, [iosGame, both])).toEqual([]);
  });
});
