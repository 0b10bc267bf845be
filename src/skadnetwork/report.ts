/**
 * The SKAdNetwork section of an iOS app's overview, from its stored postbacks of a window:
 * installs by ad network (its media source) and source identifier (the campaign), redownloads
 * and AdAttributionKit's re-engagements apart, and the later windows' postbacks by the two
 * digits Apple sends them with; each conversion window's values decoded with the app's schema
 * (how many reached each rule), a re-engagement's apart from an install's (its windows start
 * at the re-engagement, and the schema is the install's); and the values each first-window
 * install postback carried, which the crowd anonymity tier bounds (a fine value: the highest
 * tiers; a coarse value only: a lower one, of a user who met a rule; neither: the lowest, or
 * that lower one's install whose user met none, as the SDK sets a coarse value only then).
 * Only postbacks that count are in it (verified with Apple's production key), unless the
 * owner asks for the rest.
 */
import type {
  ApplePostbackGroup,
  IdentifierField,
  StoredApplePostback,
} from "../ports/apple-postbacks.ts";
import { mediaSourceOf } from "./ad-networks.ts";
import {
  addRevenue,
  type ConversionSchemaRequest,
  meaningOf,
  measuresRevenue,
  NO_REVENUE,
  type RevenueRange,
  revenueOf,
  roundRevenue,
} from "./conversion-schema.ts";
import { type CoarseValue, counts, identifierFieldOf, REENGAGEMENT } from "./postbacks.ts";

export interface SkadnetworkReport {
  readonly postbacks: {
    readonly received: number;
    readonly counted: number;
    readonly unverified: number;
    readonly development: number;
    /** Of those counted, postbacks whose signed copies came with other values: counted with none. */
    readonly disputed: number;
  };
  /**
   * The revenue in USD the installs' values state under the schema, every window's: from the
   * sum of their ranges' lower bounds to the sum of their upper ones (null: a range without
   * one). A postback that carried no value, or a disputed one, adds nothing. Null without a
   * schema, or with one whose rules read no revenue.
   */
  readonly revenue_usd: RevenueRange | null;
  readonly campaigns: {
    readonly media_source: string;
    readonly ad_network_id: string;
    readonly source_identifier: string;
    /**
     * Apple's field the source identifier is: `source-identifier` (4.0 and AdAttributionKit, 2
     * to 4 digits) or `campaign-id` (before 4.0, 1 to 100): two numberings, never one row.
     */
    readonly identifier_field: IdentifierField;
    /** First-window postbacks that won: the installs. */
    readonly installs: number;
    readonly redownloads: number;
    /** First-window winning AdAttributionKit postbacks of users brought back to the app. */
    readonly reengagements: number;
    /**
     * Postbacks of the second and third windows, on a row of two digits only: Apple sends them
     * with two digits whatever the first window's had, so they are of every campaign ending in
     * them. Null on a row of three or four digits and on a `campaign-id` row (one window).
     */
    readonly later_postbacks: number | null;
    /**
     * The installs and redownloads of the window of every row of the ad network whose source
     * identifier ends in this row's two digits, this row's own among them: what those campaigns
     * brought meanwhile. Not the installs the later postbacks came of, which came days to weeks
     * before them (docs/skadnetwork.md). Null where `later_postbacks` is.
     */
    readonly suffix_installs: number | null;
    /**
     * The first window's revenue the row's installs and redownloads state (`revenue_usd` of
     * the report, for this row). Null where the report's is.
     */
    readonly revenue_usd: RevenueRange | null;
    /**
     * The later windows' revenue `later_postbacks` state. Null where `later_postbacks` is, or
     * the report's `revenue_usd`.
     */
    readonly later_revenue_usd: RevenueRange | null;
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
    /**
     * The window's revenue one postback of an install's value states, from the rules that
     * give it. Null for a re-engagement's, and where the report's `revenue_usd` is.
     */
    readonly revenue_usd: RevenueRange | null;
  }[];
  /**
   * First-window winning postbacks of installs (redownloads too, not re-engagements) by the
   * values they carried: what Apple's tier let through, and the app had set.
   */
  readonly tiers: { readonly fine: number; readonly coarse_only: number; readonly none: number };
}

type Campaign = SkadnetworkReport["campaigns"][number];

