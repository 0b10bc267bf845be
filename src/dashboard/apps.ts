/**
 * Apps as the dashboard shows and changes them: only those the signed-in person may see; their
 * settings in the API's snake_case, with the defaults filled in; their keys, listed without
 * hashes, issued once and revoked.
 */
import * as z from "zod";
import { withEncryption } from "../apps/app-config.ts";
import { maySee } from "../apps/authenticate.ts";
import { issueKey, newAppSchema } from "../apps/registration.ts";
import {
  type AttributionChange,
  attributionChangeSchema,
  attributionSettingsOf,
  withAttributionSettings,
} from "../attribution/settings.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { NotFoundError, ValidationError } from "../domain/errors.ts";
import type { KeyKind, Scope } from "../domain/keys.ts";
import { DEFAULT_TIME_ZONE, isReportTimeZone } from "../domain/time-zone.ts";
import {
  checkAppStoreIdFree,
  checkLinkHostsFree,
  hostsTakenBy,
  linkHostsOf,
  type linkSettingsChangeSchema,
  linkSettingsChangeSchemaOf,
  withLinkSettings,
} from "../links/app-settings.ts";
import { proveHosts } from "../links/host-proof.ts";
import type { App, AppStore, KeyStore, Platform, StoredKey } from "../ports/apps.ts";
import type { TxtRecords } from "../ports/dns.ts";
import type { User, UserStore } from "../ports/users.ts";
import { checked, formatPath, joinProblems, plainWords } from "../validation/issues.ts";

export interface AppSummary {
  readonly app_id: string;
  readonly name: string;
  readonly platform: Platform;
  readonly enabled: boolean;
  readonly created_at: string;
  /** The IANA time zone the reports count days in. */
  readonly time_zone: string;
}

export interface AppSettings extends AppSummary {
  readonly encryption: { readonly enabled: boolean; readonly key_id: string | null };
  readonly attribution: {
    readonly enabled: boolean;
    readonly click_window_days: number;
    readonly view_window_hours: number;
    readonly probabilistic_window_hours: number;
    readonly probabilistic: { readonly android: boolean; readonly ios: boolean };
    readonly confidence_floor: "low" | "medium";
    readonly deep_link_confidence_floor: "low" | "medium" | "high";
  };
  readonly links: {
    readonly app_store_id: string | null;
    readonly play_package: string | null;
    readonly ios_bundle_id: string | null;
    readonly web_url: string | null;
    readonly hosts: readonly string[];
    readonly apple_team_id: string | null;
    readonly android_sha256_fingerprints: readonly string[];
    readonly languages: readonly string[];
    readonly preview_title: string | null;
    readonly preview_description: string | null;
    readonly preview_image_url: string | null;
  };
}

export interface KeyAnswer {
  readonly key_id: string;
  readonly kind: KeyKind;
  readonly scopes: readonly Scope[];
  readonly created_at: string;
  readonly revoked_at: string | null;
}

export const appSummary = (app: App): AppSummary => ({
  app_id: app.appId,
  name: app.name,
  platform: app.platform,
  enabled: app.enabled,
  created_at: app.createdAt,
  time_zone: app.timeZone ?? DEFAULT_TIME_ZONE,
});

export const appSettings = (app: App): AppSettings => {
  const attribution = attributionSettingsOf(app);
  return {
    ...appSummary(app),
    encryption: {
      enabled: app.encryptionEnabled ?? false,
      key_id: app.encryptionKeys?.[0]?.keyId ?? null,
    },
    attribution: {
      enabled: attribution.enabled,
      click_window_days: attribution.clickWindowDays,
      view_window_hours: attribution.viewWindowHours,
      probabilistic_window_hours: attribution.probabilisticWindowHours,
      probabilistic: { ...attribution.probabilistic },
      confidence_floor: attribution.confidenceFloor,
      deep_link_confidence_floor: attribution.deepLinkConfidenceFloor,
    },
    links: {
      app_store_id: app.links?.appStoreId ?? null,
      play_package: app.links?.playPackage ?? null,
      ios_bundle_id: app.links?.iosBundleId ?? null,
      web_url: app.links?.webUrl ?? null,
      hosts: app.links?.hosts ?? [],
      apple_team_id: app.links?.appleTeamId ?? null,
      android_sha256_fingerprints: app.links?.androidSha256Fingerprints ?? [],
      languages: app.links?.languages ?? [],
      preview_title: app.links?.previewTitle ?? null,
      preview_description: app.links?.previewDescription ?? null,
      preview_image_url: app.links?.previewImageUrl ?? null,
    },
  };
};

