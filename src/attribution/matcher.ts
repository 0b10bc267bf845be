/**
 * Matching an install to the touch that caused it (docs/attribution.md). The methods are
 * tried in order and the first that finds a click wins, else the first that finds an
 * impression (a click always beats an impression); within a method the last touch before the
 * first open wins:
 *
 * 1. click id: the Play install referrer's (the link host put it there) or the opening link's;
 * 2. Apple Ads: the install's AdServices token, resolved by Apple; where Apple dates its click,
 *    an advertising id's later click wins over it;
 * 3. advertising id: the install's GAID, or its IDFA only with the user's consent (ATT);
 * 4. probabilistic: a click from the same IP (IPv6 by /64) on a compatible device, minutes
 *    before the first open, on an OS where the app allows it; its confidence is what the
 *    evidence supports (see `geoConfidence`): how much of the device the click's agent named,
 *    and whether other phones at the address that day could have been the install's;
 * 5. otherwise organic.
 *
 * The install's times are read on the service's clock (./install-clock.ts). A touch after the
 * install began (where the install says) is injected, never a match; so is one the service
 * received after the install's report, whatever time it claims. The lookups are the touch
 * store's three, each an indexed window, and its count of the installs at an address.
 *
 * One tap is one install: a stored click that wins is claimed for the install
 * (`TouchStore.claimClick`). A probabilistic match passes a click another install holds, as
 * the twin at the same address it then is; a click id or an advertising id names the install's
 * own device, so it wins whoever holds the click, and claims it against a later twin.
 */

import type { Confidence, MatchMethod } from "../domain/attribution.ts";
import type { InstallFacts } from "../domain/install-facts.ts";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../domain/time.ts";
import type { TouchCost, TouchType } from "../domain/touch.ts";
import type { AdFields } from "../ports/links.ts";
import type { SearchAds } from "../ports/search-ads.ts";
import type { ClickHolder, Touch, TouchStore } from "../ports/touches.ts";
import { isPublicIp } from "../touches/ip.ts";
import { deviceTag } from "../touches/lookup-keys.ts";
import { type InstallClock, installClock } from "./install-clock.ts";
import type { AttributionSettings } from "./settings.ts";

/** What a match credits: a touch of the store, or what Apple's attribution names. */
export interface Credit extends AdFields {
  readonly touchType: TouchType;
  readonly touchTime: string;
  readonly clickId: string | null;
  readonly deeplinkId: string | null;
  readonly params: Readonly<Record<string, string>>;
  /** What the touch cost, as its link or network said; none for Apple's attribution. */
  readonly cost?: TouchCost | null;
  /** The network's own click id, when the network reported the touch. */
  readonly networkClickId?: string | null;
  /** The tapped URL's own query; none for Apple's attribution. */
  readonly urlParams?: Readonly<Record<string, string>>;
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
      /** Whole hours from the touch to the first open; null when the touch has no known time. */
      readonly clickToFirstOpenHours: number | null;
      /**
       * Another install of the same device holds the click already (its click id or its
       * advertising id found it): an install again from the click that brought the device,
       * which the click did not cause a second time.
       */
      readonly reinstall: boolean;
    }
  | { readonly kind: "organic" };

export type TouchLookups = Pick<
  TouchStore,
  "get" | "byMaid" | "byIp" | "installsAt" | "claimClick"
>;

/** The install being matched, as its claims on clicks name it. */
export interface Claimant {
  readonly appId: string;
  readonly serviceId: string;
  /** Its device's tag (lookup-keys.ts deviceTag), when it has an IDFV or advertising id. */
  readonly device: string | null;
}

/**
 * More phones than this behind one IP over a day (a carrier NAT, an office, a café): at most
 * `low`. Phones are told by their taps and by the installs that sent from the address.
 */
export const CROWDED_IP_DEVICES = 5;
/**
 * How many clicks a probabilistic match tries to claim before it gives up: each one passed is
 * held by another install at the address, which is then a crowd of alike phones anyway.
 */
