import { describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "../domain/errors.ts";
import type { App } from "../ports/apps.ts";
import {
  checkAppStoreIdFree,
  checkLinkHostsFree,
  hostServesApp,
  hostsTakenBy,
  withLinkSettings,
} from "./app-settings.ts";

const FINGERPRINT =
  "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5";

const app: App = {
  appId: "com.example.game",
  name: "Game",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};

describe("withLinkSettings", () => {
  it("sets what a change names and keeps the rest", () => {
    const first = withLinkSettings(app, {
      webUrl: "https://game.example.com/",
      hosts: ["Go.Example.com", "go.example.com"],
    });
    const second = withLinkSettings(first, {
      androidSha256Fingerprints: [FINGERPRINT.toLowerCase()],
    });
    expect(second.links).toEqual({
      webUrl: "https://game.example.com/",
      hosts: ["go.example.com"],
      androidSha256Fingerprints: [FINGERPRINT],
    });
    expect(second.name).toBe("Game");
  });

  it("takes an Apple team id in any case, kept in Apple's capitals", () => {
    expect(withLinkSettings(app, { appleTeamId: "9ja89qqlnq" }).links?.appleTeamId).toBe(
      "9JA89QQLNQ",
    );
  });

  it("clears a setting given as empty, and the settings once none is left", () => {
    const set = withLinkSettings(app, { appStoreId: "1234567890", hosts: ["go.example.com"] });
    expect(withLinkSettings(set, { hosts: [] }).links?.hosts).toBeUndefined();
    const cleared = withLinkSettings(set, { appStoreId: "", hosts: [] });
    expect(cleared).toEqual(app);
    expect("links" in cleared).toBe(false);
  });

  it.each([
    [{ appStoreId: "id123" }, "appStoreId: must be the App Store's numeric app id"],
    // Apple writes the id as a number: one set with a leading zero would match no postback.
    [{ appStoreId: "0123456789" }, "appStoreId: must be the App Store's numeric app id"],
    [{ appleTeamId: "9ja89qqln" }, "appleTeamId: must be 10 letters or digits"],
    [{ appleTeamId: "9JA89QQLN-" }, "appleTeamId: must be 10 letters or digits"],
    [{ webUrl: "ftp://example.com" }, "webUrl: must be an http or https URL"],
    [{ hosts: ["https://go.example.com"] }, "hosts[0]: must be a host name"],
    [{ androidSha256Fingerprints: [FINGERPRINT.slice(3)] }, "must be a SHA-256 fingerprint"],
  ])("refuses %j", (change, message) => {
    expect(() => withLinkSettings(app, change)).toThrow(ValidationError);
    expect(() => withLinkSettings(app, change)).toThrow(message);
  });

  it("lets an iOS app name its Android build's Play package, and refuses it of an Android app", () => {
    const iosApp: App = { ...app, appId: "com.example.game.ios", platform: "ios" };
    const set = withLinkSettings(iosApp, { playPackage: "com.example.game" });
    expect(set.links).toEqual({ playPackage: "com.example.game" });
    expect(withLinkSettings(set, { playPackage: "" })).toEqual(iosApp);
    for (const bad of ["game", "com.example.", "com.1game", "com.example game"]) {
      expect(() => withLinkSettings(iosApp, { playPackage: bad })).toThrow(
        "playPackage: must be a Google Play package name",
      );
    }
    expect(() => withLinkSettings(app, { playPackage: "com.example.other" })).toThrow(
      /an Android app's Play package is its app id \(com\.example\.game\)/,
    );
  });

  it("lets an Android app name its iOS build's bundle id, and refuses it of an iOS app", () => {
    const set = withLinkSettings(app, { iosBundleId: "com.example.Game-iOS" });
    expect(set.links).toEqual({ iosBundleId: "com.example.Game-iOS" });
    expect(withLinkSettings(set, { iosBundleId: "" })).toEqual(app);
    for (const bad of ["game", "com.example.", "com.example game", "com.example_game"]) {
      expect(() => withLinkSettings(app, { iosBundleId: bad })).toThrow(
        "iosBundleId: must be an iOS bundle id",
      );
    }
    const iosApp: App = { ...app, appId: "com.example.game.ios", platform: "ios" };
    expect(() => withLinkSettings(iosApp, { iosBundleId: "com.example.other" })).toThrow(
      /an iOS app's bundle id is its app id \(com\.example\.game\.ios\)/,
    );
  });
});

describe("an app's landing page languages and link preview defaults", () => {
  it("keeps the languages in their order, the first the default, and the preview", () => {
    const set = withLinkSettings(app, {
      languages: ["DE", "en", "de"],
      previewTitle: "Example Game",
      previewDescription: "Race through the snowy castle.",
      previewImageUrl: "https://cdn.example.com/card.png",
    });
    expect(set.links).toEqual({
      languages: ["de", "en"],
      previewTitle: "Example Game",
      previewDescription: "Race through the snowy castle.",
      previewImageUrl: "https://cdn.example.com/card.png",
    });
    // Cleared: English again, and each link's own preview or the app's name.
    expect(
      withLinkSettings(set, {
        languages: [],
        previewTitle: "",
        previewDescription: "",
        previewImageUrl: "",
      }).links,
    ).toBeUndefined();
  });

  it("refuses a language with no strings table and a preview that breaks a link's rules", () => {
    expect(() => withLinkSettings(app, { languages: ["xx"] })).toThrow(
      /languages\[0\]: must be one of en, de/,
    );
    expect(() =>
      withLinkSettings(app, { previewImageUrl: "http://cdn.example.com/a.png" }),
    ).toThrow(/previewImageUrl: must be an https URL/);
    expect(() =>
      withLinkSettings(app, { previewImageUrl: "https://user:secret@cdn.example.com/a.png" }),
    ).toThrow(/previewImageUrl: must not hold a user name or password/);
    expect(() => withLinkSettings(app, { previewTitle: "t".repeat(101) })).toThrow(
      /previewTitle: must be at most 100 characters/,
    );
  });
});

describe("checkAppStoreIdFree", () => {
  const other = { appId: "com.example.other", links: { appStoreId: "1234567890" } };
  it("refuses an App Store id another app has, and takes one of none or of the app itself", () => {
    const wanting = withLinkSettings(app, { appStoreId: "1234567890" });
    expect(() => checkAppStoreIdFree(wanting, [app, other])).toThrow(ConflictError);
    // Named only to one who may see that app.
    expect(() => checkAppStoreIdFree(wanting, [app, other])).toThrow(
      "App Store id 1234567890 is another app's already",
    );
    expect(() =>
      checkAppStoreIdFree(wanting, [app, other], { maySee: (id) => id === other.appId }),
    ).toThrow("App Store id 1234567890 is app com.example.other's already");
    expect(() => checkAppStoreIdFree(wanting, [wanting])).not.toThrow();
    expect(() => checkAppStoreIdFree(app, [app, other])).not.toThrow();
    const elsewhere = withLinkSettings(app, { appStoreId: "999" });
    expect(() => checkAppStoreIdFree(elsewhere, [app, other])).not.toThrow();
  });
});

describe("checkLinkHostsFree", () => {
  const brand = { appId: "com.brand.game", links: { hosts: ["go.brand.com"] } };
  it("refuses a new host the deployment does not serve, and keeps one the app named already", () => {
    const own = withLinkSettings(app, { hosts: ["go.example.com", "go.other.example"] });
    const served = { served: ["go.example.com"] };
    expect(() => checkLinkHostsFree(own, [own], served)).toThrow(ConflictError);
    expect(() => checkLinkHostsFree(own, [own], served)).toThrow(
      "Link host go.other.example is not served by this deployment yet: its operator adds it to the stack (-c linkAppHosts",
    );
    expect(() =>
      checkLinkHostsFree(own, [own], { ...served, kept: ["go.other.example"] }),
    ).not.toThrow();
    // Where any host is served (the embedded runtime), any.
    expect(() => checkLinkHostsFree(own, [own], { served: null })).not.toThrow();
    expect(() => checkLinkHostsFree(own, [own])).not.toThrow();
  });

  it("refuses a host another app names, and the service's own link host, with or without its port", () => {
    const taking = withLinkSettings(app, { hosts: ["Go.Brand.com"] });
    expect(() => checkLinkHostsFree(taking, [brand, taking])).toThrow(ConflictError);
    expect(() => checkLinkHostsFree(taking, [brand, taking])).toThrow(
      "Link host go.brand.com is another app's already",
    );
    // The app's own host again, or a host no one names.
    expect(() => checkLinkHostsFree(brand, [brand, app])).not.toThrow();
    const own = withLinkSettings(app, { hosts: ["go.example.com"] });
    expect(() =>
      checkLinkHostsFree(own, [brand, own], { serviceLinkBase: "https://links.service.io/" }),
    ).not.toThrow();
    // One who may manage the brand's app too may share its host (its other platform's app).
    expect(() =>
      checkLinkHostsFree(taking, [brand, taking], { mayShareWith: (id) => id === brand.appId }),
    ).not.toThrow();
    for (const [host, base] of [
      ["links.service.io", "https://links.service.io/"],
      ["127.0.0.1:8788", "http://127.0.0.1:8788"],
      ["127.0.0.1", "http://127.0.0.1:8788"],
      ["127.0.0.1:9999", "http://127.0.0.1:8788"],
    ] as const) {
      const service = withLinkSettings(app, { hosts: [host] });
      expect(() => checkLinkHostsFree(service, [service], { serviceLinkBase: base }), host).toThrow(
        /is the service's own link host/,
      );
    }
  });
});

describe("a link host the DNS proves", () => {
  const squatter = {
    appId: "com.squatter.game",
    links: { hosts: ["go.brand.com", "go.squat.com"] },
  };
  const twin = { appId: "com.brand.game.android", links: { hosts: ["go.brand.com"] } };
  const brand = withLinkSettings(app, { hosts: ["go.brand.com"] });
  const proven = (...apps: string[]) =>
    new Map([["go.brand.com", { answered: true as const, apps: new Set(apps) }]]);

  it("may be named by the app its records name, and is taken from the apps they do not", () => {
    expect(() => checkLinkHostsFree(brand, [squatter, brand])).toThrow(
      `add to its DNS a TXT record _attribution.go.brand.com with the value "attribution-app=${app.appId}"`,
    );
    expect(() =>
      checkLinkHostsFree(brand, [squatter, brand], { proofs: proven("com.other") }),
    ).toThrow(ConflictError);
    expect(() =>
      checkLinkHostsFree(brand, [squatter, brand], {
        proofs: new Map([["go.brand.com", { answered: false }]]),
      }),
    ).toThrow("Its DNS did not answer for the TXT record _attribution.go.brand.com");
    // Records that name another app take nothing from anyone for the brand.
    expect(hostsTakenBy(brand, [squatter, twin, brand], { proofs: proven("com.other") })).toEqual(
      [],
    );
    const proofs = proven(app.appId);
    expect(() => checkLinkHostsFree(brand, [squatter, brand], { proofs })).not.toThrow();
    // A host the app named before the change stays its, whatever the DNS answers now.
    expect(() =>
      checkLinkHostsFree(brand, [squatter, brand], { kept: ["go.brand.com"] }),
    ).not.toThrow();
    expect(hostsTakenBy(brand, [squatter, twin, brand], { proofs })).toEqual([
      { appId: squatter.appId, hosts: ["go.brand.com"] },
      { appId: twin.appId, hosts: ["go.brand.com"] },
    ]);
    // An app the records name too, or one whose maker may share with the brand, keeps it.
    expect(
      hostsTakenBy(brand, [squatter, twin, brand], { proofs: proven(app.appId, twin.appId) }),
    ).toEqual([{ appId: squatter.appId, hosts: ["go.brand.com"] }]);
    expect(
      hostsTakenBy(brand, [squatter, twin, brand], {
        proofs,
        mayShareWith: (id) => id === twin.appId,
      }),
    ).toEqual([{ appId: squatter.appId, hosts: ["go.brand.com"] }]);
  });

  it("is no hint where no DNS record can prove a host: an address or a host with its port", () => {
    const local = { appId: "com.local", links: { hosts: ["links.test:8788"] } };
    const taking = withLinkSettings(app, { hosts: ["links.test:8788"] });
    expect(() => checkLinkHostsFree(taking, [local, taking])).toThrow(/one owner only\.$/);
  });
});

describe("hostServesApp", () => {
  const brand = { appId: "com.brand.game", links: { hosts: ["go.brand.com"] } };
  const other = { appId: "com.other.game" };

  it("serves every app on a host no app names, and only the naming apps on one named", () => {
    expect(hostServesApp([brand, other], "links.service.test", other)).toBe(true);
    expect(hostServesApp([brand, other], "GO.brand.com", brand)).toBe(true);
    expect(hostServesApp([brand, other], "go.brand.com", other)).toBe(false);
    // The same host written as a fully qualified name.
    expect(hostServesApp([brand, other], "go.brand.com.", other)).toBe(false);
    expect(hostServesApp([brand, other], "Go.Brand.com.", brand)).toBe(true);
    // And with its port.
    const local = { appId: "com.local.game", links: { hosts: ["links.test:8788"] } };
    expect(hostServesApp([local, other], "Links.Test.:8788", other)).toBe(false);
    expect(hostServesApp([local, other], "Links.Test.:8788", local)).toBe(true);
  });

  it("serves an app on a host its own settings name before the list of apps shows it", () => {
    const twin = { appId: "com.brand.game.ios", links: { hosts: ["go.brand.com"] } };
    // The list is older than the twin's settings: it shows the brand's app alone on the host.
    expect(hostServesApp([brand, { appId: twin.appId }], "go.brand.com", twin)).toBe(true);
  });
});
