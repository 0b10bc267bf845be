/**
 * The SKAdNetwork section of an iOS app's overview, from its stored postbacks of a window:
 * installs by ad network (its media source) and source identifier (the campaign), redownloads
 * apart; each conversion window's values decoded with the app's schema (how many reached each
 * rule); and the crowd anonymity tier each first-window postback implies (a fine value: the
 * highest tiers; a coarse value only: a lower one; neither: the lowest). Only postbacks that
 * count are in it (verified with Apple's production key), unless the owner asks for the rest.
 */
import type { StoredApplePostback } from "../ports/apple-postbacks.ts";
import { mediaSourceOf } from "./ad-networks.ts";
import { type ConversionSchemaRequest, meaningOf } from "./conversion-schema.ts";
import { type CoarseValue, counts } from "./postbacks.ts";

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
    /** Postbacks of the second and third windows. */
    readonly later_postbacks: number;
  }[];
  readonly values: {
    readonly window: number;
    readonly fine: number | null;
    readonly coarse: CoarseValue | null;
    readonly postbacks: number;
    /** The schema's rules that give the value; empty without a schema or a rule for it. */
    readonly meaning: string[];
  }[];
  /** First-window winning postbacks by what their values imply of the crowd's size. */
  readonly tiers: { readonly fine: number; readonly coarse_only: number; readonly none: number };
}

export const skadnetworkReport = (
  postbacks: readonly StoredApplePostback[],
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
    const key = `${postback.adNetworkId}\u0000${postback.sourceIdentifier}`;
    const campaign = campaigns.get(key) ?? {
      media_source: mediaSourceOf(postback.adNetworkId, options.networks),
      ad_network_id: postback.adNetworkId,
      source_identifier: postback.sourceIdentifier,
      installs: 0,
      redownloads: 0,
      later_postbacks: 0,
    };
    const first = postback.sequenceIndex === 0;
    campaigns.set(key, {
      ...campaign,
      installs: campaign.installs + (first && postback.didWin && !postback.redownload ? 1 : 0),
      redownloads: campaign.redownloads + (first && postback.didWin && postback.redownload ? 1 : 0),
      later_postbacks: campaign.later_postbacks + (first ? 0 : 1),
    });
    if (first && postback.didWin) {
      if (postback.conversionValue !== null) tiers.fine += 1;
      else if (postback.coarseValue !== null) tiers.coarse_only += 1;
      else tiers.none += 1;
    }
    if (!postback.didWin) continue;
    const fine = first ? postback.conversionValue : null;
    const coarse = fine === null ? postback.coarseValue : null;
    if (fine === null && coarse === null) continue;
    const valueKey = `${postback.sequenceIndex}\u0000${fine}\u0000${coarse}`;
    const value = values.get(valueKey) ?? {
      window: postback.sequenceIndex,
      fine,
      coarse,
      postbacks: 0,
      meaning: options.schema
        ? meaningOf(options.schema, postback.sequenceIndex, { fine, coarse })
        : [],
    };
    values.set(valueKey, { ...value, postbacks: value.postbacks + 1 });
  }
  return {
    postbacks: {
      received: postbacks.length,
      counted: counted.length,
      unverified: postbacks.filter((p) => p.verification.status === "unverified").length,
      development: postbacks.filter((p) => p.verification.environment === "development").length,
    },
    campaigns: [...campaigns.values()].sort(
      (a, b) =>
        b.installs - a.installs ||
        a.media_source.localeCompare(b.media_source) ||
        a.source_identifier.localeCompare(b.source_identifier),
    ),
    values: [...values.values()].sort(
      (a, b) => a.window - b.window || (b.fine ?? -1) - (a.fine ?? -1) || b.postbacks - a.postbacks,
    ),
    tiers,
  };
};
