/**
 * An app's link settings, as `attribution apps config` sets them: where its links send a tap
 * (the App Store page, the web site), the host names its links are served on, what those
 * hosts publish so that a tap opens the installed app (Apple's team id, Android's certificate
 * fingerprints), the languages of its landing pages and its links' default preview. A change
 * names only what it changes; an empty value clears a setting.
 */
import * as z from "zod";
import { ConflictError } from "../domain/errors.ts";
import type { App, AppLinkSettings } from "../ports/apps.ts";
import { checked } from "../validation/issues.ts";
import { type HostProof, hostProofName, hostProofValue, provableHost } from "./host-proof.ts";
import { LANDING_LANGUAGES } from "./landing-strings.ts";
import { PREVIEW_FIELDS } from "./link-request.ts";

export const APPLE_TEAM_ID_PATTERN = /^[A-Z0-9]{10}$/;
export const SHA256_FINGERPRINT_PATTERN = /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/;
/**
 * Apple's numeric app id as Apple writes it: no leading zero. A postback names its app by the
 * number (`app-id`), so an id set with a leading zero would match none of them.
 */
export const APP_STORE_ID_PATTERN = /^[1-9][0-9]{0,14}$/;
/** A Play package name: two or more segments, each a letter then letters, digits or `_`. */
export const PLAY_PACKAGE_PATTERN =
  /^(?=.{1,150}$)[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
/**
 * An iOS bundle id as Apple takes it: letters, digits, `-` and `.`, here in reverse-DNS form
 * (two or more segments), as `apple-app-site-association` names it after the team id.
 */
export const IOS_BUNDLE_ID_PATTERN = /^(?=.{1,155}$)[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
/** A DNS name, lower case, with an optional port (the embedded link host has one). */
export const LINK_HOST_PATTERN =
  /^(?=.{1,253}(:|$))[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:[0-9]{1,5})?$/;

/** Clears the setting when given as "". */
const clearable = <T extends z.ZodType<string>>(schema: T) => z.union([z.literal(""), schema]);

export const linkSettingsChangeSchema = z.object({
  appStoreId: clearable(
    z.string().regex(APP_STORE_ID_PATTERN, {
      error: "must be the App Store's numeric app id: up to 15 digits, the first not 0",
    }),
  ).optional(),
  playPackage: clearable(
    z.string().regex(PLAY_PACKAGE_PATTERN, {
      error: "must be a Google Play package name, like com.example.app",
    }),
  ).optional(),
  iosBundleId: clearable(
    z.string().regex(IOS_BUNDLE_ID_PATTERN, {
      error: "must be an iOS bundle id, like com.example.app",
    }),
  ).optional(),
  webUrl: clearable(
    z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).max(2_048),
  ).optional(),
  hosts: z
    .array(
      z
        .string()
        .transform((host) => host.toLowerCase())
        .pipe(
          z
            .string()
            .regex(LINK_HOST_PATTERN, { error: "must be a host name, like go.example.com" }),
        ),
    )
    .max(10, { error: "must name at most 10 hosts" })
    .optional(),
  // Apple writes it in capitals (ABCDE12345), as apple-app-site-association must name it; one
  // typed in small letters is the same id, as a fingerprint is.
  appleTeamId: clearable(
    z
      .string()
      .transform((id) => id.toUpperCase())
      .pipe(z.string().regex(APPLE_TEAM_ID_PATTERN, { error: "must be 10 letters or digits" })),
  ).optional(),
  androidSha256Fingerprints: z
    .array(
      z
        .string()
        .transform((fingerprint) => fingerprint.toUpperCase())
        .pipe(
          z.string().regex(SHA256_FINGERPRINT_PATTERN, {
            error: "must be a SHA-256 fingerprint: 32 hex pairs separated by ':'",
          }),
        ),
    )
    .max(10, { error: "must name at most 10 fingerprints" })
    .optional(),
  languages: z
    .array(
      z
        .string()
        .transform((language) => language.toLowerCase())
        .pipe(
          z.enum(LANDING_LANGUAGES, {
            error: `must be one of ${LANDING_LANGUAGES.join(", ")}`,
          }),
        ),
    )
    .max(LANDING_LANGUAGES.length, {
      error: `must name at most ${LANDING_LANGUAGES.length} languages`,
    })
    .optional(),
  previewTitle: clearable(PREVIEW_FIELDS.title).optional(),
  previewDescription: clearable(PREVIEW_FIELDS.description).optional(),
  previewImageUrl: clearable(PREVIEW_FIELDS.imageUrl).optional(),
});
export type LinkSettingsChange = z.input<typeof linkSettingsChangeSchema>;

/**
 * The change's schema for one app: only an iOS app names a Play package (an Android app's is
 * its app id), and only an Android app an iOS bundle id (an iOS app's is its app id).
 */
export const linkSettingsChangeSchemaOf = (app: Pick<App, "appId" | "platform">) =>
  linkSettingsChangeSchema.superRefine((change, context) => {
    if (change.playPackage && app.platform === "android") {
      context.addIssue({
        code: "custom",
        path: ["playPackage"],
        message: `must not be set: an Android app's Play package is its app id (${app.appId}), and only an iOS app names its Android build's`,
      });
    }
    if (change.iosBundleId && app.platform === "ios") {
      context.addIssue({
        code: "custom",
        path: ["iosBundleId"],
        message: `must not be set: an iOS app's bundle id is its app id (${app.appId}), and only an Android app names its iOS build's`,
      });
    }
  });

const scalar = (change: string | undefined, current: string | undefined) =>
  change === undefined ? current : change === "" ? undefined : change;

const list = (change: readonly string[] | undefined, current: readonly string[] | undefined) =>
  change === undefined ? current : change.length === 0 ? undefined : [...new Set(change)];

/** The app with the change applied; a ValidationError names a bad value. */
export const withLinkSettings = (app: App, change: LinkSettingsChange): App => {
  const next = checked(linkSettingsChangeSchemaOf(app), change, "settings");
  const current = app.links ?? {};
  const settings: AppLinkSettings = {
    appStoreId: scalar(next.appStoreId, current.appStoreId),
    playPackage: scalar(next.playPackage, current.playPackage),
    iosBundleId: scalar(next.iosBundleId, current.iosBundleId),
    webUrl: scalar(next.webUrl, current.webUrl),
    hosts: list(next.hosts, current.hosts),
    appleTeamId: scalar(next.appleTeamId, current.appleTeamId),
    androidSha256Fingerprints: list(
      next.androidSha256Fingerprints,
      current.androidSha256Fingerprints,
    ),
    languages: list(next.languages, current.languages),
    previewTitle: scalar(next.previewTitle, current.previewTitle),
    previewDescription: scalar(next.previewDescription, current.previewDescription),
    previewImageUrl: scalar(next.previewImageUrl, current.previewImageUrl),
  };
  // An unset setting stays undefined, which the stores and JSON leave out.
  const { links: _previous, ...rest } = app;
  return Object.values(settings).some((value) => value !== undefined)
    ? { ...rest, links: settings }
    : rest;
};

/**
 * Refuses an App Store id another app already has: Apple's postbacks name their app by it
 * alone, so two apps with one id would see one of them take the other's postbacks. The refusal
 * names that app only to one who may see it (`maySee`; unset: no other app): to anyone else
 * an app id is not to be learnt from a refusal.
 */
export const checkAppStoreIdFree = (
  app: Pick<App, "appId" | "links">,
  apps: readonly Pick<App, "appId" | "links">[],
  options: { readonly maySee?: (appId: string) => boolean } = {},
): void => {
  const id = app.links?.appStoreId;
  if (id === undefined) return;
  const holder = apps.find((other) => other.appId !== app.appId && other.links?.appStoreId === id);
  if (holder) {
    const whose = options.maySee?.(holder.appId) ? `app ${holder.appId}'s` : "another app's";
    throw new ConflictError(
      `App Store id ${id} is ${whose} already: Apple's postbacks name their app by it, so it can be one app's only.`,
    );
  }
};

/**
 * Refuses a link host another app names, unless the one making the change may manage that app
 * too, or the host's DNS names this app (`proofs`, ./host-proof.ts); and the service's own link
 * host (`serviceLinkBase`, its URL, where known): a host an app names serves the links and
 * `.well-known` files of the apps naming it alone, so naming a stranger's would take its links
 * and its Universal and App Links away, and naming the service's own would take every other
 * app's. The refusal names no app: the one it meets is one the caller may not manage, whose id
 * is not to be learnt from a refusal. It says how the domain's owner proves the host theirs.
 */
export const checkLinkHostsFree = (
  app: Pick<App, "appId" | "links">,
  apps: readonly Pick<App, "appId" | "links">[],
  options: {
    readonly serviceLinkBase?: string | undefined;
    /**
     * Whoever makes the change may also manage this other app: then its host may be shared,
     * as a brand's iOS and Android apps share their domain. Unset: no other app's.
     */
    readonly mayShareWith?: (appId: string) => boolean;
    /** What the DNS says of the hosts other apps name: an app it names may name the host. */
    readonly proofs?: ReadonlyMap<string, HostProof>;
    /**
     * The hosts the app named before the change: shared already (a proof at the time, or the
     * operator's choice), they stay its whatever the DNS says now.
     */
    readonly kept?: readonly string[];
    /**
     * The apps' own hosts the deployment serves (on AWS, its stack's `linkAppHosts`); null or
     * unset: any host it is asked for (the embedded runtime's listener).
     */
    readonly served?: readonly string[] | null;
  } = {},
): void => {
  const own = options.serviceLinkBase ? new URL(options.serviceLinkBase) : undefined;
  for (const host of linkHostsOf(app)) {
    const name = host.replace(/:\d+$/, "");
    if (own && (host === own.host.toLowerCase() || name === own.hostname.toLowerCase())) {
      throw new ConflictError(
        `Link host ${host} is the service's own link host, which serves every app's links: name a host of your own.`,
      );
    }
    // A link made on a host the deployment does not answer would fail every tap.
    if (options.served && !options.served.includes(host) && !options.kept?.includes(host)) {
      throw new ConflictError(
        `Link host ${host} is not served by this deployment yet: its operator adds it to the stack (-c linkAppHosts, docs/deploy.md) and points its DNS at the link host; then save again.`,
      );
    }
    if (options.kept?.includes(host) || provenFor(options.proofs, host, app.appId)) continue;
    const holder = apps.find(
      (other) =>
        other.appId !== app.appId &&
        linkHostsOf(other).includes(host) &&
        !options.mayShareWith?.(other.appId),
    );
    if (holder) {
      const proof = options.proofs?.get(host);
      const how = !provableHost(host)
        ? ""
        : proof && !proof.answered
          ? ` Its DNS did not answer for the TXT record ${hostProofName(host)} that would prove it yours: try again.`
          : ` If the domain is yours, add to its DNS a TXT record ${hostProofName(host)} with the value "${hostProofValue(app.appId)}" and save again: the host then moves to this app.`;
      throw new ConflictError(
        `Link host ${host} is another app's already: a host serves the links of the apps that name it, so it can be named by apps of one owner only.${how}`,
      );
    }
  }
};

const provenFor = (
  proofs: ReadonlyMap<string, HostProof> | undefined,
  host: string,
  appId: string,
): boolean => {
  const proof = proofs?.get(host);
  return proof?.answered === true && proof.apps.has(appId);
};

/**
 * The hosts other apps lose to `app` (checked by `checkLinkHostsFree`): those it names that
 * the DNS proves its, from each app the DNS does not name and whose maker may not share with
 * it. A host serves the apps naming it, so they would still serve there otherwise.
 */
export const hostsTakenBy = (
  app: Pick<App, "appId" | "links">,
  apps: readonly Pick<App, "appId" | "links">[],
  options: {
    readonly mayShareWith?: (appId: string) => boolean;
    readonly proofs?: ReadonlyMap<string, HostProof>;
  },
): { readonly appId: string; readonly hosts: readonly string[] }[] => {
  const proven = linkHostsOf(app).filter((host) => provenFor(options.proofs, host, app.appId));
  return apps
    .filter((other) => other.appId !== app.appId && !options.mayShareWith?.(other.appId))
    .map((other) => ({
      appId: other.appId,
      hosts: linkHostsOf(other).filter(
        (host) => proven.includes(host) && !provenFor(options.proofs, host, other.appId),
      ),
    }))
    .filter((taken) => taken.hosts.length > 0);
};

/** The host names an app's links are served on: its own, or none (the service's link host). */
export const linkHostsOf = (app: Pick<App, "links">): readonly string[] => app.links?.hosts ?? [];

/**
 * The apps' own link hosts a deployment serves, from the list the stack gives (its functions'
 * LINK_APP_HOSTS, its output LinkAppHosts): comma-separated, empty for none.
 */
export const servedLinkHostsOf = (list: string | undefined): string[] =>
  (list ?? "")
    .split(",")
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== "" && host !== LINK_APP_HOSTS_NONE);

