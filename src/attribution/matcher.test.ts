import { describe, expect, it } from "vitest";
import type { InstallFacts } from "../domain/install-facts.ts";
import type { SearchAds, SearchAdsAnswer } from "../ports/search-ads.ts";
import type { Touch, TouchWindow } from "../ports/touches.ts";
import { claimStep, type StoredClaim } from "../touches/click-claims.ts";
import { ipMatchKey } from "../touches/ip.ts";
import { NO_CAMPAIGN } from "../touches/touch.ts";
import { deviceTraits } from "../touches/user-agent.ts";
import {
  compatibleDevice,
  deviceEvidence,
  deviceKey,
  geoConfidence,
  type Match,
  matchInstall,
  sameVersion,
  type TouchLookups,
} from "./matcher.ts";
import { type AttributionSettings, DEFAULT_ATTRIBUTION } from "./settings.ts";

const APP = "com.example.game";
const FIRST_OPEN = Date.parse("2026-11-24T12:00:00.000Z");
const SECOND = 1_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GAID = "38400000-8cf0-11bd-b23e-10b96e40000d";
const IDFA = "6D92078A-8246-4BA4-AE5B-76104861E7DC";

const AGENTS = {
  pixel:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  galaxy:
    "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Mobile Safari/537.36",
  reduced:
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36",
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  desktop:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  other: (n: number) =>
    `Mozilla/5.0 (Linux; Android 14; Device${n}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36`,
};

let sequence = 0;
/** A touch `before` ms before the first open, its device read from a real browser agent. */
const touch = (before: number, overrides: Partial<Touch> = {}): Touch => {
  const userAgent = overrides.userAgent ?? AGENTS.pixel;
  const traits = deviceTraits(userAgent);
  const at = new Date(FIRST_OPEN - before).toISOString();
  return {
    clickId: `c${++sequence}`,
    appId: APP,
    touchType: "click",
    source: "link",
    touchTime: at,
    receivedAt: at,
    deeplinkId: "Kx3v9QpZ2aQ",
    mediaSource: "network_a",
    ...NO_CAMPAIGN,
    networkClickId: null,
    ip: "81.2.69.142",
    userAgent,
    platform: traits.platform,
    osVersion: traits.osVersion,
    deviceModel: traits.deviceModel,
    language: null,
    country: null,
    maid: null,
    params: {},
    urlParams: {},
    cost: null,
    ...overrides,
  };
};

/** What the SDK reports of a Pixel 8 on Android 14, opened from 81.2.69.142. */
const install = (overrides: Partial<InstallFacts> = {}): InstallFacts => ({
  appId: APP,
  os: "android",
  osVersion: "14",
  deviceModel: "Pixel 8",
  firstOpenTime: new Date(FIRST_OPEN).toISOString(),
  // Sent at once, by a clock that is right.
  receivedAt: new Date(FIRST_OPEN + SECOND).toISOString(),
  clockOffsetMs: 0,
  maid: null,
  attStatus: null,
  referrerClickId: null,
  openUrlClickId: null,
  installBeganAt: null,
  deviceReferrerClickAt: null,
  deviceInstallBeganAt: null,
  ip: "81.2.69.142",
  userAgent: null,
  platformAdsToken: null,
  ...overrides,
});

/** Installs of the app that sent from an address, and when (by the service's clock). */
interface Sighting {
  readonly ip: string;
  readonly serviceId: string;
  readonly at: number;
}

/**
 * The touch store's three lookups over a list, its count of the installs seen at an address,
 * and its claims of clicks, as the port promises them.
 */
const lookupsOf = (
  touches: readonly Touch[],
  sightings: readonly Sighting[] = [],
): TouchLookups => {
  const within = (window: TouchWindow) => (t: Touch) =>
    t.appId === window.appId &&
    Date.parse(t.touchTime) >= window.from.getTime() &&
    Date.parse(t.touchTime) <= window.to.getTime();
  const newestFirst = (a: Touch, b: Touch) => b.touchTime.localeCompare(a.touchTime);
  const claims = new Map<string, StoredClaim>();
  return {
    get: async (clickId) => touches.find((t) => t.clickId === clickId),
    byMaid: async (maid, window) =>
      touches
        .filter((t) => t.maid?.toLowerCase() === maid.toLowerCase() && within(window)(t))
        .sort(newestFirst),
    byIp: async (ip, window) =>
      touches
        .filter((t) => ipMatchKey(t.ip) === ipMatchKey(ip) && within(window)(t))
        .sort(newestFirst),
    installsAt: async (ip, window, cap) => {
      const seen = sightings.filter(
        (s) =>
          ipMatchKey(s.ip) === ipMatchKey(ip) &&
          s.at >= Math.floor(window.from.getTime() / HOUR) * HOUR &&
          s.at <= window.to.getTime(),
      );
      return Math.min(cap, new Set(seen.map((s) => s.serviceId)).size);
    },
    // The stores' rule (src/touches/click-claims.ts, held by both stores in
    // src/adapters/contracts/touch-store.test-support.ts), kept in a map.
    claimClick: async ({ appId, clickId, serviceId, device, own }) => {
      const step = claimStep(claims.get(clickId), { holder: `${appId}#${serviceId}`, device, own });
      if (step.next) claims.set(clickId, step.next);
      return step.holder;
    },
  };
};

const match = (
  facts: InstallFacts,
  touches: readonly Touch[],
  settings: Partial<AttributionSettings> = {},
  searchAds?: SearchAds,
  sightings: readonly Sighting[] = [],
): Promise<Match> =>
  matchInstall(facts, { ...DEFAULT_ATTRIBUTION, ...settings }, lookupsOf(touches, sightings), {
    serviceId: "install-1",
    searchAds,
  });

const winner = (result: Match) => (result.kind === "matched" ? result.credit.clickId : "organic");

