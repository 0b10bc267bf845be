/**
 * Matching an install to the touch that caused it (DESIGN, "Attribution"). The methods are
 * tried in order and the first that finds a touch wins; within a method the last touch before
 * the first open wins, and a click always beats an impression:
 *
 * 1. click id: the Play install referrer's (the link host put it there) or the opening link's;
 * 2. Apple Ads: the install's AdServices token, resolved by Apple;
 * 3. advertising id: the install's GAID, or its IDFA only with the user's consent (ATT);
 * 4. probabilistic: a click from the same IP (IPv6 by /64) on a compatible device, shortly
 *    before, on an OS where the app allows it; its confidence falls with time and with how
 *    many devices tapped from that IP;
 * 5. otherwise organic.
 *
 * A touch after the install began (by the store's clock, where the install says) is injected,
 * never a match. The lookups are the touch store's three, each an indexed window.
 */
import type { Os } from "../ports/installs.ts";
import type { AdFields } from "../ports/links.ts";
import type { SearchAds } from "../ports/search-ads.ts";
import type { Touch, TouchStore } from "../ports/touches.ts";
import { isPublicIp } from "../touches/ip.ts";
import type { TouchType } from "../touches/touch-request.ts";
import type { AttributionSettings, Confidence } from "./settings.ts";

export const ATT_STATUSES = ["authorized", "denied", "restricted", "not_determined"] as const;
export type AttStatus = (typeof ATT_STATUSES)[number];

/** What matching reads of an install. */
export interface InstallFacts {
  readonly appId: string;
  readonly os: Os;
  readonly osVersion: string | null;
  readonly deviceModel: string | null;
  /** ISO 8601 UTC, by the device's clock. */
  readonly firstOpenTime: string;
  /** When the service received the install (ISO 8601 UTC), by its own clock. */
  readonly receivedAt: string;
  /**
   * The service's clock minus the device's, from the time the SDK sent the install by its own
   * clock (`sent_at`); null when the request did not say.
   */
  readonly clockOffsetMs: number | null;
  readonly maid: string | null;
  readonly attStatus: AttStatus | null;
  /** The click id the Play install referrer carries. */
  readonly referrerClickId: string | null;
  /** The click id of the link that opened the app on its first launch. */
  readonly openUrlClickId: string | null;
  /** When the install began by the store's server clock (ISO 8601 UTC), if known. */
  readonly installBeganAt: string | null;
  /** The address the install was reported from. */
  readonly ip: string | null;
  /** Apple's AdServices token (iOS 14.3 and later), valid for 24 hours. */
  readonly platformAdsToken: string | null;
}

export type MatchMethod = "click_id" | "search_ads" | "advertising_id" | "probabilistic";

/** What a match credits: a touch of the store, or what Apple's attribution names. */
export interface Credit extends AdFields {
  readonly touchType: TouchType;
  readonly touchTime: string;
  readonly clickId: string | null;
  readonly deeplinkId: string | null;
  readonly params: Readonly<Record<string, string>>;
}

export type Match =
  | {
      readonly kind: "matched";
      readonly method: MatchMethod;
      readonly credit: Credit;
      readonly matchingType: "network" | "geo";
      readonly confidence: Confidence;
      /** How many other touches the winning method found eligible (Adjust's reftags). */
      readonly otherCandidates: number;
      /** Whole hours from the touch to the first open. */
      readonly clickToFirstOpenHours: number;
    }
  | { readonly kind: "organic" };

export type TouchLookups = Pick<TouchStore, "get" | "byMaid" | "byIp">;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** More devices than this behind one IP in the window (a carrier NAT): no geo match there. */
export const CROWDED_IP_DEVICES = 5;
/** A geo match within this long of its click, from an IP of at most 2 devices, is `medium`. */
export const MEDIUM_CONFIDENCE_HOURS = 1;

const timeOf = (iso: string) => Date.parse(iso);

/**
 * The first open by the service's clock, which the touches' times are on: the device's time
 * moved by the device's offset when the SDK sent its clock, and never after the service heard
 * of it. A phone's clock may be set anywhere; a slow one would put its first open before the
 * tap that caused it.
 */
export const trustedFirstOpen = (facts: InstallFacts): number =>
  Math.min(timeOf(facts.firstOpenTime) + (facts.clockOffsetMs ?? 0), timeOf(facts.receivedAt));

/**
 * The latest moment a touch may have: the install's begin by the store's server clock when
 * the install says (a click after it was injected), else the trusted first open.
 */