/** The stack output LinkAppHosts when it serves no app's own host (an output is never empty). */
export const LINK_APP_HOSTS_NONE = "none";

/**
 * A request's `Host` as apps name hosts: in lower case, and without the dot that ends a fully
 * qualified name (`go.brand.com.` is go.brand.com to DNS and to browsers).
 */
const requestHost = (host: string | undefined): string =>
  (host ?? "").toLowerCase().replace(/\.(?=:\d+$|$)/, "");

/** The apps that name `host` (a request's `Host`) as one of their link hosts. */
const appsNaming = <A extends Pick<App, "links">>(apps: readonly A[], host: string | undefined) => {
  const asked = requestHost(host);
  return apps.filter((app) => linkHostsOf(app).includes(asked));
};

/**
 * The apps whose `.well-known` files a host serves: those that name it, else (the service's own
 * host) those naming none.
 */
export const appsOfHost = <A extends Pick<App, "links">>(
  apps: readonly A[],
  host: string | undefined,
): A[] => {
  const naming = appsNaming(apps, host);
  return naming.length > 0 ? naming : apps.filter((app) => linkHostsOf(app).length === 0);
};

/**
 * Whether a tap on `host` may open a link of app `appId`: a host that apps name as their link
 * host serves their links alone, so that no other app's link (its web URL anyone may set)
 * redirects from a brand's domain; any other host, the service's own, serves every app's.
 */
export const hostServesApp = (
  apps: readonly Pick<App, "appId" | "links">[],
  host: string | undefined,
  app: Pick<App, "appId" | "links">,
): boolean => {
  // The app's own settings first: they may be newer than the list (a longer cache), and a host
  // it has just named serves its links from the next tap.
  if (linkHostsOf(app).includes(requestHost(host))) return true;
  const naming = appsNaming(apps, host);
  return naming.length === 0 || naming.some((other) => other.appId === app.appId);
};