const MAX_CLAIMS_TRIED = CROWDED_IP_DEVICES;
/**
 * How soon after its tap an install opens when the tap caused it: most open the app within
 * minutes of the store page. Past this, a tap from the same address is as likely a housemate's
 * or a stranger's as the install's own (the attribution benchmark's world,
 * docs/benchmarks.md#attribution), so a geo match past it is no match at all.
 */
export const PROMPT_OPEN_MINUTES = 20;
/**
 * How far back the taps from an address are read to tell how many phones share it: a day
 * shows a carrier NAT's or an office's crowd, and a housemate's phone, that a short window may
 * not.
 */
export const ADDRESS_HISTORY_HOURS = 24;

/**
 * How many distinct installs at an address matching counts to: one more than a crowd, which is
 * all the confidence rules ask.
 */
const INSTALLS_COUNTED = CROWDED_IP_DEVICES + 1;

const timeOf = (iso: string) => Date.parse(iso);

/**
 * Where a store lookup of the install's touches ends: at the first open, or later when the
 * install's begin is later (Play's server clock, and a phone whose slow clock nothing gave).
 */
const lookupEnd = (clock: InstallClock) => new Date(Math.max(clock.firstOpen, clock.latestTouch));

/**
 * Whether the touch is in its window before the first open (a click's, an impression's); the
 * click the install names itself may be as late as `latestOwnClick`.
 */
const inWindow = (
  touch: Pick<Credit, "touchType" | "touchTime">,
  clock: InstallClock,
  settings: AttributionSettings,
  own = false,
) => {
  const at = timeOf(touch.touchTime);
  const window =
    touch.touchType === "click"
      ? settings.clickWindowDays * DAY_MS
      : settings.viewWindowHours * HOUR_MS;
  return at <= (own ? clock.latestOwnClick : clock.latestTouch) && at >= clock.firstOpen - window;
};

/**
 * Whether the service had the touch when the install's report came: a touch it received later
 * (a network's click reported after the install, whatever time the network gave it) is never
 * a match, so that a backdated report cannot take the install, and a job run again later reads
 * what the first could.
 */
const knownAtReport = (touch: Pick<Touch, "receivedAt">, facts: InstallFacts) =>
  timeOf(touch.receivedAt) <= timeOf(facts.receivedAt);

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
  clock: InstallClock,
  confidence: Confidence,
): Match => ({
  kind: "matched",
  method,
  credit: found.winner,
  matchingType: method === "probabilistic" ? "geo" : "network",
  confidence,
  otherCandidates: found.others,
  clickToFirstOpenHours: Math.floor(
    Math.max(0, clock.firstOpen - timeOf(found.winner.touchTime)) / HOUR_MS,
  ),
  reinstall: false,
});

const squeezed = (model: string) => model.toLowerCase().replace(/[\s_-]/g, "");

/**
 * Whether two OS versions agree on every part both give: Safari writes `17_4` where the SDK
 * reports `17.4.1`, Chrome on Android only the major version. Comparing the minor version
 * where both have it tells apart iPhones that a major version alone would not.
 */
export const sameVersion = (clicked: string, installed: string): boolean => {
  const a = clicked.split(/[._]/);
  const b = installed.split(/[._]/);
  return a.slice(0, Math.min(a.length, b.length)).every((part, i) => part === b[i]);
};

/**
 * The Apple hardware model an iOS agent names, if any. Safari and Chrome on iOS name only the
 * family (`iPhone`), which millions of phones share; in-app browsers name the model itself
 * (Facebook's `FBDV/iPhone15,2`, Instagram's `(iPhone15,2; iOS 17_4_1; ...)`), which the
 * agent parser does not read.
 */
const appleModelOf = (userAgent: string | null) =>
  userAgent?.match(/\b((?:iPhone|iPad|iPod)\d{1,2},\d{1,2})\b/)?.[1] ?? null;

/** The model a click's agent names, as precisely as it names it; null when it hides it. */
const clickedModel = (touch: Touch) =>
  touch.platform === "ios"
    ? (appleModelOf(touch.userAgent) ?? touch.deviceModel)
    : touch.deviceModel;