describe("matching by click id", () => {
  it("matches the referrer's click, network and high, with the hours to the first open", async () => {
    const click = touch(3 * HOUR + 59 * 60 * SECOND, { params: { promo: "X" } });
    const result = await match(install({ referrerClickId: click.clickId }), [click]);
    expect(result).toMatchObject({
      kind: "matched",
      method: "click_id",
      matchingType: "network",
      confidence: "high",
      clickToFirstOpenHours: 3,
      otherCandidates: 0,
    });
  });

  it("takes the opening link's click id when there is no referrer's", async () => {
    const click = touch(HOUR);
    expect(winner(await match(install({ openUrlClickId: click.clickId }), [click]))).toBe(
      click.clickId,
    );
    // With both, the referrer's, which Play gave for this very download.
    const referred = touch(2 * HOUR);
    const both = install({ referrerClickId: referred.clickId, openUrlClickId: click.clickId });
    expect(winner(await match(both, [referred, click]))).toBe(referred.clickId);
  });

  it("takes a click one second inside the click window, not one second outside it", async () => {
    const edge = touch(7 * DAY);
    expect(winner(await match(install({ referrerClickId: edge.clickId }), [edge]))).toBe(
      edge.clickId,
    );
    const inside = touch(7 * DAY - SECOND);
    const outside = touch(7 * DAY + SECOND);
    expect(winner(await match(install({ referrerClickId: inside.clickId }), [inside]))).toBe(
      inside.clickId,
    );
    expect(winner(await match(install({ referrerClickId: outside.clickId }), [outside]))).toBe(
      "organic",
    );
    expect(
      winner(
        await match(install({ referrerClickId: outside.clickId }), [outside], {
          clickWindowDays: 8,
        }),
      ),
    ).toBe(outside.clickId);
  });

  it("refuses a click after the install began (injection) and another app's click", async () => {
    const injected = touch(10 * SECOND);
    const began = new Date(FIRST_OPEN - 60 * SECOND).toISOString();
    const result = await match(
      install({ referrerClickId: injected.clickId, installBeganAt: began, ip: null }),
      [injected],
    );
    expect(result.kind).toBe("organic");
    const foreign = touch(HOUR, { appId: "com.example.other" });
    expect(
      winner(await match(install({ referrerClickId: foreign.clickId, ip: null }), [foreign])),
    ).toBe("organic");
  });

  it("reads the first open on the service's clock: a phone 10 minutes slow keeps its tap", async () => {
    // Tapped 2 minutes before the first open; the phone's clock says it opened 8 minutes
    // before the tap, and sent the install by the same clock.
    const tap = touch(2 * 60 * SECOND, { maid: GAID });
    const slow = {
      firstOpenTime: new Date(FIRST_OPEN - 10 * 60 * SECOND).toISOString(),
      clockOffsetMs: 10 * 60 * SECOND,
    };
    expect(winner(await match(install({ ...slow, referrerClickId: tap.clickId }), [tap]))).toBe(
      tap.clickId,
    );
    expect(winner(await match(install({ ...slow, maid: GAID, ip: null }), [tap]))).toBe(
      tap.clickId,
    );
    // Without the device's clock, its first open is taken as it says, and the tap seems to
    // come after it...
    const unknown = { ...slow, clockOffsetMs: null };
    expect(winner(await match(install({ ...unknown, referrerClickId: tap.clickId }), [tap]))).toBe(
      "organic",
    );
    // ...unless Play's server clock says when the install began.
    const began = new Date(FIRST_OPEN - 60 * SECOND).toISOString();
    expect(
      winner(
        await match(install({ ...unknown, referrerClickId: tap.clickId, installBeganAt: began }), [
          tap,
        ]),
      ),
    ).toBe(tap.clickId);
    // The same for a network's click on its advertising id, which is looked up by time.
    expect(
      winner(
        await match(install({ ...unknown, maid: GAID, ip: null, installBeganAt: began }), [tap]),
      ),
    ).toBe(tap.clickId);
  });

  describe("a phone 15 minutes slow that sends no clock", () => {
    const SLOW = 15 * 60 * SECOND;
    /** A time by the service's clock, as the slow phone's clock reads it: ISO, or Play's seconds. */
    const onPhone = (serviceMs: number) => new Date(serviceMs - SLOW).toISOString();
    const playSeconds = (serviceMs: number) =>
      new Date(Math.floor((serviceMs - SLOW) / SECOND) * SECOND).toISOString();
    // Tapped 3 minutes before the first open; Play stamped the click 2 seconds after the tap.
    const tap = touch(3 * 60 * SECOND);
    const tapped = Date.parse(tap.touchTime);
    const slow = (overrides: Partial<InstallFacts> = {}) =>
      install({
        firstOpenTime: onPhone(FIRST_OPEN),
        clockOffsetMs: null,
        referrerClickId: tap.clickId,
        deviceReferrerClickAt: playSeconds(tapped + 2 * SECOND),
        ip: null,
        ...overrides,
      });

    it("reads its first open by the offset the referrer's tap gives: matched by click id", async () => {
      expect(await match(slow(), [tap])).toMatchObject({
        method: "click_id",
        confidence: "high",
        credit: { clickId: tap.clickId },
      });
      // Without Play's click time nothing gives the offset, and the first open, taken at the
      // phone's word, comes before the tap.
      expect(winner(await match(slow({ deviceReferrerClickAt: null }), [tap]))).toBe("organic");
    });

    it("keeps its install begin: a tap before it matches, a click after it was injected", async () => {
      const began = (serviceMs: number) => ({ deviceInstallBeganAt: playSeconds(serviceMs) });
      expect(winner(await match(slow(began(tapped + 40 * SECOND)), [tap]))).toBe(tap.clickId);
      // By the phone's clock the install began before Play's click: the click was injected.
      expect(winner(await match(slow(began(tapped - 30 * SECOND)), [tap]))).toBe("organic");
    });

    it("takes the offset only from the app's own tap, whose time is the service's", async () => {
      // A network's click is timed by the network's clock, another app's is not this install's.
      for (const other of [
        touch(3 * 60 * SECOND, { source: "network" }),
        touch(3 * 60 * SECOND, { appId: "com.example.other" }),
      ]) {
        const facts = slow({ referrerClickId: other.clickId });
        expect(winner(await match(facts, [other]))).toBe("organic");
      }
    });

    it("reads its first open by the same offset for the other methods", async () => {
      // Its ad id's click, 3 minutes before the first open, is before it on the service's clock.
      const byMaid = touch(3 * 60 * SECOND, { maid: GAID, source: "network" });
      // The referrer's tap is past the click window: it matches nothing, and still gives the
      // offset.
      const stale = touch(10 * DAY, { clickId: "stale" });
      const facts = slow({
        referrerClickId: stale.clickId,
        deviceReferrerClickAt: playSeconds(Date.parse(stale.touchTime) + 2 * SECOND),
        maid: GAID,
      });
      expect(winner(await match(facts, [stale, byMaid]))).toBe(byMaid.clickId);
    });
  });

  it("refuses the referrer's click Play stamped after its own begin, whatever is known of the clock", async () => {
    // A phone 10 minutes fast that sends no clock: Play's click time is past its first open, so
    // it gives no offset, and the first open, taken at the phone's word, reads late enough
    // for the tap.
    const FAST = 10 * 60 * SECOND;
    const tap = touch(3 * 60 * SECOND);
    const clickOnPhone = Date.parse(tap.touchTime) + FAST + 2 * SECOND;
    const fast = (beganOnPhone: number) =>
      install({
        firstOpenTime: new Date(beganOnPhone + 30 * SECOND).toISOString(),
        clockOffsetMs: null,
        referrerClickId: tap.clickId,
        deviceReferrerClickAt: new Date(clickOnPhone).toISOString(),
        deviceInstallBeganAt: new Date(beganOnPhone).toISOString(),
        ip: null,
      });
    // By the phone's one clock the install began 40 seconds before Play's click: injected.
    expect(winner(await match(fast(clickOnPhone - 40 * SECOND), [tap]))).toBe("organic");
    // Began after it: the click stands.
    expect(winner(await match(fast(clickOnPhone + 5 * SECOND), [tap]))).toBe(tap.clickId);
  });

  it("takes a first open up to a second before its own click as a rounding of the phone's clock", async () => {
    // A link that opened the app at once, its first open written to the whole second.
    const opened = touch(-800);
    const facts = install({ openUrlClickId: opened.clickId, ip: null });
    expect(await match(facts, [opened])).toMatchObject({ clickToFirstOpenHours: 0 });
    expect(winner(await match(facts, [opened]))).toBe(opened.clickId);
    const later = touch(-1_200);
    expect(winner(await match({ ...facts, openUrlClickId: later.clickId }, [later]))).toBe(
      "organic",
    );
    // An install begin is evidence of its own: a click after it is no rounding.
    const began = new Date(FIRST_OPEN - 30 * SECOND).toISOString();
    expect(winner(await match({ ...facts, installBeganAt: began }, [opened]))).toBe("organic");
  });

  it("refuses a click after Play's server-clock install begin whatever the phone's clock", async () => {
    const injected = touch(30 * SECOND, { maid: GAID });
    const began = new Date(FIRST_OPEN - 60 * SECOND).toISOString();
    for (const clockOffsetMs of [-DAY, 0, 10 * 60 * SECOND, DAY]) {
      const facts = install({
        referrerClickId: injected.clickId,
        maid: GAID,
        installBeganAt: began,
        clockOffsetMs,
      });
      expect(winner(await match(facts, [injected]))).toBe("organic");
    }
  });

  it("never puts a first open after the service heard of the install (a fast clock)", async () => {
    // The phone runs an hour fast and does not send its clock: a click after the install
    // reached the service cannot have caused it.
    const after = touch(-30 * SECOND);
    const fast = install({
      firstOpenTime: new Date(FIRST_OPEN + HOUR).toISOString(),
      receivedAt: new Date(FIRST_OPEN).toISOString(),
      clockOffsetMs: null,
      referrerClickId: after.clickId,
    });
    expect(winner(await match(fast, [after]))).toBe("organic");
  });

  it("wins over a later touch that another method would find", async () => {
    const referred = touch(5 * HOUR);
    const byMaid = touch(HOUR, { maid: GAID });
    const result = await match(install({ referrerClickId: referred.clickId, maid: GAID }), [
      referred,
      byMaid,
    ]);
    expect(winner(result)).toBe(referred.clickId);
  });
});