const latestTouchTime = (facts: InstallFacts) =>
  facts.installBeganAt ? timeOf(facts.installBeganAt) : trustedFirstOpen(facts);

/** Whether the touch is in its window before the first open (a click's, an impression's). */
const inWindow = (
  touch: Pick<Credit, "touchType" | "touchTime">,
  facts: InstallFacts,
  settings: AttributionSettings,
) => {
  const at = timeOf(touch.touchTime);
  const firstOpen = trustedFirstOpen(facts);
  const window =
    touch.touchType === "click"
      ? settings.clickWindowDays * DAY_MS
      : settings.viewWindowHours * HOUR_MS;
  return at <= latestTouchTime(facts) && at >= firstOpen - window;
};

/** The last click, else the last impression: the winner of a method, and the others' count. */
const lastTouch = (touches: readonly Touch[]): { winner: Touch; others: number } | undefined => {
  const newest = (kind: Touch["touchType"]) =>
    touches
      .filter((touch) => touch.touchType === kind)
      .reduce<Touch | undefined>(
        (best, touch) => (!best || timeOf(touch.touchTime) > timeOf(best.touchTime) ? touch : best),
        undefined,
      );
  const winner = newest("click") ?? newest("impression");
  return winner ? { winner, others: touches.length - 1 } : undefined;
};

const matched = (
  method: MatchMethod,
  found: { winner: Credit; others: number },
  facts: InstallFacts,
  confidence: Confidence,
): Match => ({
  kind: "matched",
  method,
  credit: found.winner,
  matchingType: method === "probabilistic" ? "geo" : "network",
  confidence,
  otherCandidates: found.others,
  clickToFirstOpenHours: Math.floor(
    Math.max(0, trustedFirstOpen(facts) - timeOf(found.winner.touchTime)) / HOUR_MS,
  ),
});

const major = (version: string) => version.split(/[._]/)[0] ?? version;
const squeezed = (model: string) => model.toLowerCase().replace(/[\s_-]/g, "");

/**
 * Whether a click's device may be the install's: what the click's browser user agent says (OS,
 * OS version, model) against what the SDK reports, each compared only when both say it. A
 * browser on iOS names only the family (`iPhone`), which the SDK's model (`iPhone15,2`) starts
 * with; Chrome's reduced agent hides version and model, which then do not count against it.
 */
export const compatibleDevice = (touch: Touch, facts: InstallFacts): boolean => {
  if (touch.platform !== facts.os) return false;
  if (touch.osVersion && facts.osVersion && major(touch.osVersion) !== major(facts.osVersion)) {
    return false;
  }
  if (touch.deviceModel && facts.deviceModel) {
    const clicked = squeezed(touch.deviceModel);
    const installed = squeezed(facts.deviceModel);
    // A browser's parser may drop the maker the SDK's Build.MODEL keeps (`TECNO KG5k` read as
    // `KG5k`); an iPhone's browser names only the family.
    const same =
      installed === clicked ||
      installed.endsWith(clicked) ||
      clicked.endsWith(installed) ||
      (facts.os === "ios" && installed.startsWith(clicked));
    if (!same) return false;
  }
  return true;
};

/**
 * Tells devices apart among the touches from one IP: their ad id, else an Android agent that
 * names the model. Chrome's reduced agent and Safari's are the same on millions of phones, so
 * each touch with one counts as a device of its own: a carrier NAT's crowd must never pass for
 * one phone that tapped many times.
 */
const deviceKey = (touch: Touch) =>
  touch.maid?.toLowerCase() ??
  (touch.platform === "android" && touch.deviceModel && touch.userAgent
    ? touch.userAgent
    : touch.clickId);

/** Whether the click's agent named both the OS version and the model, so both were compared. */
const fullyCompared = (touch: Touch, facts: InstallFacts) =>
  Boolean(touch.osVersion && facts.osVersion && touch.deviceModel && facts.deviceModel);

/**
 * A geo match's confidence, or undefined when the IP is too crowded to tell devices apart:
 * `medium` only soon after the click, from an IP of at most two devices, on a device the
 * click's agent named in full (a reduced agent matches on the OS alone: `low`).
 */
export const geoConfidence = (
  elapsedMs: number,
  devices: number,
  fullyNamed = true,
): Confidence | undefined => {
  if (devices > CROWDED_IP_DEVICES) return undefined;
  return elapsedMs <= MEDIUM_CONFIDENCE_HOURS * HOUR_MS && devices <= 2 && fullyNamed
    ? "medium"
    : "low";
};

const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