/** Whether the click's agent named a model (not just the family), so the model was compared. */
const namesModel = (touch: Touch) =>
  touch.platform === "ios"
    ? appleModelOf(touch.userAgent) !== null
    : touch.deviceModel !== null && squeezed(touch.deviceModel) !== "";

/**
 * Whether a click's device may be the install's: what the click's browser user agent says (OS,
 * OS version, model) against what the SDK reports, each compared only when both say it. A
 * browser on iOS names only the family (`iPhone`), which the SDK's model (`iPhone15,2`) starts
 * with; Chrome's reduced agent hides version and model, which then do not count against it.
 */
export const compatibleDevice = (touch: Touch, facts: InstallFacts): boolean => {
  if (touch.platform !== facts.os) return false;
  if (touch.osVersion && facts.osVersion && !sameVersion(touch.osVersion, facts.osVersion)) {
    return false;
  }
  const model = clickedModel(touch);
  if (model && facts.deviceModel) {
    const clicked = squeezed(model);
    const installed = squeezed(facts.deviceModel);
    // A browser's parser may drop the maker the SDK's Build.MODEL keeps (`TECNO KG5k` read as
    // `KG5k`), a hint may keep one the SDK's does not; an iPhone's browser names only the
    // family. A model of only spaces or marks squeezes to nothing, which every model ends
    // with: it names none.
    const same =
      installed.endsWith(clicked) ||
      clicked.endsWith(installed) ||
      (!namesModel(touch) && installed.startsWith(clicked));
    if (!same) return false;
  }
  return true;
};

/**
 * How much of the install's device a click's agent let the matcher compare: `model` when it
 * named the model and the OS version (an Android agent in full, an in-app browser on iOS);
 * `version` when only the OS version (Safari and Chrome on iOS, which say `iPhone`, Firefox
 * on Android); `os` when only the OS (Chrome's reduced agent). The less it compared, the more
 * other phones would have passed: any iPhone on the same iOS release, any Android phone.
 */
export type DeviceEvidence = "model" | "version" | "os";

export const deviceEvidence = (touch: Touch, facts: InstallFacts): DeviceEvidence => {
  const version = Boolean(touch.osVersion && facts.osVersion);
  if (version && namesModel(touch) && facts.deviceModel) return "model";
  return version ? "version" : "os";
};

/**
 * Tells devices apart among the touches from one IP: their ad id, else an agent that names the
 * model (an Android agent in full, an iOS in-app browser's), with the model and OS version the
 * click holds (Chrome's reduced agent names no model, and one that sent its client hints is the
 * same string on every phone: the hints tell them apart). Chrome's reduced agent without hints
 * and Safari's are the same on millions of phones, so each touch with one counts as a device
 * of its own: a carrier NAT's crowd must never pass for one phone that tapped many times.
 */
export const deviceKey = (touch: Touch): string =>
  touch.maid?.toLowerCase() ??
  (touch.userAgent && namesModel(touch)
    ? `${touch.userAgent}|${touch.deviceModel ?? ""}|${touch.osVersion ?? ""}`
    : touch.clickId);

/** What a geo match rests on, beyond the shared address. */
export interface GeoEvidence {
  /** From the tap to the first open, by the service's clock. */
  readonly elapsedMs: number;
  /** How much of the device the tap's agent let the matcher compare. */
  readonly device: DeviceEvidence;
  /** Phones (by `deviceKey`) that touched from the address over the day, the tap's among them. */
  readonly devices: number;
  /**
   * Distinct installs of the app that sent from the address over the day, this one among them
   * (counted up to one past a crowd): phones that need not have tapped anything.
   */
  readonly installs: number;
  /** Other phones among them whose clicks would have passed as the install's phone too. */
  readonly rivals: number;
}

/**
 * The phones at the address over the day, as far as the service can tell: its taps' devices
 * or its installs, whichever are more. Not their sum: a phone that tapped and installed is in
 * both, and the two cannot be told apart.
 */
export const phonesAt = (evidence: Pick<GeoEvidence, "devices" | "installs">): number =>
  Math.max(evidence.devices, evidence.installs);