describe("matching by Apple Ads", () => {
  /** Apple's answer for any token, and the tokens it was asked about. */
  const apple = (answer: SearchAdsAnswer) => {
    const asked: string[] = [];
    const searchAds: SearchAds = {
      resolve: async (token) => {
        asked.push(token);
        return answer;
      },
    };
    return { searchAds, asked };
  };
  const attributed = (clickDate: string | null): SearchAdsAnswer => ({
    attribution: true,
    campaignId: "542370539",
    adGroupId: "542317095",
    keywordId: "87675432",
    adId: "542317136",
    claimType: "Click",
    clickDate,
  });
  const ios = (overrides: Partial<InstallFacts> = {}) =>
    install({
      os: "ios",
      osVersion: "17.4",
      deviceModel: "iPhone15,2",
      platformAdsToken: "token-1",
      maid: IDFA,
      attStatus: "authorized",
      ...overrides,
    });

  it("lets a click beat Apple's impression, and takes the impression with no click", async () => {
    const applesAnswer = attributed(new Date(FIRST_OPEN - 2 * HOUR).toISOString());
    if (!applesAnswer.attribution) throw new Error("attributed");
    const { searchAds } = apple({ ...applesAnswer, claimType: "Impression" });
    const click = touch(HOUR, { maid: IDFA, userAgent: AGENTS.iphone });
    const result = await match(ios(), [click], {}, searchAds);
    expect(result).toMatchObject({ method: "advertising_id", otherCandidates: 0 });
    expect(winner(result)).toBe(click.clickId);
    expect(await match(ios(), [], {}, searchAds)).toMatchObject({
      method: "search_ads",
      credit: { touchType: "impression" },
    });
  });

  it("credits Apple's campaign, ad group, ad and keyword, network and high", async () => {
    const { searchAds, asked } = apple(attributed(new Date(FIRST_OPEN - 2 * HOUR).toISOString()));
    const result = await match(
      ios(),
      [touch(3 * HOUR, { maid: IDFA, userAgent: AGENTS.iphone })],
      {},
      searchAds,
    );
    expect(asked).toEqual(["token-1"]);
    expect(result).toMatchObject({
      kind: "matched",
      method: "search_ads",
      matchingType: "network",
      confidence: "high",
      clickToFirstOpenHours: 2,
      credit: {
        mediaSource: "Apple Search Ads",
        campaignId: "542370539",
        adsetId: "542317095",
        adId: "542317136",
        clickId: null,
        params: { keyword_id: "87675432" },
      },
    });
  });

  it("lets the advertising id's later click beat Apple's dated one, never its undated claim", async () => {
    const dated = apple(attributed(new Date(FIRST_OPEN - 6 * DAY).toISOString()));
    const recent = touch(HOUR, { maid: IDFA, userAgent: AGENTS.iphone });
    const result = await match(ios(), [recent], {}, dated.searchAds);
    expect(result).toMatchObject({ method: "advertising_id", otherCandidates: 1 });
    expect(winner(result)).toBe(recent.clickId);
    // The same answer with its click later than the advertising id's: Apple's.
    const later = apple(attributed(new Date(FIRST_OPEN - HOUR / 2).toISOString()));
    expect(await match(ios(), [recent], {}, later.searchAds)).toMatchObject({
      method: "search_ads",
    });
    const undated = apple(attributed(null));
    expect(await match(ios(), [recent], {}, undated.searchAds)).toMatchObject({
      method: "search_ads",
      // Apple's standard answer dates no click: its hours to the first open are not known.
      clickToFirstOpenHours: null,
    });
    expect(await match(ios(), [], {}, later.searchAds)).toMatchObject({
      clickToFirstOpenHours: 0,
    });
    expect(await match(ios(), [], {}, dated.searchAds)).toMatchObject({
      clickToFirstOpenHours: 144,
    });
  });

  it("takes Apple's impression over the advertising id's when neither method finds a click", async () => {
    const applesAnswer = attributed(new Date(FIRST_OPEN - 2 * HOUR).toISOString());
    if (!applesAnswer.attribution) throw new Error("attributed");
    const { searchAds } = apple({ ...applesAnswer, claimType: "Impression" });
    const viewed = touch(HOUR, { maid: IDFA, userAgent: AGENTS.iphone, touchType: "impression" });
    expect(await match(ios(), [viewed], {}, searchAds)).toMatchObject({
      method: "search_ads",
      credit: { touchType: "impression" },
    });
  });

  it("takes Apple's dated click over the advertising id's later impression", async () => {
    const dated = apple(attributed(new Date(FIRST_OPEN - 2 * HOUR).toISOString()));
    const viewed = touch(HOUR, { maid: IDFA, userAgent: AGENTS.iphone, touchType: "impression" });
    expect(await match(ios(), [viewed], {}, dated.searchAds)).toMatchObject({
      method: "search_ads",
      credit: { touchType: "click" },
    });
  });

  it("takes Apple's dated click when the advertising id finds none, and on a tie", async () => {
    const at = FIRST_OPEN - 2 * HOUR;
    const dated = apple(attributed(new Date(at).toISOString()));
    expect(await match(ios(), [], {}, dated.searchAds)).toMatchObject({ method: "search_ads" });
    expect(await match(ios({ maid: null }), [], {}, dated.searchAds)).toMatchObject({
      method: "search_ads",
    });
    // The advertising id's click at the very time of Apple's: Apple's, which names its campaign.
    const same = touch(2 * HOUR, { maid: IDFA, userAgent: AGENTS.iphone });
    expect(await match(ios(), [same], {}, dated.searchAds)).toMatchObject({
      method: "search_ads",
    });
    // Apple dates its click to the minute: one within that minute may have come before Apple's.
    const sameMinute = touch(2 * HOUR - 59 * SECOND, { maid: IDFA, userAgent: AGENTS.iphone });
    expect(await match(ios(), [sameMinute], {}, dated.searchAds)).toMatchObject({
      method: "search_ads",
    });
    const nextMinute = touch(2 * HOUR - 60 * SECOND, { maid: IDFA, userAgent: AGENTS.iphone });
    expect(await match(ios(), [nextMinute], {}, dated.searchAds)).toMatchObject({
      method: "advertising_id",
    });
  });

  it("claims the advertising id's click that beats Apple's, so the phone's next install is a reinstall", async () => {
    const dated = apple(attributed(new Date(FIRST_OPEN - 6 * DAY).toISOString()));
    const recent = touch(HOUR, { maid: IDFA, userAgent: AGENTS.iphone });
    const lookups = lookupsOf([recent]);
    const first = await matchInstall(ios(), DEFAULT_ATTRIBUTION, lookups, {
      serviceId: "install-1",
      deviceId: IDFA,
      searchAds: dated.searchAds,
    });
    expect(first).toMatchObject({ method: "advertising_id", reinstall: false });
    const again = await matchInstall(ios(), DEFAULT_ATTRIBUTION, lookups, {
      serviceId: "install-2",
      deviceId: IDFA,
      searchAds: dated.searchAds,
    });
    expect(again).toMatchObject({ method: "advertising_id", reinstall: true });
  });

  it("moves on when Apple says no attribution, or the click is outside the window", async () => {
    const byIdfa = touch(HOUR, { maid: IDFA, userAgent: AGENTS.iphone });
    const no = apple({ attribution: false });
    expect(winner(await match(ios(), [byIdfa], {}, no.searchAds))).toBe(byIdfa.clickId);
    const old = apple(attributed(new Date(FIRST_OPEN - 8 * DAY).toISOString()));
    expect(await match(ios({ maid: null }), [], {}, old.searchAds)).toMatchObject({
      kind: "organic",
    });
  });

  it("asks Apple only for an iOS install with a token, after a click id's match", async () => {
    const { searchAds, asked } = apple(attributed(null));
    await match(install({ platformAdsToken: "android-token" }), [], {}, searchAds);
    await match(ios({ platformAdsToken: null }), [], {}, searchAds);
    const referred = touch(HOUR, { userAgent: AGENTS.iphone });
    const result = await match(
      ios({ openUrlClickId: referred.clickId }),
      [referred],
      {},
      searchAds,
    );
    expect(winner(result)).toBe(referred.clickId);
    expect(asked).toEqual([]);
  });
});

