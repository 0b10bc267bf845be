/**
 * The SKAdNetwork section of an iOS app's overview, from its stored postbacks of a window:
 * installs by ad network (its media source) and source identifier (the campaign), redownloads
 * and AdAttributionKit's re-engagements apart; each conversion window's values decoded with the
 * app's schema (how many reached each rule), a re-engagement's apart from an install's (its
 * windows start at the re-engagement, and the schema is the install's); and the crowd anonymity
 * tier each first-window install postback implies (a fine value: the highest tiers; a coarse
 * value only: a lower one; neither: the lowest). Only postbacks that
 * count are in it (verified with Apple's production key), unless the owner asks for the rest.
 */
import type { ApplePostbackGroup, StoredApplePostback } from "../ports/apple-postbacks.ts";
import { mediaSourceOf } from "./ad-networks.ts";
import { type ConversionSchemaRequest, meaningOf } from "./conversion-schema.ts";
import { type CoarseValue, counts, REENGAGEMENT } from "./postbacks.ts";

export interface SkadnetworkReport {
  readonly postbacks: {
    readonly received: number;
    readonly counted: number;
    readonly unverified: number;
    readonly development: number;
  };
  readonly campaigns: {
    readonly media_source: string;
    readonly ad_network_id: string;
    readonly source_identifier: string;
    /** First-window postbacks that won: the installs. */
    readonly installs: number;
    readonly redownloads: number;
    /** First-window winning AdAttributionKit postbacks of users brought back to the app. */
    readonly reengagements: number;
    /** Postbacks of the second and third windows. */
    readonly later_postbacks: number;
  }[];
  readonly values: {
    /** Whose conversion the value is: an install's, or a re-engagement's (AdAttributionKit). */
    readonly conversion: "install" | "reengagement";
    readonly window: number;
    readonly fine: number | null;
    readonly coarse: CoarseValue | null;
    readonly postbacks: number;
    /**
     * The schema's rules that give an install's value; empty without a schema or a rule for it,
     * and for a re-engagement's, which the install's schema does not describe.
     */
    readonly meaning: string[];
  }[];
  /**
   * First-window winning postbacks of installs (redownloads too, not re-engagements) by what
   * their values imply of the crowd's size.
   */
  readonly tiers: { readonly fine: number; readonly coarse_only: number; readonly none: number };
}

/** Stored postbacks as groups of one each: the report of postbacks read one by one. */
export const groupsOf = (postbacks: readonly StoredApplePostback[]): ApplePostbackGroup[] =>
  postbacks.map((postback) => ({
    adNetworkId: postback.adNetworkId,
    sourceIdentifier: postback.sourceIdentifier,
    sequenceIndex: postback.sequenceIndex,
    didWin: postback.didWin,
    redownload: postback.redownload,
    reengagement: postback.conversionType === REENGAGEMENT,
    conversionValue: postback.conversionValue,
    coarseValue: postback.coarseValue,
    verification: postback.verification,
    postbacks: 1,
  }));

const sumOf = (groups: readonly ApplePostbackGroup[]): number =>
  groups.reduce((sum, group) => sum + group.postbacks, 0);

/** The report of the groups of a window's postbacks (each group counted `postbacks` times). */
export const skadnetworkReport = (
  postbacks: readonly ApplePostbackGroup[],
  options: {
    readonly schema: ConversionSchemaRequest | null;
    readonly networks: Readonly<Record<string, string>>;
    readonly include?: { readonly development?: boolean; readonly unverified?: boolean };
  },
): SkadnetworkReport => {
  const counted = postbacks.filter((postback) => counts(postback, options.include));
  const campaigns = new Map<string, SkadnetworkReport["campaigns"][number]>();
  const values = new Map<string, SkadnetworkReport["values"][number]>();
  const tiers = { fine: 0, coarse_only: 0, none: 0 };
  for (const postback of counted) {
    const n = postback.postbacks;
    const key = `${postback.adNetworkId}\u0000${postback.sourceIdentifier}`;
    const campaign = campaigns.get(key) ?? {
      media_source: mediaSourceOf(postback.adNetworkId, options.networks),
      ad_network_id: postback.adNetworkId,
      source_identifier: postback.sourceIdentifier,
      installs: 0,
      redownloads: 0,
      reengagements: 0,
      later_postbacks: 0,
    };
    const first = postback.sequenceIndex === 0;
    const won = first && postback.didWin;
    const kind = postback.reengagement
      ? "reengagements"
      : postback.redownload
        ? "redownloads"
        : "installs";
    campaigns.set(key, {
      ...campaign,
      installs: campaign.installs + (won && kind === "installs" ? n : 0),
      redownloads: campaign.redownloads + (won && kind === "redownloads" ? n : 0),
      reengagements: campaign.reengagements + (won && kind === "reengagements" ? n : 0),
      later_postbacks: campaign.later_postbacks + (first ? 0 : n),
    });
    if (won && kind !== "reengagements") {
      if (postback.conversionValue !== null) tiers.fine += n;
      else if (postback.coarseValue !== null) tiers.coarse_only += n;
      else tiers.none += n;
    }
    if (!postback.didWin) continue;
    const fine = first ? postback.conversionValue : null;
    const coarse = fine === null ? postback.coarseValue : null;
    if (fine === null && coarse === null) continue;
    const conversion = postback.reengagement ? "reengagement" : "install";
    const valueKey = `${conversion}\u0000${postback.sequenceIndex}\u0000${fine}\u0000${coarse}`;
    const value = values.get(valueKey) ?? {
      conversion,
      window: postback.sequenceIndex,
      fine,
      coarse,
      postbacks: 0,
      meaning:
        options.schema && conversion === "install"
          ? meaningOf(options.schema, postback.sequenceIndex, { fine, coarse })
          : [],
    };
    values.set(valueKey, { ...value, postbacks: value.postbacks + n });
  }
  return {
    postbacks: {
      received: sumOf(postbacks),
      counted: sumOf(counted),
      unverified: sumOf(postbacks.filter((p) => p.verification.status === "unverified")),
      development: sumOf(postbacks.filter((p) => p.verification.environment === "development")),
    },
    campaigns: [...campaigns.values()].sort(
      (a, b) =>
        b.installs - a.installs ||
        a.media_source.localeCompare(b.media_source) ||
        a.source_identifier.localeCompare(b.source_identifier),
    ),
    values: [...values.values()].sort(
      (a, b) =>
        a.conversion.localeCompare(b.conversion) ||
        a.window - b.window ||
        (b.fine ?? -1) - (a.fine ?? -1) ||
        b.postbacks - a.postbacks,
    ),
    tiers,
  };
};