/**
 * A geo match's confidence, or undefined where the evidence cannot carry even `low`. A level
 * is a promise of precision (`medium` at least 95%, `low` at least 80%) on worlds with
 * households of alike phones, shared addresses and organic installs beside a stranger's tap:
 *
 * - only a prompt open (the tap at most `PROMPT_OPEN_MINUTES` before it) is evidence: later,
 *   a housemate's tap is about as likely;
 * - `medium` only when the agent named the model and the OS version, no other phone at the
 *   address over the day would have passed, and the address is no crowd: at most
 *   `CROWDED_IP_DEVICES` phones by its taps and by its installs (`phonesAt`), so a carrier
 *   NAT or a café where few tapped still reads as a crowd by the app's users there;
 * - a named model with an alike phone beside it, or at a crowded address, is `low`: two
 *   identical phones behind one address cannot be told apart by address and agent;
 * - an OS version without the model (an iPhone's Safari) is `low` when no other phone at the
 *   address would have passed, else nothing: every iPhone of the household on that release
 *   looks the same;
 * - the OS alone (Chrome's reduced agent) is `low` only when no other phone was seen at the
 *   address all day, by a tap or by an install.
 */
export const geoConfidence = (evidence: GeoEvidence): Confidence | undefined => {
  if (evidence.elapsedMs > PROMPT_OPEN_MINUTES * MINUTE_MS) return undefined;
  const phones = phonesAt(evidence);
  switch (evidence.device) {
    case "model":
      return evidence.rivals === 0 && phones <= CROWDED_IP_DEVICES ? "medium" : "low";
    case "version":
      return evidence.rivals === 0 ? "low" : undefined;
    case "os":
      return phones <= 1 ? "low" : undefined;
  }
};

const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

