/**
 * What a click's user agent says about the device that tapped a link: its platform (which
 * store to send it to), OS version and model (what the matcher compares with the SDK's report
 * of an install), and whether it is a bot or a link-preview fetcher (Slack, Facebook, Twitter,
 * Google and the like), which are never counted as clicks. Parsing is ua-parser-js's and bot
 * detection isbot's: both are kept current against real traffic.
 *
 * Chrome on Android hides the model and the OS version from its agent, but tells them in the
 * client hints `Sec-CH-UA-Model` and `Sec-CH-UA-Platform-Version` when a site asks for them
 * (`Accept-CH`): a tap that carries them gets its model and version from there.
 */
import { isbot } from "isbot";
import { UAParser } from "ua-parser-js";
import type { DevicePlatform } from "../domain/touch.ts";
import { previewFetcherOf } from "./preview-fetchers.ts";

export interface DeviceTraits {
  readonly platform: DevicePlatform;
  /** `14`, `17.4`; null when the agent does not say or hides it. */
  readonly osVersion: string | null;
  /** `Pixel 8`, `SM-S911B`, `iPhone`; null when the agent does not say or hides it. */
  readonly deviceModel: string | null;
  readonly isBot: boolean;
  /** Chrome's reduced Android agent, which hides model and version (the hints may tell them). */
  readonly reducedAgent: boolean;
  /**
   * An Android device with no Google Play: an Amazon Fire tablet or TV (Amazon's Appstore), or a
   * Huawei phone on Huawei's own services (AppGallery), whose browser names `HMSCore`.
   */
  readonly withoutGooglePlay: boolean;
}

/**
 * Chrome's reduced user agent writes every Android device as `Android 10; K`: the version is
 * frozen and `K` stands for any model, so neither says anything about the device.
 */
const REDUCED_ANDROID_MODEL = "K";

/** The client hints that tell what Chrome's reduced agent hides, as the link host asks for them. */
export const DEVICE_HINTS = ["Sec-CH-UA-Model", "Sec-CH-UA-Platform-Version"] as const;

/** The hints' request headers as a tap's lower-case headers hold them. */
export interface DeviceHintHeaders {
  readonly "sec-ch-ua-model"?: string | undefined;
  readonly "sec-ch-ua-platform-version"?: string | undefined;
}

/** Longer than any real model name or version: what is longer is not kept. */
const MAX_HINT_LENGTH = 100;

/**
 * A structured-field string's value (RFC 8941: printable ASCII in double quotes, `\"` and `\\`
 * escaped), as client hints are sent; null for anything else, so a malformed header says nothing.
 */
