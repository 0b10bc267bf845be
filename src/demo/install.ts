/**
 * One demo install: who the user is (country, device identifiers, whether they ever sign in,
 * how engaged and how likely to pay) and how it was attributed, version by version.
 */
import { type MediaSource, pickTouch, type Touch } from "./campaigns.ts";
import type { DemoApp } from "./demo-app.ts";
import { type Market, marketWeights } from "./markets.ts";
import type { Random } from "./prng.ts";
import { HOUR_MS } from "./rhythm.ts";

/** Share of installs with no paid touch (the brief's 35–45 %). */
const ORGANIC_SHARE = 0.4;
/** Share of users who sign in at some point, so carry a customer user id from then on. */
export const IDENTIFIED_SHARE = 0.6;
/** iOS users who granted App Tracking Transparency, so have an IDFA. */
const IOS_ATT_CONSENT = 0.22;
/** Android users who did not opt out of the advertising id. */
const ANDROID_GAID_AVAILABLE = 0.9;
const IOS_REINSTALL_SHARE = 0.08;
/** Probabilistic matches among paid installs where they are allowed. */
const GEO_SHARE = 0.2;
/** Organic or geo installs later re-attributed by a deterministic (late) network postback. */
const LATE_NETWORK_SHARE = 0.06;

/** The attribution columns of one version, as the attributions table stores them. */
export interface AttributionFields {
  readonly media_source: string;
  readonly campaign_id: string | null;
  readonly campaign_name: string | null;
  readonly adset_id: string | null;
  readonly adset_name: string | null;
  readonly ad_id: string | null;
  readonly ad_name: string | null;
  readonly matching_type: "network" | "geo" | null;
  readonly click_to_first_open_hours: number | null;
  readonly confidence_score: "high" | "medium" | "low" | null;
  readonly install_type: "new_install" | "reinstall_same_device" | null;
}

export interface AttributionVersion {
  readonly attributedAt: number;
  readonly fields: AttributionFields;
}

export interface InstallProfile {
  readonly serviceId: string;
  readonly market: Market;
  readonly firstOpen: number;
  readonly idfv: string | null;
  readonly maid: string | null;
  readonly reinstall: boolean;
  /** Oldest first; the export joins the newest. */
  readonly attributions: readonly AttributionVersion[];
  /** Null for users who never sign in. */
  readonly customerUserId: string | null;
  /** Scales the chance to come back on later days (retention). */
  readonly engagement: number;
  /** Payers buy most of what they put in the cart; others rarely. */
  readonly payer: boolean;
}

const ORGANIC: Omit<AttributionFields, "install_type"> = {
  media_source: "organic",
  campaign_id: null,
  campaign_name: null,
  adset_id: null,
  adset_name: null,
  ad_id: null,
  ad_name: null,
  matching_type: null,
  click_to_first_open_hours: null,
  confidence_score: null,
};

/** Deterministic matches: click to open within the 7-day click window, mostly within hours. */
const networkMatch = (random: Random, touch: Touch) => ({
  ...touch,
  matching_type: "network" as const,
  click_to_first_open_hours: Math.min(48, Math.floor(random.exponential(5))),
  confidence_score: "high" as const,
});

/**
 * Probabilistic matches live in a short window (6 h by default); confidence falls with the time
 * since the click (DESIGN, "Attribution").
 */
const geoMatch = (random: Random, touch: Touch) => {
  const hours = Math.min(5, Math.floor(random.exponential(1.2)));
  const medium = random.chance(hours <= 1 ? 0.75 : 0.3);
  return {
    ...touch,
    matching_type: "geo" as const,
    click_to_first_open_hours: hours,
    confidence_score: medium ? ("medium" as const) : ("low" as const),
  };
};

export interface InstallContext {
  readonly app: DemoApp;
  readonly sources: readonly MediaSource[];
  readonly random: Random;
  readonly end: number;
}

export const createInstall = (
  { app, sources, random, end }: InstallContext,
  firstOpenAt: (market: Market) => number,
  options: { forceIdentified?: boolean } = {},
): InstallProfile => {
  const ios = app.platform === "ios";
  const market = random.weighted(marketWeights(app.platform));
  const firstOpen = firstOpenAt(market);
  const consent = ios ? random.chance(IOS_ATT_CONSENT) : random.chance(ANDROID_GAID_AVAILABLE);
  const idfv = ios ? random.uuid().toUpperCase() : null;
  // Apple's identifiers print upper case, Android's advertising id lower case.
  const maid = consent ? (ios ? random.uuid().toUpperCase() : random.uuid()) : null;
  const reinstall = ios && random.chance(IOS_REINSTALL_SHARE);
  // install_type describes the install, not the match, so organic iOS installs carry it too.
  const install_type: AttributionFields["install_type"] = ios
    ? reinstall
      ? "reinstall_same_device"
      : "new_install"
    : null;

  // Probabilistic matching is off on iOS without consent (DESIGN, "Attribution").
  const geoAllowed = !ios || consent;
  const organic = random.chance(ORGANIC_SHARE);
  const first: AttributionFields = organic
    ? { ...ORGANIC, install_type }
    : geoAllowed && random.chance(GEO_SHARE)
      ? { ...geoMatch(random, pickTouch(random, sources)), install_type }
      : { ...networkMatch(random, pickTouch(random, sources)), install_type };
  // The worker matches within seconds of the first open.
  const attributions: AttributionVersion[] = [
    { attributedAt: firstOpen + Math.floor(random.between(2_000, 40_000)), fields: first },
  ];
  if (first.matching_type !== "network" && random.chance(LATE_NETWORK_SHARE)) {
    const attributedAt = firstOpen + Math.floor(random.between(HOUR_MS, 48 * HOUR_MS));
    const fields = { ...networkMatch(random, pickTouch(random, sources)), install_type };
    if (attributedAt <= end) attributions.push({ attributedAt, fields });
  }

  const identified = options.forceIdentified || random.chance(IDENTIFIED_SHARE);
  // Churners, casual and core players: most installs are gone after a day or two.
  const engagement =
    random.weighted([
      [0.3, 45],
      [0.8, 35],
      [1.4, 20],
    ] as const) * (organic ? 0.5 : 0.42);
  return {
    serviceId: random.uuid(),
    market,
    firstOpen,
    idfv,
    maid,
    reinstall,
    attributions,
    customerUserId: identified ? `user_${random.hex(12)}` : null,
    engagement,
    payer: random.chance(0.08),
  };
};
