import { withEncryption } from "../../apps/app-config.ts";
import { createApp, newAppSchema } from "../../apps/registration.ts";
import {
  type AttributionChange,
  attributionSettingsOf,
  withAttributionSettings,
} from "../../attribution/settings.ts";
import { ValidationError } from "../../domain/errors.ts";
import { DEFAULT_TIME_ZONE, isReportTimeZone } from "../../domain/time-zone.ts";
import {
  checkAppStoreIdFree,
  checkLinkHostsFree,
  type LinkSettingsChange,
  withLinkSettings,
} from "../../links/app-settings.ts";
import { crowdedHostsOf } from "../../links/well-known.ts";
import type { Platform } from "../../ports/apps.ts";
import { withAdminStores } from "../admin-stores.ts";

export const createAppCommand = async (options: {
  appId: string;
  name: string;
  platform: Platform;
  dataDir: string;
  json?: boolean;
}) => {
  const created = await withAdminStores(options.dataDir, (stores) =>
    createApp({ appId: options.appId, name: options.name, platform: options.platform }, stores),
  );
  if (options.json) {
    console.log(JSON.stringify(created, null, 2));
    return;
  }
  const { app, keys } = created;
  console.log(`Created ${app.platform} app ${app.appId} ("${app.name}").`);
  console.log("Its keys are shown once and cannot be shown again; keep them now:");
  for (const key of keys) {
    const use =
      key.kind === "sdk" ? "SDK key (embed in the app)" : "server key (export, server-to-server)";
    console.log(`  ${use.padEnd(42)} ${key.key}`);
  }
};

export const listAppsCommand = async (options: { dataDir: string; json?: boolean }) => {
  const apps = await withAdminStores(options.dataDir, (stores) => stores.apps.list());
  if (options.json) {
    // Wrapped private keys stay inside: a listing names the sealing keys, nothing more.
    const listed = apps.map(({ encryptionKeys, ...app }) => ({
      ...app,
      encryptionKeys: encryptionKeys?.map(({ keyId, publicKey, createdAt }) => ({
        keyId,
        publicKey,
        createdAt,
      })),
    }));
    console.log(JSON.stringify(listed, null, 2));
    return;
  }
  if (apps.length === 0) console.log("No apps yet: create one with `attribution apps create`.");
  for (const app of apps) {
    console.log(
      `${app.appId.padEnd(40)} ${app.platform.padEnd(8)} ${app.enabled ? "enabled " : "disabled"} ${app.name}`,
    );
  }
};

/** The `apps config` flag of each setting, for its messages. */
const SETTING_FLAGS: Record<keyof LinkSettingsChange | keyof AttributionChange, string> = {
  appStoreId: "--app-store-id",
  playPackage: "--play-package",
  iosBundleId: "--ios-bundle-id",
  webUrl: "--web-url",
  hosts: "--link-hosts",
  appleTeamId: "--apple-team-id",
  androidSha256Fingerprints: "--android-sha256",
  languages: "--languages",
  previewTitle: "--preview-title",
  previewDescription: "--preview-description",
  previewImageUrl: "--preview-image-url",
  enabled: "--attribution",
  clickWindowDays: "--click-window-days",
  viewWindowHours: "--view-window-hours",
  probabilisticWindowHours: "--probabilistic-window-hours",
  probabilistic: "--probabilistic",
  confidenceFloor: "--confidence-floor",
  deepLinkConfidenceFloor: "--deep-link-confidence",
};

/** A list flag: comma-separated, "" for none. */
const listOf = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);

/** A settings change, its ValidationError naming the flags rather than the fields. */
const applySettings = <T>(apply: () => T): T => {
  try {
    return apply();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    let message = error.message;
    for (const [name, flag] of Object.entries(SETTING_FLAGS)) {
      message = message.replaceAll(new RegExp(`\\b${name}(?=[:\\[])`, "g"), flag);
    }
    throw new ValidationError(message);
  }
};

export interface ConfigureAppOptions {
  appId: string;
  /** A new name, as the dashboard's settings rename it. */
  name?: string;
  enable?: boolean;
  disable?: boolean;
  encryption?: "on" | "off";
  /** The IANA time zone the reports count days in. */
  timeZone?: string;
  appStoreId?: string;
  playPackage?: string;
  iosBundleId?: string;
  webUrl?: string;
  linkHosts?: string;
  appleTeamId?: string;
  androidSha256?: string;
  languages?: string;
  previewTitle?: string;
  previewDescription?: string;
  previewImageUrl?: string;
  attribution?: "on" | "off";
  clickWindowDays?: number;
  viewWindowHours?: number;
  probabilisticWindowHours?: number;
  probabilisticAndroid?: "on" | "off";
  probabilisticIos?: "on" | "off";
  confidenceFloor?: "low" | "medium";
  deepLinkConfidence?: "low" | "medium" | "high";
  dataDir: string;
}

const onOff = (value: "on" | "off" | undefined) =>
  value === undefined ? undefined : value === "on";