/** Stored postbacks as groups of one each: the report of postbacks read one by one. */
export const groupsOf = (postbacks: readonly StoredApplePostback[]): ApplePostbackGroup[] =>
  postbacks.map((postback) => ({
    adNetworkId: postback.adNetworkId,
    sourceIdentifier: postback.sourceIdentifier,
    identifierField: identifierFieldOf(postback),
    sequenceIndex: postback.sequenceIndex,
    didWin: postback.didWin,
    redownload: postback.redownload,
    reengagement: postback.conversionType === REENGAGEMENT,
    // Disputed values are no one's: the postback counts with none.
    conversionValue: postback.valuesDisputed ? null : postback.conversionValue,
    coarseValue: postback.valuesDisputed ? null : postback.coarseValue,
    verification: postback.verification,
    valuesDisputed: postback.valuesDisputed,
    postbacks: 1,
  }));

const sumOf = (groups: readonly ApplePostbackGroup[]): number =>
  groups.reduce((sum, group) => sum + group.postbacks, 0);

const campaignKey = (
  adNetworkId: string,
  identifierField: IdentifierField,
  sourceIdentifier: string,
): string => `${adNetworkId}\u0000${identifierField}\u0000${sourceIdentifier}`;

/**
 * The two digits a `source-identifier` row's later windows are reported under: its last two
 * (5239's are 39's), as Apple sends them; none for a `campaign-id` row, which has one window.
 */