const byClickId = async (
  facts: InstallFacts,
  settings: AttributionSettings,
  lookups: TouchLookups,
): Promise<Match | undefined> => {
  for (const clickId of [facts.referrerClickId, facts.openUrlClickId]) {
    if (!clickId) continue;
    const touch = await lookups.get(clickId);
    if (touch && touch.appId === facts.appId && inWindow(touch, facts, settings)) {
      return matched("click_id", { winner: touch, others: 0 }, facts, "high");
    }
  }
  return undefined;
};

/** Apple's names in the AdServices answer, as what the install is credited to. */
export const SEARCH_ADS_SOURCE = "Apple Search Ads";

/**
 * Apple Ads: the install's AdServices token, resolved by Apple. `attribution: false` moves on;
 * a token Apple refuses (expired, malformed) too. Apple's own claim type and click date stand
 * for the touch, in the app's windows.
 */
const bySearchAds = async (
  facts: InstallFacts,
  settings: AttributionSettings,
  searchAds: SearchAds | undefined,
): Promise<Match | undefined> => {
  if (facts.os !== "ios" || !facts.platformAdsToken || !searchAds) return undefined;
  const answer = await searchAds.resolve(facts.platformAdsToken);
  if (!answer.attribution) return undefined;
  const credit: Credit = {
    mediaSource: SEARCH_ADS_SOURCE,
    campaignId: answer.campaignId,
    campaignName: null,
    adsetId: answer.adGroupId,
    adsetName: null,
    adId: answer.adId,
    adName: null,
    touchType: answer.claimType === "Impression" ? "impression" : "click",
    touchTime: answer.clickDate ?? new Date(trustedFirstOpen(facts)).toISOString(),
    clickId: null,
    deeplinkId: null,
    params: answer.keywordId ? { keyword_id: answer.keywordId } : {},
  };
  if (!inWindow(credit, facts, settings)) return undefined;
  return matched("search_ads", { winner: credit, others: 0 }, facts, "high");
};

/** An IDFA counts only with the user's consent; a GAID always (the user may reset it). */
const usableMaid = (facts: InstallFacts) =>
  facts.maid && (facts.os === "android" || facts.attStatus === "authorized") ? facts.maid : null;

const byAdvertisingId = async (
  facts: InstallFacts,
  settings: AttributionSettings,
  lookups: TouchLookups,
): Promise<Match | undefined> => {
  const maid = usableMaid(facts);
  if (!maid) return undefined;
  const firstOpen = trustedFirstOpen(facts);
  const reach = Math.max(settings.clickWindowDays * DAY_MS, settings.viewWindowHours * HOUR_MS);
  const touches = await lookups.byMaid(maid, {
    appId: facts.appId,
    from: new Date(firstOpen - reach),
    to: new Date(firstOpen),
  });
  const found = lastTouch(touches.filter((touch) => inWindow(touch, facts, settings)));
  return found && matched("advertising_id", found, facts, "high");
};

const probabilistically = async (
  facts: InstallFacts,
  settings: AttributionSettings,
  lookups: TouchLookups,
): Promise<Match | undefined> => {
  if (!settings.probabilistic[facts.os] || !facts.ip || !isPublicIp(facts.ip)) return undefined;
  const firstOpen = trustedFirstOpen(facts);
  const window = settings.probabilisticWindowHours * HOUR_MS;
  const touches = (
    await lookups.byIp(facts.ip, {
      appId: facts.appId,
      from: new Date(firstOpen - window),
      to: new Date(firstOpen),
    })
  ).filter((touch) => timeOf(touch.touchTime) <= latestTouchTime(facts));
  const devices = new Set(touches.map(deviceKey)).size;
  const clicks = touches.filter(
    (touch) => touch.touchType === "click" && compatibleDevice(touch, facts),
  );
  const found = lastTouch(clicks);
  if (!found) return undefined;
  const confidence = geoConfidence(
    firstOpen - timeOf(found.winner.touchTime),
    devices,
    fullyCompared(found.winner, facts),
  );
  if (!confidence || RANK[confidence] < RANK[settings.confidenceFloor]) return undefined;
  return matched("probabilistic", found, facts, confidence);
};

/** The install's match: the first method that finds a touch, else organic. */
export const matchInstall = async (
  facts: InstallFacts,
  settings: AttributionSettings,
  lookups: TouchLookups,
  searchAds?: SearchAds,
): Promise<Match> =>
  (await byClickId(facts, settings, lookups)) ??
  (await bySearchAds(facts, settings, searchAds)) ??
  (await byAdvertisingId(facts, settings, lookups)) ??
  (await probabilistically(facts, settings, lookups)) ?? { kind: "organic" };