describe("matching by advertising id", () => {
  it("matches a GAID's last click, and counts the other candidates", async () => {
    const older = touch(2 * DAY, { maid: GAID });
    const newer = touch(DAY, { maid: GAID.toUpperCase() });
    const result = await match(install({ maid: GAID, ip: null }), [older, newer]);
    expect(result).toMatchObject({
      method: "advertising_id",
      matchingType: "network",
      confidence: "high",
      otherCandidates: 1,
    });
    expect(winner(result)).toBe(newer.clickId);
  });

  it("lets a click beat a later impression", async () => {
    const click = touch(5 * HOUR, { maid: GAID });
    const impression = touch(HOUR, { maid: GAID, touchType: "impression" });
    expect(winner(await match(install({ maid: GAID }), [click, impression]))).toBe(click.clickId);
  });

  it("lets a click a later method finds beat an impression an earlier one found", async () => {
    // A network's impression names the phone's GAID; a tap on a link from the same address,
    // minutes before the first open, names its model: the tap wins, probabilistically.
    const impression = touch(2 * HOUR, { maid: GAID, touchType: "impression", ip: null });
    const tap = touch(5 * 60 * SECOND);
    const result = await match(install({ maid: GAID }), [impression, tap]);
    expect(result).toMatchObject({ method: "probabilistic", confidence: "medium" });
    expect(winner(result)).toBe(tap.clickId);
    // With no click found, the impression stands.
    const alone = await match(install({ maid: GAID }), [impression]);
    expect(alone).toMatchObject({ method: "advertising_id" });
    expect(winner(alone)).toBe(impression.clickId);
  });

  it("takes an impression one second inside the view window, not one second outside", async () => {
    const inside = touch(24 * HOUR - SECOND, { maid: GAID, touchType: "impression" });
    const outside = touch(24 * HOUR + SECOND, { maid: GAID, touchType: "impression" });
    expect(winner(await match(install({ maid: GAID, ip: null }), [inside]))).toBe(inside.clickId);
    expect(winner(await match(install({ maid: GAID, ip: null }), [outside]))).toBe("organic");
    // A view window longer than the click window reads that far back.
    const older = touch(30 * HOUR, { maid: GAID, touchType: "impression" });
    const settings = { clickWindowDays: 1, viewWindowHours: 48 };
    expect(winner(await match(install({ maid: GAID, ip: null }), [older], settings))).toBe(
      older.clickId,
    );
  });

  it("never credits a touch the service received after the install's report, whatever its time", async () => {
    // A network reports a click an hour before the first open, a minute after the install came:
    // a job run again (the sweep) would otherwise credit it.
    const late = new Date(FIRST_OPEN + 61 * SECOND).toISOString();
    const backdated = touch(HOUR, { maid: GAID, source: "network", receivedAt: late });
    expect(winner(await match(install({ maid: GAID }), [backdated]))).toBe("organic");
    const inTime = touch(HOUR, { maid: GAID, source: "network" });
    expect(winner(await match(install({ maid: GAID }), [backdated, inTime]))).toBe(inTime.clickId);
    // One received in the same millisecond as the install was known to it.
    const sameInstant = new Date(FIRST_OPEN + SECOND).toISOString();
    const justInTime = touch(HOUR, { maid: GAID, source: "network", receivedAt: sameInstant });
    expect(winner(await match(install({ maid: GAID }), [justInTime]))).toBe(justInTime.clickId);
    // Nor by address, nor by a click id.
    const nearby = touch(5 * 60 * SECOND, { receivedAt: late });
    expect(winner(await match(install(), [nearby]))).toBe("organic");
    expect(winner(await match(install({ referrerClickId: nearby.clickId }), [nearby]))).toBe(
      "organic",
    );
  });

  it("uses an IDFA only when the user authorized tracking", async () => {
    const click = touch(HOUR, { maid: IDFA, userAgent: AGENTS.iphone });
    const ios = (attStatus: InstallFacts["attStatus"]) =>
      install({ os: "ios", osVersion: "17.4", deviceModel: "iPhone15,2", maid: IDFA, attStatus });
    expect(winner(await match(ios("authorized"), [click]))).toBe(click.clickId);
    for (const status of ["denied", "restricted", "not_determined", null] as const) {
      expect(winner(await match(ios(status), [click]))).toBe("organic");
    }
  });
});