export const sfString = (raw: string | undefined): string | null => {
  const inner = raw?.trim().match(/^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/)?.[1];
  if (inner === undefined || inner.length > MAX_HINT_LENGTH) return null;
  return inner.replace(/\\(["\\])/g, "$1");
};

/** `14.0.0` as an agent would write it, `14`; `12.1.0`, `12.1`. */
const trimmedVersion = (version: string | null) => {
  if (version === null || !/^\d+(\.\d+)*$/.test(version)) return null;
  return version.replace(/(\.0)+$/, "");
};

/** Whether a tap carries both device hints (empty ones too: the browser answered). */
export const sentDeviceHints = (headers: DeviceHintHeaders): boolean =>
  headers["sec-ch-ua-model"] !== undefined && headers["sec-ch-ua-platform-version"] !== undefined;

/** What the agent alone says; the hints may fill in what a reduced agent hides. */
interface AgentTraits {
  readonly platform: DevicePlatform;
  readonly osVersion: string | null;
  readonly deviceModel: string | null;
  readonly isBot: boolean;
  readonly reduced: boolean;
  readonly withoutGooglePlay: boolean;
}

/** Amazon's Silk browser, and Huawei's browser on Huawei's own services. */
const WITHOUT_GOOGLE_PLAY = /\bSilk\/|\bHMSCore\b/;

/**
 * The Android a HarmonyOS 2 to 4 phone runs its apps on (`Android 10; HarmonyOS; NOH-NX9`): such
 * a phone installs from app stores of Android apps, so it taps as an Android phone. HarmonyOS
 * NEXT (`OpenHarmony`) runs no Android apps and names no Android.
 */
const HARMONY_ANDROID = /\bAndroid (\d+(?:\.\d+)*)/;

/**
 * An iPad's web view that asks for desktop sites (an app's in-app browser: Facebook's,
 * Instagram's) writes a Mac's agent but keeps WebKit's `Mobile/` build, which no Mac sends.
 * iPad Safari drops it too, and stays a desktop to the link host (docs/api.md).
 */
const IPAD_WEB_VIEW = /\bMobile\/[0-9A-Z]+\b/;

/**
 * Safari 26 on iOS writes a frozen iOS release in its agent (`iPhone OS 18_6`, later `18_7`),
 * whatever the phone runs: its own `Version/26.3` is the iOS release it ships with. An agent of
 * a frozen release without Safari's version (an app's web view, another browser on WebKit) may
 * be a phone on iOS 18 or on 26, and names no release, unless the app's browser names the
 * release itself (Facebook's `FBSV/26.1`, Instagram's `iOS 26_1`).
 */
const FROZEN_IOS_RELEASE = /^18\.[67]$/;
const SAFARI_RELEASE = /\bVersion\/(\d+(?:\.\d+)*) Mobile\/[0-9A-Z]+ Safari\//;
const IN_APP_IOS_RELEASE = /\bFBSV\/(\d+(?:\.\d+)*)|; iOS (\d+(?:_\d+)*);/;
/** The first release whose Safari writes a frozen iOS release. */
const FREEZING_SAFARI = 26;

const iosRelease = (agent: string, parsed: string | undefined): string | null => {
  if (parsed === undefined || !FROZEN_IOS_RELEASE.test(parsed)) return parsed ?? null;
  const safari = SAFARI_RELEASE.exec(agent)?.[1];
  if (safari !== undefined) return Number.parseInt(safari, 10) >= FREEZING_SAFARI ? safari : parsed;
  const inApp = IN_APP_IOS_RELEASE.exec(agent);
  return inApp?.[1] ?? inApp?.[2]?.replaceAll("_", ".") ?? null;
};

const parseAgent = (agent: string): AgentTraits => {
  const { os, device } = new UAParser(agent).getResult();
  const harmonyAndroid = os.name === "HarmonyOS" ? HARMONY_ANDROID.exec(agent)?.[1] : undefined;
  const ipad = os.name === "Mac OS" && IPAD_WEB_VIEW.test(agent);
  const platform: DevicePlatform =
    os.name === "Android" || harmonyAndroid !== undefined
      ? "android"
      : os.name === "iOS" || ipad
        ? "ios"
        : "other";
  return {
    platform,
    // A Mac's agent names macOS's frozen version, not the iPad's.
    osVersion:
      platform === "other" || ipad
        ? null
        : platform === "ios"
          ? iosRelease(agent, os.version)
          : (harmonyAndroid ?? os.version ?? null),
    deviceModel: platform === "other" ? null : ipad ? "iPad" : (device.model ?? null),
    // An empty agent is no browser a person taps links in; nor is a chat's link unfurler,
    // whether isbot knows its agent or not.
    isBot: agent.trim() === "" || isbot(agent) || previewFetcherOf(agent) !== null,
    reduced: platform === "android" && device.model === REDUCED_ANDROID_MODEL,
    withoutGooglePlay:
      platform === "android" && (device.vendor === "Amazon" || WITHOUT_GOOGLE_PLAY.test(agent)),
  };
};

/**
 * Agents parsed lately. Taps repeat a few agents many times over (every Android phone on one
 * Chrome release sends the same reduced agent, every iPhone on one iOS release nearly so), and
 * parsing one costs more than the rest of a tap's own work; the oldest goes first when full.
 */
const PARSED_AGENTS = 2_000;
/** Longer than real agents: what is longer is parsed each time, not kept. */
const MAX_KEPT_AGENT_LENGTH = 512;
const parsedAgents = new Map<string, AgentTraits>();

const agentTraits = (agent: string): AgentTraits => {
  const known = parsedAgents.get(agent);
  if (known) return known;
  const traits = parseAgent(agent);
  if (agent.length <= MAX_KEPT_AGENT_LENGTH) {
    if (parsedAgents.size >= PARSED_AGENTS) {
      const oldest = parsedAgents.keys().next();
      if (!oldest.done) parsedAgents.delete(oldest.value);
    }
    parsedAgents.set(agent, traits);
  }
  return traits;
};

export const deviceTraits = (
  userAgent: string | null | undefined,
  hints: DeviceHintHeaders = {},
): DeviceTraits => {
  const { platform, osVersion, deviceModel, isBot, reduced, withoutGooglePlay } = agentTraits(
    userAgent ?? "",
  );
  // A hint of only spaces says nothing (Chrome sends "" for a model it will not name).
  const hinted = (value: string | null) =>
    value === null || value.trim() === "" ? null : value.trim();
  return {
    platform,
    osVersion: reduced
      ? trimmedVersion(hinted(sfString(hints["sec-ch-ua-platform-version"])))
      : osVersion,
    deviceModel: reduced ? hinted(sfString(hints["sec-ch-ua-model"])) : deviceModel,
    isBot,
    reducedAgent: reduced,
    withoutGooglePlay,
  };
};
