/**
 * A generated world for the attribution benchmark, with its ground truth: installs caused by a
 * tap whose click id the Play referrer brings back, by a network's click or impression on the
 * device's advertising id, by a tap from the install's own IP (no id), organic installs
 * (some behind a carrier NAT that tappers share, some at home beside a household member's tap
 * on another phone), and clicks that lead to no install. Seeded, so every run sees the same
 * world.
 */
import type { InstallFacts } from "../src/attribution/matcher.ts";
import { ANDROID_DEVICES } from "../src/demo/devices.ts";
import { createRandom } from "../src/demo/prng.ts";
import type { Touch } from "../src/ports/touches.ts";
import { NO_CAMPAIGN } from "../src/touches/touch.ts";
import { deviceTraits } from "../src/touches/user-agent.ts";

export type Cause = "click_id" | "advertising_id" | "probabilistic" | "organic";

export interface WorldInstall {
  readonly facts: InstallFacts;
  readonly cause: Cause;
  /** The touch that caused it, for every cause but organic. */
  readonly touchId: string | null;
}

export interface World {
  readonly touches: Touch[];
  readonly installs: WorldInstall[];
}

const agentOf = (version: string, model: string) =>
  `Mozilla/5.0 (Linux; Android ${version}; ${model}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36`;

export const generateWorld = (options: {
  appId: string;
  installs: number;
  firstOpen: Date;
  seed?: number;
}): World => {
  const random = createRandom(options.seed ?? 7);
  const next = () => random.next();
  const pick = <T>(list: readonly T[]): T => random.pick(list);
  const uuid = () => random.uuid();
  let ipCounter = 0;
  /** A public address of one home (81.0.0.0/8 and 82.0.0.0/8 are public unicast). */
  const homeIp = () => {
    ipCounter++;
    return `${81 + (ipCounter >> 16)}.${(ipCounter >> 8) & 255}.${ipCounter & 255}.${1 + Math.floor(next() * 250)}`;
  };
  // A carrier NAT's public side: many devices behind one public address.
  const CARRIER = Array.from({ length: 20 }, (_, i) => `84.${i}.0.1`);

  const firstOpen = options.firstOpen.getTime();
  const touches: Touch[] = [];
  const installs: WorldInstall[] = [];
  let clickCounter = 0;
  const touch = (
    before: number,
    device: { version: string; model: string; ip: string; maid: string | null },
    overrides: Partial<Touch> = {},
  ): Touch => {
    const userAgent = agentOf(device.version, device.model);
    const traits = deviceTraits(userAgent);
    const at = new Date(firstOpen - before).toISOString();
    const made: Touch = {
      clickId: `w${++clickCounter}`,
      appId: options.appId,
      touchType: "click",
      source: "link",
      touchTime: at,
      receivedAt: at,
      deeplinkId: null,
      mediaSource: pick(["facebook_ads", "tiktok", "googleadwords_int", "unity_ads"]),
      ...NO_CAMPAIGN,
      networkClickId: null,
      ip: device.ip,
      userAgent,
      platform: traits.platform,
      osVersion: traits.osVersion,
      deviceModel: traits.deviceModel,
      language: null,
      country: null,
      maid: device.maid,
      params: {},
      urlParams: {},
      ...overrides,
    };
    touches.push(made);
    return made;
  };
  const HOUR = 3_600_000;

  for (let i = 0; i < options.installs; i++) {
    const { osVersion: version, model } = pick(ANDROID_DEVICES);
    const roll = next();
    const behindCarrier = next() < 0.15;
    const ip = behindCarrier ? pick(CARRIER) : homeIp();
    const maid = next() < 0.7 ? uuid() : null;
    const device = { version, model, ip, maid };
    const facts: InstallFacts = {
      appId: options.appId,
      os: "android",
      osVersion: version,
      deviceModel: model,
      firstOpenTime: new Date(firstOpen).toISOString(),
      receivedAt: new Date(firstOpen + 1000).toISOString(),
      clockOffsetMs: 0,
      maid,
      attStatus: null,
      referrerClickId: null,
      openUrlClickId: null,
      installBeganAt: null,
      ip,
      platformAdsToken: null,
    };
    if (roll < 0.2) {
      const tap = touch(next() * 48 * HOUR, device);
      installs.push({
        facts: { ...facts, referrerClickId: tap.clickId },
        cause: "click_id",
        touchId: tap.clickId,
      });
    } else if (roll < 0.4 && maid) {
      const click = touch(
        next() * 5 * 24 * HOUR,
        { ...device, ip: homeIp() },
        { source: "network" },
      );
      installs.push({ facts, cause: "advertising_id", touchId: click.clickId });
    } else if (roll < 0.5 && maid) {
      const view = touch(
        next() * 20 * HOUR,
        { ...device, ip: homeIp() },
        {
          source: "network",
          touchType: "impression",
        },
      );
      installs.push({ facts, cause: "advertising_id", touchId: view.clickId });
    } else if (roll < 0.7 && !behindCarrier) {
      // A tap in a browser without an ad id, then the install from the same home.
      const tap = touch(next() * 3 * HOUR, { ...device, maid: null });
      installs.push({
        facts: { ...facts, maid: null },
        cause: "probabilistic",
        touchId: tap.clickId,
      });
    } else {
      // A household member's tap from the same home, on a phone of their own, an hour or
      // three before an organic install: what a probabilistic match may take for its cause.
      if (!behindCarrier && next() < 0.3) {
        const { osVersion: otherVersion, model: otherModel } = pick(ANDROID_DEVICES);
        touch(next() * 3 * HOUR, { version: otherVersion, model: otherModel, ip, maid: null });
      }
      installs.push({ facts, cause: "organic", touchId: null });
    }
  }
  // Clicks that lead nowhere: from the carrier NATs (so organic installs there have crowded
  // neighbours) and from homes of their own.
  for (let i = 0; i < options.installs / 2; i++) {
    const { osVersion: version, model } = pick(ANDROID_DEVICES);
    touch(next() * 5 * HOUR, {
      version,
      model,
      ip: next() < 0.5 ? pick(CARRIER) : homeIp(),
      maid: next() < 0.5 ? uuid() : null,
    });
  }
  return { touches, installs };
};
