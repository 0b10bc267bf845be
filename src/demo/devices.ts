/**
 * Phones of a demo audience, each seen two ways: as its SDK reports it on an install (`os`,
 * `os_version`, `device_model`, the app's own user agent) and as its browser's user agent
 * names it on a click. The matcher compares the click's browser agent with the install's SDK
 * fields, so the demo must speak both, as real devices do: a full Chrome agent names the
 * Android version and model, Chrome's reduced agent (`Android 10; K`) neither, and Safari an
 * iPhone without its model number.
 */
import type { Platform } from "../ports/apps.ts";
import type { Random } from "./prng.ts";

export interface Device {
  readonly os: Platform;
  readonly osVersion: string;
  /** As the SDK reports it: `Pixel 8`, `SM-S911B`, `iPhone15,2`. */
  readonly model: string;
}

/** Common phones (far fewer than the thousands seen in the wild). */
export const ANDROID_DEVICES: readonly Device[] = (
  [
    ["14", "Pixel 8"],
    ["14", "Pixel 7a"],
    ["14", "Pixel 6"],
    ["13", "SM-S911B"],
    ["14", "SM-S918B"],
    ["13", "SM-A546B"],
    ["13", "SM-A536B"],
    ["12", "SM-A127F"],
    ["11", "SM-A125F"],
    ["13", "SM-G991B"],
    ["12", "M2101K6G"],
    ["13", "2201117TG"],
    ["12", "M2003J15SC"],
    ["14", "CPH2451"],
    ["13", "CPH2237"],
    ["13", "moto g84 5G"],
    ["12", "moto g(60)"],
    ["13", "RMX3630"],
    ["12", "V2130"],
    ["13", "VOG-L29"],
    ["14", "NE2213"],
    ["12", "TECNO KG5k"],
  ] as const
).map(([osVersion, model]) => ({ os: "android", osVersion, model }));

export const IOS_DEVICES: readonly Device[] = (
  [
    ["17.4.1", "iPhone15,2"],
    ["17.5", "iPhone15,3"],
    ["18.1", "iPhone16,1"],
    ["18.0.1", "iPhone16,2"],
    ["17.4", "iPhone14,5"],
    ["16.7.8", "iPhone14,2"],
    ["16.6", "iPhone13,2"],
    ["18.1", "iPhone17,1"],
    ["15.8", "iPhone12,1"],
  ] as const
).map(([osVersion, model]) => ({ os: "ios", osVersion, model }));

export const devicesOf = (platform: Platform): readonly Device[] =>
  platform === "ios" ? IOS_DEVICES : ANDROID_DEVICES;

/** What a phone's browser sends when a user taps an ad's link on it. */
export const browserUserAgent = (device: Device, random: Random): string =>
  // Chrome has reduced its agent since version 110; in-app browsers and WebViews still name
  // the phone.
  device.os === "android" && random.chance(0.5)
    ? "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
    : namingAgent(device);

/** A browser's agent that says all it can of the phone: Safari's OS version, an Android's model. */
export const namingAgent = (device: Device): string => {
  if (device.os === "ios") {
    const underscored = device.osVersion.replaceAll(".", "_");
    return `Mozilla/5.0 (iPhone; CPU iPhone OS ${underscored} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${device.osVersion} Mobile/15E148 Safari/604.1`;
  }
  return `Mozilla/5.0 (Linux; Android ${device.osVersion}; ${device.model}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36`;
};

/** The app's own HTTP agent, which the SDK's requests carry. */
export const sdkUserAgent = (device: Device, appName: string): string =>
  device.os === "ios"
    ? `${appName.replaceAll(" ", "")}/3.2.1 CFNetwork/1494.0.7 Darwin/23.4.0`
    : `Dalvik/2.1.0 (Linux; U; Android ${device.osVersion}; ${device.model} Build/AP1A.240405.002)`;