describe("probabilistic matching", () => {
  const MINUTE = 60 * SECOND;
  const IOS_ON = { probabilistic: { android: true, ios: true } };
  /** What the SDK reports of an iPhone 14 Pro (iPhone15,2) on iOS 17.4.1. */
  /** An iPhone whose user allowed the app to track (ATT), as iOS's probabilistic match needs. */
  const iphone = (overrides: Partial<InstallFacts> = {}) =>
    install({
      os: "ios",
      osVersion: "17.4.1",
      deviceModel: "iPhone15,2",
      attStatus: "authorized",
      ...overrides,
    });
  /** Facebook's in-app browser on an iPhone: it names the model, which Safari never does. */
  const facebookOn = (model: string, version = "17_4_1") =>
    `Mozilla/5.0 (iPhone; CPU iPhone OS ${version} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21E236 [FBAN/FBIOS;FBAV/458.0.0.36.108;FBDV/${model};FBMD/iPhone;FBSN/iOS;FBSV/${version.replaceAll("_", ".")};FBLC/en_US]`;
  const pixelWithChrome = (major: number) =>
    `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`;

  it.each([
    // [what the click's agent or hint says, what the SDK reports, compatible]
    ["KG5k", "TECNO KG5k", true], // the browser's parser dropped the maker
    ["Samsung SM-S911B", "SM-S911B", true], // the hint kept a maker the SDK does not
    ["Pixel-8", "pixel 8", true], // case, spaces and marks aside
    ["Pixel 8", "Pixel 8 Pro", false],
    ["Pixel 8 Pro", "Pixel 8", false],
    ["SM-S911B", "Pixel 8", false],
    [" - ", "Pixel 8", true], // only marks: names no model
  ])("compares an Android click's model %j with the SDK's %j: %s", (clicked, installed, same) => {
    const click = touch(0, { deviceModel: clicked });
    expect(compatibleDevice(click, install({ deviceModel: installed }))).toBe(same);
  });

  it("compares the model an iOS in-app browser names in full, and Safari's family by its start", () => {
    const named = (model: string) => touch(0, { userAgent: facebookOn(model) });
    expect(compatibleDevice(named("iPad13,16"), iphone({ deviceModel: "iPad13,16" }))).toBe(true);
    // A named model is never a family: iPad13,1 (an iPad Air 4) is not iPad13,16 (an Air 5).
    expect(compatibleDevice(named("iPad13,1"), iphone({ deviceModel: "iPad13,16" }))).toBe(false);
    expect(compatibleDevice(named("iPhone15,3"), iphone())).toBe(false);
    const safari = touch(0, { userAgent: AGENTS.iphone });
    expect(compatibleDevice(safari, iphone({ deviceModel: "iPhone16,1" }))).toBe(true);
    expect(compatibleDevice(safari, iphone({ deviceModel: "iPad13,16" }))).toBe(false);
  });

  it("compares an iPhone on iOS 26 by the release Safari names, not the frozen one its agent writes", () => {
    const safari26 = touch(0, {
      userAgent:
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.3 Mobile/15E148 Safari/604.1",
    });
    expect(compatibleDevice(safari26, iphone({ osVersion: "26.3.1" }))).toBe(true);
    expect(compatibleDevice(safari26, iphone({ osVersion: "18.7" }))).toBe(false);
    expect(deviceEvidence(safari26, iphone({ osVersion: "26.3.1" }))).toBe("version");
  });

  it("matches a prompt compatible click from the same IP: geo, medium", async () => {
    const click = touch(5 * MINUTE);
    const result = await match(install(), [click]);
    expect(result).toMatchObject({
      method: "probabilistic",
      matchingType: "geo",
      confidence: "medium",
    });
    expect(winner(result)).toBe(click.clickId);
  });

  it("takes only a prompt open as evidence: a tap 21 minutes before is no match", async () => {
    // Most installs open within minutes of their tap; later, a housemate's tap is as likely.
    expect(await match(install(), [touch(19 * MINUTE)])).toMatchObject({ confidence: "medium" });
    expect((await match(install(), [touch(21 * MINUTE)])).kind).toBe("organic");
    expect((await match(install(), [touch(6 * HOUR - SECOND)])).kind).toBe("organic");
  });

  it("never matches at medium an organic phone identical to a housemate's that tapped", async () => {
    // Two Pixel 8s on Android 14 behind one home: the housemate's tapped and installed half an
    // hour ago; the other's organic install has the same agent and address, only later.
    const housemates = touch(30 * MINUTE);
    expect((await match(install(), [housemates])).kind).toBe("organic");
    // When both phones tapped (their Chrome builds tell them apart), neither tap is sure.
    const mine = touch(5 * MINUTE, { userAgent: pixelWithChrome(125) });
    const theirs = touch(3 * HOUR, { userAgent: pixelWithChrome(123) });
    expect(await match(install(), [mine, theirs])).toMatchObject({ confidence: "low" });
    expect(winner(await match(install(), [mine, theirs]))).toBe(mine.clickId);
    // The housemate's tap earlier that day, before the window the candidates are read from,
    // is a phone that would have passed all the same.
    const morning = touch(10 * HOUR, { userAgent: pixelWithChrome(123) });
    expect(await match(install(), [mine, morning])).toMatchObject({ confidence: "low" });
    expect(await match(install(), [mine])).toMatchObject({ confidence: "medium" });
  });

  it("counts a phone that tapped while this install downloaded among the address's, though its tap cannot win", async () => {
    const mine = touch(10 * MINUTE, { userAgent: pixelWithChrome(125) });
    // Another Pixel 8 taps a minute before the first open, after the Play Store's install began.
    const theirs = touch(MINUTE, { userAgent: pixelWithChrome(123) });
    const began = { installBeganAt: new Date(FIRST_OPEN - 3 * MINUTE).toISOString() };
    const result = await match(install(began), [mine, theirs]);
    expect(winner(result)).toBe(mine.clickId);
    expect(result).toMatchObject({ confidence: "low" });
    expect(await match(install(began), [mine])).toMatchObject({ confidence: "medium" });
  });

  it("compares the click's browser with what the SDK reports, never two user agents", async () => {
    // A Galaxy on Android 13 is not the Pixel 8 on 14; an iPhone is no Android phone.
    expect((await match(install(), [touch(5 * MINUTE, { userAgent: AGENTS.galaxy })])).kind).toBe(
      "organic",
    );
    expect((await match(install(), [touch(5 * MINUTE, { userAgent: AGENTS.iphone })])).kind).toBe(
      "organic",
    );
    // Chrome's reduced agent hides version and model: compatible on the OS alone, and so no
    // more than low, however soon and however alone.
    expect(
      await match(install(), [touch(5 * MINUTE, { userAgent: AGENTS.reduced })]),
    ).toMatchObject({
      kind: "matched",
      confidence: "low",
    });
  });

  it("takes the OS alone only from an address no other phone touched from that day", async () => {
    const reduced = touch(5 * MINUTE, { userAgent: AGENTS.reduced });
    const earlier = touch(10 * HOUR, { userAgent: AGENTS.galaxy });
    expect((await match(install(), [reduced, earlier])).kind).toBe("organic");
    // A day and more ago is another day.
    const yesterday = touch(25 * HOUR, { userAgent: AGENTS.galaxy });
    expect(await match(install(), [reduced, yesterday])).toMatchObject({ confidence: "low" });
    // A laptop's tap of the link (its landing page, before the phone scanned the QR code) is
    // no other phone at the address.
    const laptop = touch(10 * HOUR, { userAgent: AGENTS.desktop });
    expect(laptop.platform).toBe("other");
    expect(await match(install(), [reduced, laptop])).toMatchObject({ confidence: "low" });
  });

  it("compares the model and version Chrome's reduced agent gave as client hints as a full agent's", async () => {
    const hinted = (model: string, version: string) =>
      touch(5 * MINUTE, {
        userAgent: AGENTS.reduced,
        ...deviceTraits(AGENTS.reduced, {
          "sec-ch-ua-model": `"${model}"`,
          "sec-ch-ua-platform-version": `"${version}"`,
        }),
      });
    // The install's model and release: medium, as a full agent naming them would be.
    expect(await match(install(), [hinted("Pixel 8", "14.0.0")])).toMatchObject({
      confidence: "medium",
    });
    // Another model, or another release, is another phone.
    expect((await match(install(), [hinted("SM-S911B", "14.0.0")])).kind).toBe("organic");
    expect((await match(install(), [hinted("Pixel 8", "13.0.0")])).kind).toBe("organic");
  });

  it("reads the model Instagram's in-app browser names on iOS, as Facebook's", async () => {
    const instagram = (model: string) =>
      `Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21E236 Instagram 329.0.0.25.108 (${model}; iOS 17_4_1; en_US; en; scale=3.00; 1179x2556; 593213064)`;
    const mine = touch(2 * MINUTE, { userAgent: instagram("iPhone15,2") });
    expect(await match(iphone(), [mine], IOS_ON)).toMatchObject({ confidence: "medium" });
    const another = touch(2 * MINUTE, { userAgent: instagram("iPhone14,5") });
    expect((await match(iphone(), [another], IOS_ON)).kind).toBe("organic");
  });

  it("takes a model hint of only spaces for none: it matches no model by itself", async () => {
    const blank = touch(5 * MINUTE, {
      userAgent: AGENTS.reduced,
      ...deviceTraits(AGENTS.reduced, {
        "sec-ch-ua-model": '" "',
        "sec-ch-ua-platform-version": '"14.0.0"',
      }),
    });
    expect(blank.deviceModel).toBeNull();
    // OS evidence alone: low, never the medium a named model may reach.
    expect(await match(install(), [blank])).toMatchObject({ confidence: "low" });
  });

  it("is off on iOS unless the app turns it on", async () => {
    const click = touch(5 * MINUTE, { userAgent: AGENTS.iphone });
    expect((await match(iphone(), [click])).kind).toBe("organic");
    expect(await match(iphone(), [click], IOS_ON)).toMatchObject({ method: "probabilistic" });
  });

  it("never takes it on iOS for a user who did not allow tracking, the switch on or not", async () => {
    const click = touch(5 * MINUTE, { userAgent: facebookOn("iPhone15,2") });
    for (const attStatus of ["denied", "restricted", "not_determined", null] as const) {
      expect((await match(iphone({ attStatus }), [click], IOS_ON)).kind, String(attStatus)).toBe(
        "organic",
      );
    }
    expect(await match(iphone(), [click], IOS_ON)).toMatchObject({ confidence: "medium" });
  });

  it("takes an iPhone's Safari, which names no model, as low at most", async () => {
    // Safari says `iPhone` and the OS version: any iPhone on iOS 17.4 behind the address, a
    // housemate's or a stranger's, would have sent the same.
    const safari = touch(2 * MINUTE, { userAgent: AGENTS.iphone });
    expect(await match(iphone(), [safari], IOS_ON)).toMatchObject({ confidence: "low" });
    // Another iPhone on that release tapped from the address today: nothing tells them apart.
    const housemate = touch(4 * HOUR, { userAgent: AGENTS.iphone });
    expect((await match(iphone(), [safari, housemate], IOS_ON)).kind).toBe("organic");
  });

  it("compares the iOS version as far as both sides give it, not just the major", async () => {
    const safari = touch(2 * MINUTE, { userAgent: AGENTS.iphone }); // iOS 17_4
    expect((await match(iphone({ osVersion: "17.5" }), [safari], IOS_ON)).kind).toBe("organic");
    expect(await match(iphone({ osVersion: "17.4" }), [safari], IOS_ON)).toMatchObject({
      confidence: "low",
    });
  });

  it("reads the model an in-app browser names on iOS: medium when it is the install's", async () => {
    const mine = touch(2 * MINUTE, { userAgent: facebookOn("iPhone15,2") });
    expect(await match(iphone(), [mine], IOS_ON)).toMatchObject({ confidence: "medium" });
    const another = touch(2 * MINUTE, { userAgent: facebookOn("iPhone14,5") });
    expect((await match(iphone(), [another], IOS_ON)).kind).toBe("organic");
  });

  it("never matches on a private, loopback, link-local, documentation or carrier-NAT address", async () => {
    for (const ip of [
      "10.1.2.3",
      "127.0.0.1",
      "::1",
      "100.64.1.2",
      "192.168.0.7",
      "fd00::1",
      "169.254.10.20",
      "fe80::1",
      "192.0.2.10",
      "198.51.100.7",
      "203.0.113.9",
      "2001:db8::1",
    ]) {
      expect((await match(install({ ip }), [touch(5 * MINUTE, { ip })])).kind, ip).toBe("organic");
    }
  });

  it("matches an IPv6 install to a click from another address of its /64", async () => {
    const click = touch(5 * MINUTE, { ip: "2a00:1450:4001:81a::1" });
    expect(winner(await match(install({ ip: "2a00:1450:4001:81a::beef" }), [click]))).toBe(
      click.clickId,
    );
  });

  it("is low at an address many phones share that day, and below the floor organic", async () => {
    const mine = touch(5 * MINUTE);
    const others = (n: number) =>
      Array.from({ length: n }, (_, i) => touch(8 * HOUR, { userAgent: AGENTS.other(i) }));
    expect(await match(install(), [mine, ...others(4)])).toMatchObject({ confidence: "medium" });
    expect(await match(install(), [mine, ...others(5)])).toMatchObject({ confidence: "low" });
    expect((await match(install(), [mine, ...others(5)], { confidenceFloor: "medium" })).kind).toBe(
      "organic",
    );
  });

  it("counts a network's touches that carry an advertising id but no agent as phones there", async () => {
    const mine = touch(5 * MINUTE);
    // Impressions or clicks a network reported server to server: an address and a phone's
    // advertising id, no agent to read a device from.
    const reported = Array.from({ length: 5 }, (_, i) =>
      touch(3 * HOUR, {
        source: "network",
        userAgent: null,
        platform: "other",
        osVersion: null,
        deviceModel: null,
        maid: `38400000-8cf0-11bd-b23e-10b96e4000${10 + i}`,
      }),
    );
    expect(await match(install(), [mine, ...reported])).toMatchObject({ confidence: "low" });
    // A desktop's tap (the landing page's QR code) is still no other phone.
    const desktop = touch(3 * HOUR, { userAgent: AGENTS.desktop, platform: "other" });
    const alone = await match(install(), [mine]);
    expect(alone.kind).toBe("matched");
    expect(await match(install(), [mine, desktop])).toMatchObject({
      confidence: (alone as { confidence?: string }).confidence,
    });
  });

  describe("an address where many use the app and few tapped", () => {
    /** Installs of the app that sent from the install's address `before` ms before its open. */
    const seen = (count: number, before = 3 * HOUR): Sighting[] =>
      Array.from({ length: count }, (_, i) => ({
        ip: "81.2.69.142",
        serviceId: `user-${i}`,
        at: FIRST_OPEN - before,
      }));
    /** This install's own request, which the service recorded before matching it. */
    const itself: Sighting = { ip: "81.2.69.142", serviceId: "me", at: FIRST_OPEN + SECOND };
    const geo = (touches: readonly Touch[], sightings: readonly Sighting[]) =>
      match(install(), touches, {}, undefined, sightings);

    it("caps a named model at low where more installs than a home's send from it", async () => {
      // One stranger's tap of the same popular model; the app's users there tapped nothing.
      const tap = touch(5 * MINUTE);
      expect(await geo([tap], [itself, ...seen(4)])).toMatchObject({ confidence: "medium" });
      expect(await geo([tap], [itself, ...seen(5)])).toMatchObject({ confidence: "low" });
      expect(
        (
          await match(install(), [tap], { confidenceFloor: "medium" }, undefined, [
            itself,
            ...seen(5),
          ])
        ).kind,
      ).toBe("organic");
    });

    it("refuses the OS alone where another install sent from the address that day", async () => {
      const reduced = touch(5 * MINUTE, { userAgent: AGENTS.reduced });
      expect(await geo([reduced], [itself])).toMatchObject({ confidence: "low" });
      // A housemate's install sent its events from home this morning.
      expect((await geo([reduced], [itself, ...seen(1)])).kind).toBe("organic");
    });

    it("counts the day before the first open to this install's own request, no more", async () => {
      const tap = touch(5 * MINUTE);
      // Seen the day before, and after this install's request: neither counts.
      const outside = [...seen(5, 25 * HOUR), ...seen(5, -HOUR)];
      expect(await geo([tap], [itself, ...outside])).toMatchObject({ confidence: "medium" });
      // Another address's installs are its own crowd.
      const elsewhere = seen(6).map((s) => ({ ...s, ip: "81.2.69.143" }));
      expect(await geo([tap], [itself, ...elsewhere])).toMatchObject({ confidence: "medium" });
      // Seen that morning, past the taps' window but within the day: they count.
      expect(await geo([tap], [itself, ...seen(5, 10 * HOUR)])).toMatchObject({
        confidence: "low",
      });
    });
  });

  it("counts each click with an agent that hides the phone as a device of its own", async () => {
    // Behind a carrier's NAT, six phones in Chrome's reduced agent send the same string: a
    // crowd, not one phone that tapped six times.
    const crowd = Array.from({ length: 6 }, (_, i) =>
      touch((1 + i) * MINUTE, { userAgent: AGENTS.reduced }),
    );
    expect((await match(install(), crowd)).kind).toBe("organic");
    // The same full agent twice is one phone: still alone, still medium.
    const mine = touch(5 * MINUTE);
    expect(await match(install(), [mine, touch(40 * MINUTE)])).toMatchObject({
      confidence: "medium",
    });
  });

  it("times the open on the service's clock: a phone 30 minutes slow still opened promptly", async () => {
    // Tapped 5 minutes before the open; the phone's clock, 30 minutes slow, puts its open
    // 25 minutes before the tap, and it sent its clock.
    const click = touch(5 * MINUTE);
    const slow = {
      firstOpenTime: new Date(FIRST_OPEN - HOUR / 2).toISOString(),
      clockOffsetMs: 30 * MINUTE,
    };
    expect(await match(install(slow), [click])).toMatchObject({ confidence: "medium" });
  });

  it("takes no impression and nothing after the install began", async () => {
    expect((await match(install(), [touch(5 * MINUTE, { touchType: "impression" })])).kind).toBe(
      "organic",
    );
    const began = new Date(FIRST_OPEN - 5 * MINUTE).toISOString();
    expect((await match(install({ installBeganAt: began }), [touch(60 * SECOND)])).kind).toBe(
      "organic",
    );
  });
});