export const keyAnswer = (key: StoredKey): KeyAnswer => ({
  key_id: key.keyId,
  kind: key.kind,
  scopes: key.scopes,
  created_at: key.createdAt,
  revoked_at: key.revokedAt ?? null,
});

/**
 * An app's name as the dashboard's forms send it: the registration's rule, its refusals in
 * words under the field's own name (`name: must be at most 200 characters`), not the
 * validation library's ("Too big: expected string to have <=200 characters").
 */
const appName = z
  .string()
  .trim()
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });

/** A new app, as the dashboard's form sends it. */
export const newAppBody = z.strictObject({
  app_id: newAppSchema.shape.appId,
  name: appName,
  platform: newAppSchema.shape.platform,
});

const nullableText = z.string().nullable();
const nullToClear = (value: string | null | undefined) => (value === null ? "" : value);

/** A settings change: any subset of the writable settings, nested objects partial. */
export const settingsChangeBody = z.strictObject({
  name: appName.optional(),
  enabled: z.boolean().optional(),
  time_zone: z
    .string()
    .refine(isReportTimeZone, {
      error: "must be an IANA time zone of a place, such as America/Los_Angeles, or UTC",
    })
    .optional(),
  encryption: z.strictObject({ enabled: z.boolean() }).optional(),
  attribution: z
    .strictObject({
      enabled: attributionChangeSchema.shape.enabled,
      click_window_days: attributionChangeSchema.shape.clickWindowDays,
      view_window_hours: attributionChangeSchema.shape.viewWindowHours,
      probabilistic_window_hours: attributionChangeSchema.shape.probabilisticWindowHours,
      probabilistic: attributionChangeSchema.shape.probabilistic,
      confidence_floor: attributionChangeSchema.shape.confidenceFloor,
      deep_link_confidence_floor: attributionChangeSchema.shape.deepLinkConfidenceFloor,
    })
    .optional(),
  links: z
    .strictObject({
      app_store_id: nullableText.optional(),
      play_package: nullableText.optional(),
      ios_bundle_id: nullableText.optional(),
      web_url: nullableText.optional(),
      hosts: z.array(z.string()).optional(),
      apple_team_id: nullableText.optional(),
      android_sha256_fingerprints: z.array(z.string()).optional(),
      languages: z.array(z.string()).optional(),
      preview_title: nullableText.optional(),
      preview_description: nullableText.optional(),
      preview_image_url: nullableText.optional(),
    })
    .optional(),
});
export type SettingsChange = z.infer<typeof settingsChangeBody>;

/** The API's name of each link setting (`links.web_url`), which its refusals name. */
const LINK_FIELDS: Readonly<Record<string, string>> = {
  appStoreId: "app_store_id",
  playPackage: "play_package",
  iosBundleId: "ios_bundle_id",
  webUrl: "web_url",
  hosts: "hosts",
  appleTeamId: "apple_team_id",
  androidSha256Fingerprints: "android_sha256_fingerprints",
  languages: "languages",
  previewTitle: "preview_title",
  previewDescription: "preview_description",
  previewImageUrl: "preview_image_url",
};

/** A refusal in words: a length the rule leaves to the validation library said as a bound. */
const inWords = (issue: z.core.$ZodIssue): string => {
  if (issue.code === "too_big" && issue.origin === "string") {
    return `must be at most ${issue.maximum} characters`;
  }
  if (issue.code === "too_small" && issue.origin === "string") {
    return Number(issue.minimum) <= 1
      ? "must not be empty"
      : `must be at least ${issue.minimum} characters`;
  }
  return issue.message;
};

/**
 * Checks a change of the link settings by their rules, its refusals named by the fields of the
 * request (`links.web_url: must be an http or https URL`) rather than the settings' own names
 * (`webUrl`), which a caller of the API never sees.
 */
const linkChangeProblems = (
  app: App,
  change: z.input<typeof linkSettingsChangeSchema>,
): string[] => {
  const parsed = linkSettingsChangeSchemaOf(app).safeParse(change);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const [key, ...rest] = issue.path;
    const field = typeof key === "string" ? (LINK_FIELDS[key] ?? key) : key;
    const path = formatPath(field === undefined ? ["links"] : ["links", field, ...rest]);
    return `${path}: ${inWords(issue)}`;
  });
};

