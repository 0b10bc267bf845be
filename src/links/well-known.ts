/**
 * The two files a link host serves so that a tap on a link opens the installed app directly
 * instead of the browser: Apple's `apple-app-site-association` (Universal Links) and Google's
 * Digital Asset Links `assetlinks.json` (App Links). Each lists the apps whose links the host
 * carries, from their settings; an app without the settings a file needs is left out of it.
 *
 * A link's path is a random id, not a path of its app's own, so an app listed claims every path
 * of the host. An app listed where the host carries another app of its platform would claim the
 * other's links too, and the phone would open it, when installed, for every tap of the other's
 * (on the service's own host, another owner's app): a host that carries more than one app of a
 * platform lists none of that platform, whether or not the others have the settings a file
 * needs, and its taps reach the link host, which sends each on as its link says. Such apps need
 * a host each.
 */
import type { App } from "../ports/apps.ts";

type LinkedApp = Pick<App, "appId" | "platform" | "links">;

/** The host's one app of the platform, if it carries only one: the one it may claim for. */
const soleApp = (apps: readonly LinkedApp[], platform: App["platform"]): LinkedApp[] => {
  const ofPlatform = apps.filter((app) => app.platform === platform);
  return ofPlatform.length === 1 ? ofPlatform : [];
};

/**
 * `apple-app-site-association`: every path of the host opens the app (a link is
 * `/<deeplink_id>`). `appIDs` and `components` are read by iOS 13 and later; `appID` and
 * `paths`, which older versions read, are given beside them.
 */
export const appleAppSiteAssociation = (apps: readonly LinkedApp[]) => {
  const appIds = soleApp(apps, "ios").flatMap((app) =>
    app.links?.appleTeamId ? [`${app.links.appleTeamId}.${app.appId}`] : [],
  );
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

/** `assetlinks.json`: the Android app with its certificates may handle every URL of the host. */
export const assetLinks = (apps: readonly LinkedApp[]) =>
  soleApp(apps, "android").flatMap((app) => {
    const fingerprints = app.links?.androidSha256Fingerprints ?? [];
    if (fingerprints.length === 0) return [];
    return [
      {
        relation: ["delegate_permission/common.handle_all_urls"],
        target: {
          namespace: "android_app",
          package_name: app.appId,
          sha256_cert_fingerprints: [...fingerprints],
        },
      },
    ];
  });
