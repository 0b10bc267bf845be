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
 * a host each. An app in both stores (an iOS app that names its Play package, an Android app
 * its iOS bundle id) is an app of each platform here, with its Apple team id or certificates
 * for the build of the other store.
 */
import type { App } from "../ports/apps.ts";
import { appsOfHost } from "./app-settings.ts";

type LinkedApp = Pick<App, "appId" | "platform" | "links">;

/** The bundle id of the app's iOS build: an iOS app's id, an Android app's setting. */
const iosBundleIdOf = (app: LinkedApp): string | undefined =>
  app.platform === "ios" ? app.appId : app.links?.iosBundleId;

/** The package of the app's Android build: an Android app's id, an iOS app's setting. */
const playPackageOf = (app: LinkedApp): string | undefined =>
  app.platform === "android" ? app.appId : app.links?.playPackage;

/**
 * The host's apps with a build of the platform (`idOf` names it), if all are one build: the
 * one it may claim for. An app in both stores has a build of each; an iOS app and an Android
 * app that names the same bundle id are one build, which opens for the links of both.
 */
const soleBuild = (
  apps: readonly LinkedApp[],
  idOf: (app: LinkedApp) => string | undefined,
): { id: string; apps: LinkedApp[] } | null => {
  const built = apps.filter((app) => idOf(app) !== undefined);
  const ids = new Set(built.map(idOf));
  const [id] = ids;
  return ids.size === 1 && id !== undefined ? { id, apps: built } : null;
};

/**
 * `apple-app-site-association`: every path of the host opens the app (a link is
 * `/<deeplink_id>`). `appIDs` and `components` are read by iOS 13 and later; `appID` and
 * `paths`, which older versions read, are given beside them.
 */
export const appleAppSiteAssociation = (apps: readonly LinkedApp[]) => {
  const build = soleBuild(apps, iosBundleIdOf);
  const teams = new Set(build?.apps.flatMap((app) => app.links?.appleTeamId ?? []));
  const appIds = build ? [...teams].map((team) => `${team}.${build.id}`) : [];
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
export const assetLinks = (apps: readonly LinkedApp[]) => {
  const build = soleBuild(apps, playPackageOf);
  const fingerprints = new Set(
    build?.apps.flatMap((app) => app.links?.androidSha256Fingerprints ?? []),
  );
  if (build === null || fingerprints.size === 0) return [];
  return [
    {
      relation: ["delegate_permission/common.handle_all_urls"],
      target: {
        namespace: "android_app",
        package_name: build.id,
        sha256_cert_fingerprints: [...fingerprints],
      },
    },
  ];
};

/** A platform whose file on one of an app's hosts leaves the app out, for the other builds there. */
export interface CrowdedHost {
  /** The host; null for the service's own link host. */
  readonly host: string | null;
  readonly platform: "ios" | "android";
  /** The host's other apps with a build of that platform of another id. */
  readonly others: readonly string[];
}

/**
 * Where `app` has what a file needs to list it (an Apple team id for its iOS build, certificates
 * for its Android build) but a host of its carries another build of that platform, so the file
 * lists neither: a tap there opens no app. What `apps` holds is every app, `app` as it is now.
 */
export const crowdedHostsOf = (app: LinkedApp, apps: readonly LinkedApp[]): CrowdedHost[] => {
  const all = [app, ...apps.filter((other) => other.appId !== app.appId)];
  const platforms = [
    { platform: "ios", idOf: iosBundleIdOf, listable: Boolean(app.links?.appleTeamId) },
    {
      platform: "android",
      idOf: playPackageOf,
      listable: (app.links?.androidSha256Fingerprints ?? []).length > 0,
    },
  ] as const;
  const hosts = app.links?.hosts?.length ? app.links.hosts : [null];
  return hosts.flatMap((host) => {
    const onHost = appsOfHost(all, host ?? undefined);
    return platforms.flatMap(({ platform, idOf, listable }) => {
      const own = idOf(app);
      if (!listable || own === undefined) return [];
      const others = onHost
        .filter(
          (other) => other.appId !== app.appId && idOf(other) !== undefined && idOf(other) !== own,
        )
        .map((other) => other.appId);
      return others.length > 0 ? [{ host, platform, others }] : [];
    });
  });
};