const suffixOf = (campaign: Pick<Campaign, "identifier_field" | "source_identifier">) =>
  campaign.identifier_field === "source-identifier" && campaign.source_identifier.length >= 2
    ? campaign.source_identifier.slice(-2)
    : null;

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
  const revenueSchema = measuresRevenue(options.schema) ? options.schema : null;
  /** The window's revenue a postback's value states, for an install's value under a schema. */
  const revenueOfValue = (
    window: number,
    value: { fine: number | null; coarse: CoarseValue | null },
  ) => (revenueSchema ? revenueOf(revenueSchema, window, value) : null);
  let revenue = revenueSchema ? NO_REVENUE : null;
  const campaigns = new Map<string, Campaign>();
  const values = new Map<string, SkadnetworkReport["values"][number]>();
  const tiers = { fine: 0, coarse_only: 0, none: 0 };
  /** Later windows' postbacks by the row of their two digits. */
  const later = new Map<
    string,
    { adNetworkId: string; suffix: string; postbacks: number; revenue: RevenueRange }
  >();
  const rowOf = (adNetworkId: string, field: IdentifierField, sourceIdentifier: string) =>
    campaigns.get(campaignKey(adNetworkId, field, sourceIdentifier)) ?? {
      media_source: mediaSourceOf(adNetworkId, options.networks),
      ad_network_id: adNetworkId,
      source_identifier: sourceIdentifier,
      identifier_field: field,
      installs: 0,
      redownloads: 0,
      reengagements: 0,
      later_postbacks: null,
      suffix_installs: null,
      revenue_usd: revenueSchema ? NO_REVENUE : null,
      later_revenue_usd: null,
    };
  for (const postback of counted) {
    const n = postback.postbacks;
    const first = postback.sequenceIndex === 0;
    const won = first && postback.didWin;
    const kind = postback.reengagement
      ? "reengagements"
      : postback.redownload
        ? "redownloads"
        : "installs";
    const { adNetworkId, identifierField, sourceIdentifier } = postback;
    // The value Apple let through: the fine one in the first window, else the coarse one.
    const fine = first ? postback.conversionValue : null;
    const coarse = fine === null ? postback.coarseValue : null;
    const conversion = postback.reengagement ? "reengagement" : "install";
    // What the value states of the window's revenue: an install's (or redownload's), under a
    // schema that reads revenue; a postback with no value, or one that did not win, states none.
    const stated =
      postback.didWin && conversion === "install" && (fine !== null || coarse !== null)
        ? revenueOfValue(postback.sequenceIndex, { fine, coarse })
        : null;
    if (revenue && stated) revenue = addRevenue(revenue, stated, n);
    if (first) {
      const campaign = rowOf(adNetworkId, identifierField, sourceIdentifier);
      campaigns.set(campaignKey(adNetworkId, identifierField, sourceIdentifier), {
        ...campaign,
        installs: campaign.installs + (won && kind === "installs" ? n : 0),
        redownloads: campaign.redownloads + (won && kind === "redownloads" ? n : 0),
        reengagements: campaign.reengagements + (won && kind === "reengagements" ? n : 0),
        revenue_usd:
          campaign.revenue_usd && stated
            ? addRevenue(campaign.revenue_usd, stated, n)
            : campaign.revenue_usd,
      });
    } else if (postback.didWin) {
      // A later window's postback names two digits: counted under them, had it more. A
      // re-engagement's are not: its windows are its own, and the row's installs are not it.
      // Apple sends later windows to the winner alone; one that did not win counts nowhere.
      const suffix = suffixOf({
        identifier_field: identifierField,
        source_identifier: sourceIdentifier,
      });
      if (suffix !== null && !postback.reengagement) {
        const key = campaignKey(adNetworkId, identifierField, suffix);
        const seen = later.get(key) ?? { postbacks: 0, revenue: NO_REVENUE };
        later.set(key, {
          adNetworkId,
          suffix,
          postbacks: seen.postbacks + n,
          revenue: stated ? addRevenue(seen.revenue, stated, n) : seen.revenue,
        });
      }
    }
    // Crowd tiers are 4.0's (a coarse value exists from 4.0 on): a postback before it, which
    // carries a fine value or none, is in no tier rather than read as the smallest crowd.
    if (won && kind !== "reengagements" && identifierField === "source-identifier") {
      if (postback.conversionValue !== null) tiers.fine += n;
      else if (postback.coarseValue !== null) tiers.coarse_only += n;
      else tiers.none += n;
    }
    if (!postback.didWin) continue;
    if (fine === null && coarse === null) continue;
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
      revenue_usd: stated && roundRevenue(stated),
    };
    values.set(valueKey, { ...value, postbacks: value.postbacks + n });
  }
  // Each two digits' row, with its later postbacks and the installs of the rows ending in them,
  // which they are read beside. One is made where only a longer row or a later postback names them.
  const suffixes = new Map<string, { adNetworkId: string; suffix: string; installs: number }>();
  for (const campaign of campaigns.values()) {
    const suffix = suffixOf(campaign);
    if (suffix === null) continue;
    const key = campaignKey(campaign.ad_network_id, "source-identifier", suffix);
    const seen = suffixes.get(key)?.installs ?? 0;
    const base = campaign.installs + campaign.redownloads;
    // A longer row of no install or redownload needs no row of its two digits.
    if (base === 0 && suffix !== campaign.source_identifier) continue;
    suffixes.set(key, { adNetworkId: campaign.ad_network_id, suffix, installs: seen + base });
  }
  for (const [key, { adNetworkId, suffix }] of later) {
    if (!suffixes.has(key)) suffixes.set(key, { adNetworkId, suffix, installs: 0 });
  }
  for (const [key, { adNetworkId, suffix, installs }] of suffixes) {
    campaigns.set(key, {
      ...rowOf(adNetworkId, "source-identifier", suffix),
      later_postbacks: later.get(key)?.postbacks ?? 0,
      suffix_installs: installs,
      later_revenue_usd: revenueSchema ? (later.get(key)?.revenue ?? NO_REVENUE) : null,
    });
  }
  const rounded = (range: RevenueRange | null) => range && roundRevenue(range);
  return {
    postbacks: {
      received: sumOf(postbacks),
      counted: sumOf(counted),
      unverified: sumOf(postbacks.filter((p) => p.verification.status === "unverified")),
      development: sumOf(postbacks.filter((p) => p.verification.environment === "development")),
      disputed: sumOf(counted.filter((p) => p.valuesDisputed)),
    },
    revenue_usd: rounded(revenue),
    campaigns: [...campaigns.values()]
      .map((row) => ({
        ...row,
        revenue_usd: rounded(row.revenue_usd),
        later_revenue_usd: rounded(row.later_revenue_usd),
      }))
      .sort(
        (a, b) =>
          b.installs - a.installs ||
          a.media_source.localeCompare(b.media_source) ||
          a.identifier_field.localeCompare(b.identifier_field) ||
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