/** The referrer's touch (already read for the clock), else the opening link's, in its window. */
const byClickId = async (
  facts: InstallFacts,
  clock: InstallClock,
  settings: AttributionSettings,
  lookups: TouchLookups,
  referred: Touch | undefined,
): Promise<Match | undefined> => {
  const opened = async () =>
    facts.openUrlClickId ? await lookups.get(facts.openUrlClickId) : undefined;
  // The referrer's click is no cause of an install Play says it came after the start of.
  const referrer = async () => (clock.referrerClickAfterBegin ? undefined : referred);
  for (const read of [referrer, opened]) {
    const touch = await read();
    if (
      touch &&
      touch.appId === facts.appId &&
      knownAtReport(touch, facts) &&
      inWindow(touch, clock, settings, true)
    ) {
      return matched("click_id", { winner: touch, others: 0 }, clock, "high");
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
  clock: InstallClock,
  settings: AttributionSettings,
  searchAds: SearchAds | undefined,
): Promise<{ readonly match: Match; readonly dated: boolean } | undefined> => {
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
    touchTime: answer.clickDate ?? new Date(clock.firstOpen).toISOString(),
    clickId: null,
    deeplinkId: null,
    params: answer.keywordId ? { keyword_id: answer.keywordId } : {},
  };
  if (!inWindow(credit, clock, settings)) return undefined;
  const match = matched("search_ads", { winner: credit, others: 0 }, clock, "high");
  const dated = answer.clickDate !== null;
  // Apple's standard answer dates no click: its hours to the first open are unknown, not 0.
  return {
    match: dated || match.kind !== "matched" ? match : { ...match, clickToFirstOpenHours: null },
    dated,
  };
};

/**
 * Apple dates its click to the minute (`2026-11-24T09:17Z`): the click was somewhere in that
 * minute, so only a click after its end is surely later.
 */
const APPLE_CLICK_DATE_PRECISION_MS = 60_000;

/** An IDFA counts only with the user's consent; a GAID always (the user may reset it). */
const usableMaid = (facts: InstallFacts) =>
  facts.maid && (facts.os === "android" || facts.attStatus === "authorized") ? facts.maid : null;

const byAdvertisingId = async (
  facts: InstallFacts,
  clock: InstallClock,
  settings: AttributionSettings,
  lookups: TouchLookups,
): Promise<Match | undefined> => {
  const maid = usableMaid(facts);
  if (!maid) return undefined;
  const reach = Math.max(settings.clickWindowDays * DAY_MS, settings.viewWindowHours * HOUR_MS);
  const touches = await lookups.byMaid(maid, {
    appId: facts.appId,
    from: new Date(clock.firstOpen - reach),
    to: lookupEnd(clock),
  });
  const found = lastTouch(
    touches.filter((touch) => knownAtReport(touch, facts) && inWindow(touch, clock, settings)),
  );
  return found && matched("advertising_id", found, clock, "high");
};

const probabilistically = async (
  facts: InstallFacts,
  clock: InstallClock,
  settings: AttributionSettings,
  lookups: TouchLookups,
  claimant: Claimant,
): Promise<Match | undefined> => {
  const ip = facts.ip;
  if (!settings.probabilistic[facts.os] || !ip || !isPublicIp(ip)) return undefined;
  // Telling an iPhone by its address and agent is tracking to Apple: only a user who allowed
  // the app to track (ATT) may be matched so, whatever the app's switch says.
  if (facts.os === "ios" && facts.attStatus !== "authorized") return undefined;
  const firstOpen = clock.firstOpen;
  const window = settings.probabilisticWindowHours * HOUR_MS;
  const history = Math.max(window, ADDRESS_HISTORY_HOURS * HOUR_MS);
  // One read of the address's day: the window's clicks are the candidates, the whole day tells
  // how many phones share the address. A tap made while this install was downloading (after
  // the Play Store's install began) cannot be its own, but it is a phone at the address all the
  // same, and one alike is a rival.
  const day = (
    await lookups.byIp(ip, {
      appId: facts.appId,
      from: new Date(firstOpen - history),
      to: lookupEnd(clock),
    })
  ).filter((touch) => knownAtReport(touch, facts));
  const compatible = day.filter(
    (touch) => touch.touchType === "click" && compatibleDevice(touch, facts),
  );
  const candidates = compatible.filter((touch) => {
    const at = timeOf(touch.touchTime);
    return at >= firstOpen - window && at <= clock.latestTouch;
  });
  let installs: number | undefined;
  // A click another install holds is passed, the next one tried; the phone that tapped it
  // still counts among the address's.
  const held = new Set<string>();
  for (let tried = 0; tried < MAX_CLAIMS_TRIED; tried++) {
    const found = lastTouch(candidates.filter((touch) => !held.has(touch.clickId)));
    if (!found) return undefined;
    const mine = deviceKey(found.winner);
    // The installs that sent from the address over the same day, up to this one's own request:
    // the app's users there, whether or not they tapped anything.
    installs ??= await lookups.installsAt(
      ip,
      { appId: facts.appId, from: new Date(firstOpen - history), to: new Date(facts.receivedAt) },
      INSTALLS_COUNTED,
    );
    const confidence = geoConfidence({
      // On the service's clock where the phone's offset is known; a phone that gave none is
      // taken at its word, right for all but the few whose clock is minutes off.
      elapsedMs: firstOpen - timeOf(found.winner.touchTime),
      device: deviceEvidence(found.winner, facts),
      // Phones only: a laptop's tap of the same link (the landing page's QR code) is its
      // owner's, not another person's at the address. A network's touch with an advertising
      // id and no agent is a phone's all the same.
      devices: new Set(
        day.filter((touch) => touch.platform !== "other" || touch.maid !== null).map(deviceKey),
      ).size,
      installs,
      rivals: new Set(compatible.map(deviceKey).filter((key) => key !== mine)).size,
    });
    if (!confidence || RANK[confidence] < RANK[settings.confidenceFloor]) return undefined;
    const holder = await claim(lookups, claimant, found.winner, false);
    if (holder === "this_install") return matched("probabilistic", found, clock, confidence);
    // Held by an earlier install of this device: the same phone installing again from its own
    // click, credited to it as a reinstall, never passed on to a housemate's click.
    if (holder === "same_device")
      return reinstalled(matched("probabilistic", found, clock, confidence));
    held.add(found.winner.clickId);
  }
  return undefined;
};

/** A match of a click an earlier install of the same device holds: that phone installing again. */
const reinstalled = (match: Match): Match =>
  match.kind === "matched" ? { ...match, reinstall: true } : match;

/** Claims a stored click for the install: who holds it. */
const claim = (
  lookups: TouchLookups,
  claimant: Claimant,
  click: { readonly clickId: string; readonly touchTime: string },
  own: boolean,
): Promise<ClickHolder> =>
  lookups.claimClick({ ...claimant, clickId: click.clickId, touchTime: click.touchTime, own });

/** A match of the install's own device, whose click is claimed against a later twin's. */
const claimedOwn = async (
  match: Match | undefined,
  lookups: TouchLookups,
  claimant: Claimant,
): Promise<Match | undefined> => {
  if (match?.kind === "matched" && match.credit.clickId !== null) {
    const holder = await claim(
      lookups,
      claimant,
      { ...match.credit, clickId: match.credit.clickId },
      true,
    );
    // Held by a stranger (a probabilistic twin that came first), it is still this device's
    // click, and the claim notes it; held by another install of this device (first, or noted
    // so beside a twin's claim), this is that device installing again.
    if (holder === "same_device") return reinstalled(match);
  }
  return match;
};

/** The install's match: the first method that finds a click, else an impression, else organic. */
export const matchInstall = async (
  facts: InstallFacts,
  settings: AttributionSettings,
  lookups: TouchLookups,
  install: {
    readonly serviceId: string;
    /** The install's IDFV, else its advertising id, that its claims name (hashed). */
    readonly deviceId?: string | null;
    readonly searchAds?: SearchAds | undefined;
  },
): Promise<Match> => {
  const claimant: Claimant = {
    appId: facts.appId,
    serviceId: install.serviceId,
    device: install.deviceId ? deviceTag(facts.appId, install.deviceId) : null,
  };
  // The referrer's touch, read once: the click id method's first candidate, and, for a
  // request that sent no clock, what gives the device's offset.
  const referred = facts.referrerClickId ? await lookups.get(facts.referrerClickId) : undefined;
  const clock = installClock(facts, referred);
  const own = (match: Match | undefined) => claimedOwn(match, lookups, claimant);
  // A click beats an impression whichever method finds either, as the leading services rank
  // click-through above view-through: an impression a method finds waits while the later
  // methods look for a click, and wins (claimed then, as its method claims) only if none does.
  const methods: readonly (() => Promise<{ match: Match | undefined; claim: boolean }>)[] = [
    async () => ({
      match: await byClickId(facts, clock, settings, lookups, referred),
      claim: true,
    }),
    // Apple Ads and the advertising id both name the device: the later of their clicks wins,
    // as last click does among the leading services' deterministic candidates, where Apple
    // dates its click (a user who allowed tracking); Apple's undated claim stands first.
    async () => {
      const apple = await bySearchAds(facts, clock, settings, install.searchAds);
      if (
        apple?.match.kind !== "matched" ||
        !apple.dated ||
        apple.match.credit.touchType !== "click"
      )
        return { match: apple?.match, claim: false };
      const device = await byAdvertisingId(facts, clock, settings, lookups);
      if (
        device?.kind !== "matched" ||
        device.credit.touchType !== "click" ||
        timeOf(device.credit.touchTime) <
          timeOf(apple.match.credit.touchTime) + APPLE_CLICK_DATE_PRECISION_MS
      )
        return { match: apple.match, claim: false };
      return {
        match: { ...device, otherCandidates: device.otherCandidates + 1 },
        claim: true,
      };
    },
    async () => ({ match: await byAdvertisingId(facts, clock, settings, lookups), claim: true }),
    // Clicks alone, each claimed as it is tried.
    async () => ({
      match: await probabilistically(facts, clock, settings, lookups, claimant),
      claim: false,
    }),
  ];
  let impression: { match: Match; claim: boolean } | undefined;
  for (const method of methods) {
    const found = await method();
    if (found.match?.kind !== "matched") continue;
    if (found.match.credit.touchType !== "impression") {
      return found.claim ? ((await own(found.match)) ?? found.match) : found.match;
    }
    impression ??= { match: found.match, claim: found.claim };
  }
  if (!impression) return { kind: "organic" };
  return impression.claim ? ((await own(impression.match)) ?? impression.match) : impression.match;
};