const describeLinks = (links: ReturnType<typeof withLinkSettings>["links"]) =>
  [
    links?.hosts ? `link hosts ${links.hosts.join(", ")}` : "the service's link host",
    links?.appStoreId ? `App Store id ${links.appStoreId}` : undefined,
    links?.playPackage ? `Google Play package ${links.playPackage}` : undefined,
    links?.iosBundleId ? `iOS bundle id ${links.iosBundleId}` : undefined,
    links?.webUrl ? `web ${links.webUrl}` : undefined,
    links?.appleTeamId ? `Apple team ${links.appleTeamId}` : undefined,
    links?.androidSha256Fingerprints
      ? `${links.androidSha256Fingerprints.length} Android certificate(s)`
      : undefined,
    `landing pages in ${links?.languages?.join(", ") ?? "en"}`,
    links?.previewTitle ? `preview title "${links.previewTitle}"` : undefined,
    links?.previewDescription ? "a preview description" : undefined,
    links?.previewImageUrl ? `preview image ${links.previewImageUrl}` : undefined,
  ]
    .filter(Boolean)
    .join("; ");

export const configureAppCommand = async (options: ConfigureAppOptions) => {
  if (options.enable && options.disable) throw new Error("Give --enable or --disable, not both.");
  if (options.timeZone !== undefined && !isReportTimeZone(options.timeZone)) {
    throw new ValidationError(
      `--time-zone ${options.timeZone}: must be an IANA time zone of a place, such as America/Los_Angeles, or UTC`,
    );
  }
  const name =
    options.name === undefined ? undefined : newAppSchema.shape.name.safeParse(options.name);
  if (name && !name.success) {
    throw new ValidationError(name.error.issues.map((issue) => issue.message).join(" "));
  }
  const { app, all } = await withAdminStores(options.dataDir, async (stores) => ({
    // Applied to the app as stored, again if another change came in between, so both hold.
    app: await stores.apps.update(options.appId, async (found) => {
      let updated = {
        ...found,
        ...(name?.success ? { name: name.data } : {}),
        enabled: options.disable ? false : options.enable ? true : found.enabled,
        ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
      };
      updated = applySettings(() =>
        withLinkSettings(updated, {
          appStoreId: options.appStoreId,
          playPackage: options.playPackage,
          iosBundleId: options.iosBundleId,
          webUrl: options.webUrl,
          hosts: listOf(options.linkHosts),
          appleTeamId: options.appleTeamId,
          androidSha256Fingerprints: listOf(options.androidSha256),
          languages: listOf(options.languages),
          previewTitle: options.previewTitle,
          previewDescription: options.previewDescription,
          previewImageUrl: options.previewImageUrl,
        }),
      );
      if (options.appStoreId) {
        // The command line is the machine's owner, who sees every app.
        checkAppStoreIdFree(updated, await stores.apps.list(), { maySee: () => true });
      }
      if (options.linkHosts !== undefined) {
        // The operator's own apps: one may share a host with another (a brand's two platforms).
        checkLinkHostsFree(updated, await stores.apps.list(), {
          serviceLinkBase: stores.linkBaseUrl(),
          mayShareWith: () => true,
          served: stores.servedLinkHosts(),
          kept: found.links?.hosts ?? [],
        });
      }
      const probabilistic = {
        android: onOff(options.probabilisticAndroid),
        ios: onOff(options.probabilisticIos),
      };
      const attribution: AttributionChange = {
        enabled: onOff(options.attribution),
        clickWindowDays: options.clickWindowDays,
        viewWindowHours: options.viewWindowHours,
        probabilisticWindowHours: options.probabilisticWindowHours,
        probabilistic:
          probabilistic.android === undefined && probabilistic.ios === undefined
            ? undefined
            : probabilistic,
        confidenceFloor: options.confidenceFloor,
        deepLinkConfidenceFloor: options.deepLinkConfidence,
      };
      if (Object.values(attribution).some((value) => value !== undefined)) {
        updated = applySettings(() => withAttributionSettings(updated, attribution));
      }
      if (options.encryption) {
        updated = await withEncryption(updated, options.encryption === "on", stores.wrapper);
      }
      return updated;
    }),
    all: await stores.apps.list(),
  }));
  const sealing = app.encryptionEnabled ? `on (key ${app.encryptionKeys?.[0]?.keyId})` : "off";
  console.log(
    `${app.appId}: ${app.enabled ? "enabled" : "disabled"} for its SDKs; sealing ${sealing}; reports in ${app.timeZone ?? DEFAULT_TIME_ZONE}.`,
  );
  console.log(`Links: ${describeLinks(app.links)}.`);
  // Said here, where the setting is made: the file itself just lists nothing.
  for (const crowded of crowdedHostsOf(app, all)) {
    const file = crowded.platform === "ios" ? "apple-app-site-association" : "assetlinks.json";
    const build = crowded.platform === "ios" ? "iOS" : "Android";
    console.log(
      `Note: ${crowded.host ?? "the service's link host"} also carries ${crowded.others.join(", ")}, of ${crowded.others.length > 1 ? `other ${build} builds` : `another ${build} build`}: its ${file} lists none of them, so a tap there opens no app. Give each app a host of its own (--link-hosts).`,
    );
  }
  const settings = attributionSettingsOf(app);
  console.log(
    settings.enabled
      ? `Attribution: on; clicks ${settings.clickWindowDays} days, impressions ${settings.viewWindowHours} hours; probabilistic ${settings.probabilisticWindowHours} hours on ${
          (["android", "ios"] as const).filter((os) => settings.probabilistic[os]).join(" and ") ||
          "no OS"
        }, at least ${settings.confidenceFloor} confidence; deferred deep links from ${settings.deepLinkConfidenceFloor} confidence.`
      : "Attribution: off (every install is skipped).",
  );
};
