/**
 * What a click's user agent says about the device that tapped a link: its platform (which
 * store to send it to), OS version and model (what the matcher compares with the SDK's report
 * of an install), and whether it is a bot or a link-preview fetcher (Slack, Facebook, Twitter,
 * Google and the like), which get their redirect but are never counted as clicks. Parsing is
 * ua-parser-js's and bot detection isbot's: both are kept current against real traffic.
 */
import { isbot } from "isbot";
import { UAParser } from "ua-parser-js";
import type { DevicePlatform } from "../domain/touch.ts";

export interface DeviceTraits {
  readonly platform: DevicePlatform;
  /** `14`, `17.4`; null when the agent does not say or hides it. */
  readonly osVersion: string | null;
  /** `Pixel 8`, `SM-S911B`, `iPhone`; null when the agent does not say or hides it. */
  readonly deviceModel: string | null;
  readonly isBot: boolean;
}

/**
 * Chrome's reduced user agent writes every Android device as `Android 10; K`: the version is
 * frozen and `K` stands for any model, so neither says anything about the device.
 */
const REDUCED_ANDROID_MODEL = "K";

export const deviceTraits = (userAgent: string | null | undefined): DeviceTraits => {
  const agent = userAgent ?? "";
  const { os, device } = new UAParser(agent).getResult();
  const platform: DevicePlatform =
    os.name === "Android" ? "android" : os.name === "iOS" ? "ios" : "other";
  const reduced = platform === "android" && device.model === REDUCED_ANDROID_MODEL;
  return {
    platform,
    osVersion: platform === "other" || reduced ? null : (os.version ?? null),
    deviceModel: platform === "other" || reduced ? null : (device.model ?? null),
    // An empty agent is no browser a person taps links in.
    isBot: agent.trim() === "" || isbot(agent),
  };
};