const checkLinkChange = (app: App, change: z.input<typeof linkSettingsChangeSchema>): void => {
  const problems = linkChangeProblems(app, change);
  if (problems.length > 0) throw new ValidationError(joinProblems(problems));
};

/** The request's link settings by the settings' own names (`web_url` as `webUrl`). */
const linkChangeOf = (l: NonNullable<SettingsChange["links"]>) =>
  ({
    appStoreId: nullToClear(l.app_store_id),
    playPackage: nullToClear(l.play_package),
    iosBundleId: nullToClear(l.ios_bundle_id),
    webUrl: nullToClear(l.web_url),
    hosts: l.hosts,
    appleTeamId: nullToClear(l.apple_team_id),
    androidSha256Fingerprints: l.android_sha256_fingerprints,
    languages: l.languages,
    previewTitle: nullToClear(l.preview_title),
    previewDescription: nullToClear(l.preview_description),
    previewImageUrl: nullToClear(l.preview_image_url),
  }) satisfies z.input<typeof linkSettingsChangeSchema>;

export const newKeyBody = z.strictObject({
  kind: z.enum(["sdk", "server"], { error: "must be sdk or server" }),
});

export interface DashboardAppsDeps {
  readonly apps: AppStore;
  readonly keys: KeyStore;
  readonly users: UserStore;
  readonly keyWrapper: KeyWrapper;
  /** Told of a change to an app or a key, so caches in front of them forget it. */
  readonly onChange?: () => Promise<void> | void;
  /** The service's link host's URL, which no app may name as a host of its own. */
  readonly linkBaseUrl?: () => string;
  /** The apps' own link hosts the deployment serves; null or unset: any (`checkLinkHostsFree`). */
  readonly servedLinkHosts?: () => readonly string[] | null;
  /** The DNS, whose TXT records prove a link host an app's (../links/host-proof.ts). */
  readonly dns?: TxtRecords;
}

