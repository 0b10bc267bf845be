/**
 * An install's attribution result, from the matcher's verdict: what the SDK reads
 * (`service_match_status` and the parameters) and what its exported events carry.
 */
import { installCostOf } from "../costs/touch-cost.ts";
import { type Confidence, REINSTALL } from "../domain/attribution.ts";
import type { AttributionResult } from "../ports/attributions.ts";
import type { Install } from "../ports/installs.ts";
import { NO_CAMPAIGN } from "../touches/touch.ts";
import { keptFirstOpen } from "./first-open.ts";
import type { Match } from "./matcher.ts";
import type { AttributionSettings } from "./settings.ts";

/**
 * iOS only: a reinstall when the app has seen the device's IDFV on an install first opened
 * earlier (an install deleted on request is gone from the store, so it leaves no trace).
 */
export const installTypeOf = (
  install: Install,
  sameIdfv: readonly Install[],
): AttributionResult["installType"] => {
  if (install.os !== "ios") return null;
  // On the service's clock: each install's device may have read a different time.
  const openedAt = (one: Install) => Date.parse(keptFirstOpen(one));
  const opened = openedAt(install);
  // The install itself, among them, is no earlier one: same time, same id.
  const earlier = sameIdfv.some((other) => {
    const otherOpened = openedAt(other);
    return otherOpened < opened || (otherOpened === opened && other.serviceId < install.serviceId);
  });
  return earlier ? REINSTALL : "new_install";
};

const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

/** A result's touch fields when no touch won. */
const NO_TOUCH = {
  touchTime: null,
  touchType: null,
  networkClickId: null,
  urlParams: {},
} as const;

export const resultOf = (
  match: Match,
  installType: AttributionResult["installType"],
  attributedAt: Date,
  settings: Pick<AttributionSettings, "deepLinkConfidenceFloor">,
): AttributionResult => {
  if (match.kind === "organic") {
    return {
      status: "organic",
      method: null,
      clickId: null,
      deeplinkId: null,
      mediaSource: "organic",
      ...NO_CAMPAIGN,
      matchingType: null,
      confidence: null,
      clickToFirstOpenHours: null,
      installType,
      reinstall: installType === REINSTALL,
      repeatsClick: false,
      otherCandidates: 0,
      params: {},
      cost: null,
      ...NO_TOUCH,
      attributedAt: attributedAt.toISOString(),
    };
  }
  const { credit: touch } = match;
  // An install again from a click that brought the device once: the click's per-install price
  // was its first install's. The spec gives `install_type` on iOS only: there it says so.
  const reinstall = match.reinstall;
  const deepLink = RANK[match.confidence] >= RANK[settings.deepLinkConfidenceFloor];
  // The link's parameters, and the tapped URL's own over them (a promo code, a placement's
  // sub-parameters, as an installed app reads them from the URL it opens): a new install's
  // deferred deep link says what the same tap says to an app already there.
  const params = deepLink ? { ...touch.params, ...touch.urlParams } : {};
  return {
    // The deferred deep link needs the link's parameters (those the answer can carry); a touch
    // without any is still a match.
    status: Object.keys(deepLinkParams(params)).length > 0 ? "matched" : "matched_no_params",
    method: match.method,
    clickId: touch.clickId,
    deeplinkId: touch.deeplinkId,
    mediaSource: touch.mediaSource,
    campaignId: touch.campaignId,
    campaignName: touch.campaignName,
    adsetId: touch.adsetId,
    adsetName: touch.adsetName,
    adId: touch.adId,
    adName: touch.adName,
    matchingType: match.matchingType,
    confidence: match.confidence,
    clickToFirstOpenHours: match.clickToFirstOpenHours,
    installType: reinstall && installType !== null ? REINSTALL : installType,
    reinstall: reinstall || installType === REINSTALL,
    repeatsClick: reinstall,
    otherCandidates: match.otherCandidates,
    params,
    // A CPI touch's cost is the install's once it wins (a CPC click's or a CPM impression's is
    // the touch's own, counted where the touch is).
    cost: reinstall ? null : installCostOf(touch.cost),
    touchTime: touch.touchTime,
    touchType: touch.touchType,
    networkClickId: touch.networkClickId ?? null,
    urlParams: { ...touch.urlParams },
    attributedAt: attributedAt.toISOString(),
  };
};

/** An install not matched on purpose: the app is switched off, or attribution is. */
export const skippedResult = (attributedAt: Date): AttributionResult => ({
  status: "skipped",
  method: null,
  clickId: null,
  deeplinkId: null,
  mediaSource: null,
  ...NO_CAMPAIGN,
  matchingType: null,
  confidence: null,
  clickToFirstOpenHours: null,
  installType: null,
  reinstall: false,
  repeatsClick: false,
  otherCandidates: 0,
  params: {},
  cost: null,
  ...NO_TOUCH,
  attributedAt: attributedAt.toISOString(),
});

/** A result's fields as the export and the SDKs name them. */
/**
 * The SDKs' attribution answer's own keys (./params.ts): the exported fields, the click id and
 * the status. A link's or a tapped URL's parameter of one of these names is not the install's,
 * known or not, and is left out of the deferred deep link.
 */
export const ANSWER_KEYS: ReadonlySet<string> = new Set([
  "service_match_status",
  "click_id",
  "media_source",
  "campaign_id",
  "campaign_name",
  "adset_id",
  "adset_name",
  "ad_id",
  "ad_name",
  "matching_type",
  "click_to_first_open_hours",
  "confidence_score",
]);

/** A touch's parameters as the deferred deep link's: none named like the answer's own. */
export const deepLinkParams = (params: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(params).filter(([key]) => !ANSWER_KEYS.has(key)));

export const exportedFields = (result: AttributionResult) => ({
  media_source: result.mediaSource,
  campaign_id: result.campaignId,
  campaign_name: result.campaignName,
  adset_id: result.adsetId,
  adset_name: result.adsetName,
  ad_id: result.adId,
  ad_name: result.adName,
  matching_type: result.matchingType,
  click_to_first_open_hours: result.clickToFirstOpenHours,
  confidence_score: result.confidence,
});