describe("one tap, one install", () => {
  const MINUTE = 60 * SECOND;
  const settings = { ...DEFAULT_ATTRIBUTION };

  it("gives up after five clicks other installs hold: the address is a crowd of alike phones", async () => {
    // Six phones of one model tapped, each told by its advertising id; the five latest clicks
    // are already other installs'.
    const clicks = Array.from({ length: 6 }, (_, i) =>
      touch((i + 1) * MINUTE, { maid: `38400000-8cf0-11bd-b23e-10b96e4000${10 + i}` }),
    );
    /** The touch store with the `held` latest clicks claimed by as many other installs. */
    const holding = async (held: number) => {
      const lookups = lookupsOf(clicks);
      for (const [i, { clickId, touchTime }] of clicks.slice(0, held).entries()) {
        await lookups.claimClick({
          appId: APP,
          serviceId: `other-${i}`,
          device: null,
          clickId,
          touchTime,
          own: false,
        });
      }
      return lookups;
    };
    const mine = { serviceId: "mine" };
    expect((await matchInstall(install(), settings, await holding(5), mine)).kind).toBe("organic");
    // One held click fewer, and the fifth is tried and taken (low: the address is a crowd).
    const taken = await matchInstall(install(), settings, await holding(4), mine);
    expect(taken).toMatchObject({ method: "probabilistic", confidence: "low" });
    expect(winner(taken)).toBe(clicks[4]?.clickId);
  });

  it("credits a probabilistic click to one install: its twin at the address passes it", async () => {
    // Two Pixel 8s behind one address, a minute apart: one tapped, both installed.
    const click = touch(5 * MINUTE);
    const lookups = lookupsOf([click]);
    const first = await matchInstall(install(), settings, lookups, { serviceId: "install-1" });
    expect(first).toMatchObject({ method: "probabilistic", confidence: "medium" });
    const twin = await matchInstall(install(), settings, lookups, { serviceId: "install-2" });
    expect(twin.kind).toBe("organic");
    // The first install's job run again keeps its click.
    const again = await matchInstall(install(), settings, lookups, { serviceId: "install-1" });
    expect(winner(again)).toBe(click.clickId);
  });

  it("credits the same phone installing again with its own probabilistic click, never a housemate's", async () => {
    // The housemate's tap, then this phone's: its first install holds its own click.
    const housemates = touch(9 * MINUTE);
    const own = touch(2 * MINUTE);
    const lookups = lookupsOf([housemates, own]);
    const first = await matchInstall(install(), settings, lookups, {
      serviceId: "install-1",
      deviceId: GAID,
    });
    expect(winner(first)).toBe(own.clickId);
    const again = await matchInstall(install(), settings, lookups, {
      serviceId: "install-2",
      deviceId: GAID,
    });
    expect(again).toMatchObject({ method: "probabilistic", reinstall: true });
    expect(winner(again)).toBe(own.clickId);
    // The housemate's click is still theirs to win.
    const housemate = await matchInstall(install(), settings, lookups, {
      serviceId: "install-3",
      deviceId: "housemate-gaid",
    });
    expect(winner(housemate)).toBe(housemates.clickId);
  });

  it("takes the next click another install does not hold", async () => {
    const newer = touch(2 * MINUTE);
    const older = touch(9 * MINUTE);
    const lookups = lookupsOf([newer, older]);
    const first = await matchInstall(install(), settings, lookups, { serviceId: "install-1" });
    const second = await matchInstall(install(), settings, lookups, { serviceId: "install-2" });
    expect(winner(first)).toBe(newer.clickId);
    expect(winner(second)).toBe(older.clickId);
  });

  it("credits a click id's own device whoever holds the click, and keeps its click from a twin", async () => {
    const click = touch(5 * MINUTE);
    const lookups = lookupsOf([click]);
    const twin = await matchInstall(install(), settings, lookups, { serviceId: "install-1" });
    expect(twin.kind).toBe("matched");
    const own = await matchInstall(install({ referrerClickId: click.clickId }), settings, lookups, {
      serviceId: "install-2",
    });
    expect(own).toMatchObject({ method: "click_id", confidence: "high" });

    // Claimed by its own device first, the click is no twin's.
    const later = touch(4 * MINUTE);
    const fresh = lookupsOf([later]);
    await matchInstall(install({ referrerClickId: later.clickId }), settings, fresh, {
      serviceId: "install-3",
    });
    const other = await matchInstall(install(), settings, fresh, { serviceId: "install-4" });
    expect(other.kind).toBe("organic");
  });

  it("tells the same device installing again from its click from a twin that took it first", async () => {
    // A reinstall: the phone's advertising id finds the click its first install holds.
    const click = touch(5 * MINUTE, { maid: GAID });
    const lookups = lookupsOf([click]);
    const first = await matchInstall(install({ maid: GAID }), settings, lookups, {
      serviceId: "install-1",
      deviceId: GAID,
    });
    expect(first).toMatchObject({ method: "advertising_id", reinstall: false });
    const again = await matchInstall(install({ maid: GAID }), settings, lookups, {
      serviceId: "install-2",
      deviceId: GAID.toUpperCase(),
    });
    expect(again).toMatchObject({ method: "advertising_id", reinstall: true });

    // A probabilistic twin took the click first: the click id's own device is no reinstall.
    const tapped = touch(5 * MINUTE);
    const shared = lookupsOf([tapped]);
    const twin = await matchInstall(install(), settings, shared, {
      serviceId: "install-3",
      deviceId: "twin-idfv",
    });
    expect(twin.kind).toBe("matched");
    const own = await matchInstall(install({ referrerClickId: tapped.clickId }), settings, shared, {
      serviceId: "install-4",
      deviceId: "own-idfv",
    });
    expect(own).toMatchObject({ method: "click_id", reinstall: false });
    // That device installing again from its click is a reinstall, though the twin holds it.
    const ownAgain = await matchInstall(
      install({ referrerClickId: tapped.clickId }),
      settings,
      shared,
      { serviceId: "install-5", deviceId: "own-idfv" },
    );
    expect(ownAgain).toMatchObject({ method: "click_id", reinstall: true });
    const twinAgain = await matchInstall(install(), settings, shared, {
      serviceId: "install-6",
      deviceId: "twin-idfv",
    });
    expect(twinAgain).toMatchObject({ method: "probabilistic", reinstall: true });
  });

  it("tells the same device installing again from an impression its advertising id found", async () => {
    const viewed = touch(HOUR, { maid: GAID, touchType: "impression", ip: null });
    const lookups = lookupsOf([viewed]);
    const install1 = { serviceId: "install-1", deviceId: GAID };
    const first = await matchInstall(install({ maid: GAID }), settings, lookups, install1);
    expect(first).toMatchObject({ method: "advertising_id", reinstall: false });
    const install2 = { serviceId: "install-2", deviceId: GAID };
    const again = await matchInstall(install({ maid: GAID }), settings, lookups, install2);
    expect(again).toMatchObject({ method: "advertising_id", reinstall: true });
  });

  it("keeps an advertising id's click from a twin too", async () => {
    const click = touch(5 * MINUTE, { maid: GAID });
    const lookups = lookupsOf([click]);
    const own = await matchInstall(install({ maid: GAID }), settings, lookups, {
      serviceId: "install-1",
    });
    expect(own).toMatchObject({ method: "advertising_id" });
    const twin = await matchInstall(install(), settings, lookups, { serviceId: "install-2" });
    expect(twin.kind).toBe("organic");
  });
});