export const createDashboardApps = (deps: DashboardAppsDeps) => {
  const userOf = async (email: string): Promise<User> => {
    const user = await deps.users.get(email);
    if (!user) throw new NotFoundError(`No user ${email}.`);
    return user;
  };
  const appOf = async (appId: string): Promise<App> => {
    const app = await deps.apps.get(appId);
    if (!app) throw new NotFoundError(`App ${appId} does not exist.`);
    return app;
  };
  /**
   * Who may share a host with the app (the apps `email` may manage too), and what the DNS says
   * of the hosts named that other apps have: asked before the change, as a lookup may take
   * seconds.
   */
  const hostsChange = async (email: string, appId: string, named: readonly string[]) => {
    const user = await userOf(email);
    const mayShareWith = (other: string) => maySee(user, other);
    const apps = await deps.apps.list();
    // Only the hosts the change adds: one the app names already stays its.
    const own = new Set(linkHostsOf(apps.find((app) => app.appId === appId) ?? {}));
    const asked = new Set(named.map((host) => host.toLowerCase()).filter((host) => !own.has(host)));
    const held = apps
      .filter((other) => other.appId !== appId && !mayShareWith(other.appId))
      .flatMap(linkHostsOf)
      .filter((host) => asked.has(host));
    const proofs = deps.dns ? await proveHosts(deps.dns, [...new Set(held)]) : undefined;
    return { mayShareWith, ...(proofs ? { proofs } : {}) };
  };
  /** Takes the hosts the DNS proved the app's from the other apps naming them. */
  const releaseHosts = async (app: App, hosts: Awaited<ReturnType<typeof hostsChange>>) => {
    for (const taken of hostsTakenBy(app, await deps.apps.list(), hosts)) {
      await deps.apps
        .update(taken.appId, async (other) =>
          withLinkSettings(other, {
            hosts: linkHostsOf(other).filter((host) => !taken.hosts.includes(host)),
          }),
        )
        // An app deleted meanwhile names no host.
        .catch((error: unknown) => {
          if (!(error instanceof NotFoundError)) throw error;
        });
    }
  };
  return {
    async list(email: string): Promise<AppSummary[]> {
      const user = await userOf(email);
      const apps = await deps.apps.list();
      return apps.filter((app) => maySee(user, app.appId)).map(appSummary);
    },
    /** Creates the app (without keys: the dashboard makes them one at a time) for its maker. */
    async create(email: string, body: unknown): Promise<AppSettings> {
      const input = checked(newAppBody, body, "body");
      const app: App = {
        appId: input.app_id,
        name: input.name,
        platform: input.platform,
        enabled: true,
        createdAt: new Date().toISOString(),
      };
      await deps.apps.create(app);
      await deps.users.grantApp(email, app.appId);
      await deps.onChange?.();
      return appSettings(app);
    },
    async get(appId: string): Promise<AppSettings> {
      return appSettings(await appOf(appId));
    },
    /** Changes the app's settings, as `email` (who may change it) asks. */
    async update(email: string, appId: string, body: unknown): Promise<AppSettings> {
      const parsed = settingsChangeBody.safeParse(body, { error: plainWords });
      if (!parsed.success) {
        // With the link settings' own rules too, where their shape is right: a form with
        // several problems hears of every one at once, not of the next after each fix.
        const links = settingsChangeBody.shape.links.safeParse(
          (body as { links?: unknown } | null)?.links,
        );
        const stored = links.success && links.data ? await deps.apps.get(appId) : undefined;
        throw new ValidationError(
          joinProblems([
            ...parsed.error.issues.map(
              (issue) => `${formatPath(issue.path) || "body"}: ${issue.message}`,
            ),
            ...(stored && links.data ? linkChangeProblems(stored, linkChangeOf(links.data)) : []),
          ]),
        );
      }
      const change = parsed.data;
      const hosts = change.links?.hosts
        ? await hostsChange(email, appId, change.links.hosts)
        : null;
      // Applied to the app as stored, again if another change came in between, so both hold.
      const updated = await deps.apps.update(appId, async (stored) => {
        let app = stored;
        if (change.name !== undefined) app = { ...app, name: change.name };
        if (change.enabled !== undefined) app = { ...app, enabled: change.enabled };
        if (change.time_zone !== undefined) app = { ...app, timeZone: change.time_zone };
        if (change.attribution) {
          const a = change.attribution;
          const attribution: AttributionChange = {
            enabled: a.enabled,
            clickWindowDays: a.click_window_days,
            viewWindowHours: a.view_window_hours,
            probabilisticWindowHours: a.probabilistic_window_hours,
            probabilistic: a.probabilistic,
            confidenceFloor: a.confidence_floor,
            deepLinkConfidenceFloor: a.deep_link_confidence_floor,
          };
          app = withAttributionSettings(
            app,
            Object.fromEntries(
              Object.entries(attribution).filter(([, value]) => value !== undefined),
            ) as AttributionChange,
          );
        }
        if (change.links) {
          const linkChange = linkChangeOf(change.links);
          checkLinkChange(app, linkChange);
          app = withLinkSettings(app, linkChange);
          if (linkChange.appStoreId) {
            const user = await userOf(email);
            checkAppStoreIdFree(app, await deps.apps.list(), {
              maySee: (other) => maySee(user, other),
            });
          }
          if (hosts) {
            checkLinkHostsFree(app, await deps.apps.list(), {
              serviceLinkBase: deps.linkBaseUrl?.(),
              served: deps.servedLinkHosts?.() ?? null,
              kept: linkHostsOf(stored),
              ...hosts,
            });
          }
        }
        if (change.encryption) {
          app = await withEncryption(app, change.encryption.enabled, deps.keyWrapper);
        }
        return app;
      });
      if (hosts) await releaseHosts(updated, hosts);
      await deps.onChange?.();
      return appSettings(updated);
    },
    async keys(appId: string): Promise<KeyAnswer[]> {
      const keys = await deps.keys.listByApp(appId);
      return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(keyAnswer);
    },
    async issueKey(appId: string, body: unknown): Promise<KeyAnswer & { key: string }> {
      const { kind } = checked(newKeyBody, body, "body");
      await appOf(appId);
      const issued = await issueKey(appId, kind, deps.keys);
      const stored = await deps.keys.get(issued.keyId);
      if (!stored) throw new Error(`Key ${issued.keyId} was not stored`);
      return { ...keyAnswer(stored), key: issued.key };
    },
    async revokeKey(appId: string, keyId: string): Promise<KeyAnswer> {
      const key = await deps.keys.get(keyId);
      // Another app's key is as unknown as a key that does not exist.
      if (!key || key.appId !== appId) throw new NotFoundError(`App ${appId} has no key ${keyId}.`);
      const revoked = await deps.keys.revoke(keyId, new Date().toISOString());
      if (!revoked) throw new NotFoundError(`App ${appId} has no key ${keyId}.`);
      await deps.onChange?.();
      return keyAnswer(revoked);
    },
  };
};
