/**
 * The two files a link host serves so that a tap on a link opens the installed app directly
 * instead of the browser: Apple's `apple-app-site-association` (Universal Links) and Google's
 * Digital Asset Links `assetlinks.json` (App Links). Each lists the apps whose links the host
 * carries, from their settings; an app without the settings a file needs is left out of it.
 */

export interface AppLinkSettings {
  /** The bundle id of an iOS app, the package name of an Android one. */
  readonly appId: string;
  readonly platform: "android" | "ios";
  /** Apple's team id (10 characters), which prefixes the bundle id in the file. */
  readonly appleTeamId?: string | null;
  /** SHA-256 fingerprints of the Android app's signing certificates (`AB:CD:…`, 32 pairs). */
  readonly androidSha256Fingerprints?: readonly string[] | null;
}

export const APPLE_TEAM_ID_PATTERN = /^[A-Z0-9]{10}$/;
export const SHA256_FINGERPRINT_PATTERN = /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/;

/**
 * `apple-app-site-association`: every path of the host opens the app (a link is
 * `/<deeplink_id>`). `appIDs` and `components` are read by iOS 13 and later; `appID` and
 * `paths`, which older versions read, are given beside them.
 */
export const appleAppSiteAssociation = (apps: readonly AppLinkSettings[]) => {
  const appIds = apps
    .filter((app) => app.platform === "ios" && app.appleTeamId)
    .map((app) => `${app.appleTeamId}.${app.appId}`);
  return {
    applinks: {
      apps: [],
      details: appIds.map((appId) => ({
        appIDs: [appId],
        components: [{ "/": "/*", comment: "Every link of this host." }],
        appID: appId,
        paths: ["*"],
      })),
    },
  };
};

/** `assetlinks.json`: each Android app with its certificates may handle every URL of the host. */
export const assetLinks = (apps: readonly AppLinkSettings[]) =>
  apps
    .filter((app) => app.platform === "android" && (app.androidSha256Fingerprints ?? []).length > 0)
    .map((app) => ({
      relation: ["delegate_permission/common.handle_all_urls"],
      target: {
        namespace: "android_app",
        package_name: app.appId,
        sha256_cert_fingerprints: [...(app.androidSha256Fingerprints ?? [])],
      },
    }));