describe("the rest", () => {
  it("is organic with no touch at all, and for touches after the first open", async () => {
    expect((await match(install({ maid: GAID }), [])).kind).toBe("organic");
    expect((await match(install({ maid: GAID }), [touch(-SECOND, { maid: GAID })])).kind).toBe(
      "organic",
    );
  });

  it("tells compatible devices, evidence and confidences by their rules", () => {
    const ios = (osVersion: string, deviceModel = "iPhone15,2") =>
      install({ os: "ios", osVersion, deviceModel });
    const safari = touch(0, { userAgent: AGENTS.iphone });
    expect(compatibleDevice(safari, ios("17.4.1"))).toBe(true);
    expect(compatibleDevice(safari, ios("17.0"))).toBe(false);
    expect(compatibleDevice(safari, ios("16.7"))).toBe(false);
    expect(compatibleDevice(safari, ios("17.4", "iPad13,1"))).toBe(false);
    expect(deviceEvidence(safari, ios("17.4.1"))).toBe("version");
    expect(deviceEvidence(touch(0), install())).toBe("model");
    expect(deviceEvidence(touch(0, { userAgent: AGENTS.reduced }), install())).toBe("os");
    // What either side does not give is not compared: no model reported, no model evidence;
    // no OS version on either side, the OS alone, whatever the model.
    expect(deviceEvidence(touch(0), install({ deviceModel: null }))).toBe("version");
    expect(deviceEvidence(touch(0), install({ osVersion: null }))).toBe("os");
    expect(deviceEvidence(touch(0, { osVersion: null }), install())).toBe("os");
    expect(sameVersion("17_4", "17.4.1")).toBe(true);
    expect(sameVersion("17.4.1", "17.4.2")).toBe(false);
    expect(sameVersion("14", "14.1")).toBe(true);
    expect(sameVersion("17_4_1", "17.4")).toBe(true);
    // Firefox on Android names the OS version and no model; a hint of only marks, no model.
    const firefox = touch(0, {
      userAgent: "Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0",
    });
    expect(deviceEvidence(firefox, install())).toBe("version");
    expect(deviceEvidence(touch(0, { deviceModel: " - " }), install())).toBe("version");
    // A network's touch on an iPhone with no agent: only its OS is compared.
    const agentless = touch(0, {
      userAgent: null,
      platform: "ios",
      osVersion: null,
      deviceModel: null,
    });
    expect(compatibleDevice(agentless, ios("17.4.1"))).toBe(true);
    expect(deviceEvidence(agentless, ios("17.4.1"))).toBe("os");
    const prompt = 20 * 60 * SECOND;
    const named = {
      device: "model",
      elapsedMs: prompt,
      devices: 5,
      installs: 5,
      rivals: 0,
    } as const;
    expect(geoConfidence(named)).toBe("medium");
    expect(geoConfidence({ ...named, elapsedMs: prompt + 1 })).toBeUndefined();
    expect(geoConfidence({ ...named, devices: 6 })).toBe("low");
    expect(geoConfidence({ ...named, installs: 6 })).toBe("low");
    expect(geoConfidence({ ...named, devices: 1, installs: 6 })).toBe("low");
    expect(geoConfidence({ ...named, rivals: 1 })).toBe("low");
    expect(geoConfidence({ ...named, device: "version" })).toBe("low");
    expect(geoConfidence({ ...named, device: "version", rivals: 1 })).toBeUndefined();
    expect(geoConfidence({ ...named, device: "os", devices: 1, installs: 1 })).toBe("low");
    expect(geoConfidence({ ...named, device: "os", devices: 2, installs: 1 })).toBeUndefined();
    expect(geoConfidence({ ...named, device: "os", devices: 1, installs: 2 })).toBeUndefined();
  });
});

describe("telling phones apart at one address", () => {
  it("tells apart phones whose reduced agents are the same string by the models their hints gave", () => {
    const hinted = (deviceModel: string) =>
      touch(HOUR, { userAgent: AGENTS.reduced, deviceModel, osVersion: "14" });
    expect(deviceKey(hinted("Pixel 8"))).not.toBe(deviceKey(hinted("SM-S911B")));
    expect(deviceKey(hinted("Pixel 8"))).toBe(deviceKey(hinted("Pixel 8")));
    // Without hints, each such tap is a phone of its own.
    const bare = () => touch(HOUR, { userAgent: AGENTS.reduced });
    expect(deviceKey(bare())).not.toBe(deviceKey(bare()));
  });

  it("takes one advertising id in either case for one phone, whatever its agents", () => {
    const upper = touch(HOUR, { maid: IDFA, userAgent: AGENTS.iphone });
    const lower = touch(HOUR, { maid: IDFA.toLowerCase(), userAgent: AGENTS.reduced });
    expect(deviceKey(upper)).toBe(deviceKey(lower));
    expect(deviceKey(upper)).not.toBe(deviceKey(touch(HOUR, { maid: GAID })));
  });
});
