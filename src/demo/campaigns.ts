/**
 * The paid media of a demo app: networks, each with a few campaigns, ad sets and ads. Ids and
 * names depend on the app only, not on the seed, so they are stable the way a real ad account
 * is: a different seed changes the traffic, not the campaigns it came from.
 */
import type { Platform } from "../ports/apps.ts";
import type { DemoApp } from "./demo-app.ts";
import { createRandom, hashString, type Random } from "./prng.ts";

/** The attribution fields of one paid touch (null where the network reports no level). */
export interface Touch {
  readonly media_source: string;
  readonly campaign_id: string;
  readonly campaign_name: string;
  readonly adset_id: string;
  readonly adset_name: string;
  readonly ad_id: string | null;
  readonly ad_name: string | null;
}

interface Node {
  readonly id: string;
  readonly name: string;
}
interface Adset extends Node {
  readonly ads: readonly Node[];
}
interface Campaign extends Node {
  readonly adsets: readonly Adset[];
}
export interface MediaSource {
  readonly name: string;
  readonly weight: number;
  readonly campaigns: readonly Campaign[];
}

type IdStyle = (random: Random) => string;
const digits =
  (prefix: string, length: number): IdStyle =>
  (random) =>
    prefix + Array.from({ length: length - prefix.length }, () => random.int(0, 9)).join("");
const hexId =
  (length: number): IdStyle =>
  (random) =>
    random.hex(length);

interface SourceSpec {
  readonly name: string;
  readonly weight: Readonly<Record<Platform, number>>;
  readonly ids: { readonly campaign: IdStyle; readonly adset: IdStyle; readonly ad: IdStyle };
  readonly campaigns: readonly string[];
  readonly adsets: readonly string[];
  /** Null: the network reports no ad level for app campaigns (Google App campaigns, ASA). */
  readonly ads: readonly string[] | null;
}

// Apple Ads is missing on purpose: its installs are found through Apple's AdServices API from
// a token only a real iPhone gets, never through touches a network reports.
const SOURCES: readonly SourceSpec[] = [
  {
    name: "meta_ads",
    weight: { android: 30, ios: 28 },
    ids: { campaign: digits("1202", 18), adset: digits("1202", 18), ad: digits("1202", 18) },
    campaigns: ["UA_Tier1_AEO_Purchase", "UA_WW_Installs_Broad", "Retargeting_Lapsed_7d"],
    adsets: ["Broad_18-54", "LAL_1pct_Payers", "Interest_Casual_Games", "Advantage_Plus"],
    ads: ["Video_15s_Gameplay_v3", "UGC_Testimonial_v1", "Carousel_Features", "Static_Sale_50off"],
  },
  {
    name: "googleadwords_int",
    weight: { android: 30, ios: 12 },
    ids: { campaign: digits("2", 11), adset: digits("1", 12), ad: digits("6", 12) },
    campaigns: ["ACi_Installs_tCPI", "ACe_Purchase_tROAS", "ACi_Tier2_Broad"],
    adsets: ["AdGroup_Video", "AdGroup_HTML5", "AdGroup_Text"],
    ads: null,
  },
  {
    name: "tiktokglobal_int",
    weight: { android: 15, ios: 12 },
    ids: { campaign: digits("17", 19), adset: digits("17", 19), ad: digits("17", 19) },
    campaigns: ["Spark_Ads_Installs", "VBO_Purchase", "Smart_Plus_WW"],
    adsets: ["Auto_Placement_18-34", "Custom_Audience_Gamers", "Broad_All"],
    ads: ["Creator_Video_A", "Creator_Video_B", "Trend_Sound_Remix"],
  },
  {
    name: "unityads_int",
    weight: { android: 10, ios: 8 },
    ids: { campaign: hexId(24), adset: hexId(24), ad: hexId(24) },
    campaigns: ["Unity_CPI_Tier1", "Unity_ROAS_D7"],
    adsets: ["Rewarded_Video", "Interstitial_All"],
    ads: ["Playable_Level3", "EndCard_Static", "Video_30s"],
  },
  {
    name: "applovin_int",
    weight: { android: 15, ios: 10 },
    ids: { campaign: hexId(32), adset: hexId(32), ad: hexId(32) },
    campaigns: ["AXON_ROAS_D7", "AXON_CPI_US", "AXON_WW_Scale"],
    adsets: ["MAX_Rewarded", "MAX_Interstitial"],
    ads: ["Playable_Boss_v2", "Video_Portrait_15s", "Video_Landscape_30s"],
  },
];

/** "Example Game" → "EG": a short prefix as media buyers put in campaign names. */
const appCode = (appName: string): string =>
  appName
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase())
    .join("")
    .slice(0, 4) || "APP";

/** Items from a pool, starting at an offset, so siblings get different names. */
const rotate = <T>(pool: readonly T[], start: number, count: number): T[] =>
  Array.from(
    { length: Math.min(count, pool.length) },
    (_, i) => pool[(start + i) % pool.length],
  ).filter((item): item is T => item !== undefined);

/** The networks that can bring installs to this app, with their campaigns. */
export const mediaSourcesFor = (app: DemoApp): MediaSource[] => {
  const prefix = `${appCode(app.appName)}_${app.platform === "ios" ? "iOS" : "AND"}`;
  return SOURCES.filter((spec) => spec.weight[app.platform] > 0).map((spec) => {
    const random = createRandom(hashString(`${app.appId}/${spec.name}`));
    const campaigns = spec.campaigns.map((stem, c) => ({
      id: spec.ids.campaign(random),
      name: `${prefix}_${stem}`,
      adsets: rotate(spec.adsets, c, 2).map((adsetName, a) => ({
        id: spec.ids.adset(random),
        name: adsetName,
        ads: rotate(spec.ads ?? [], c + a, random.int(2, 3)).map((adName) => ({
          id: spec.ids.ad(random),
          name: adName,
        })),
      })),
    }));
    return { name: spec.name, weight: spec.weight[app.platform], campaigns };
  });
};

/** Spend concentrates on the first campaign, ad set and ad (a Zipf-like 1/rank weighting). */
const byRank = <T>(items: readonly T[]): (readonly [T, number])[] =>
  items.map((item, rank) => [item, 1 / (rank + 1)] as const);

export const pickTouch = (random: Random, sources: readonly MediaSource[]): Touch => {
  const source = random.weighted(sources.map((s) => [s, s.weight] as const));
  const campaign = random.weighted(byRank(source.campaigns));
  const adset = random.weighted(byRank(campaign.adsets));
  const ad = adset.ads.length > 0 ? random.weighted(byRank(adset.ads)) : null;
  return {
    media_source: source.name,
    campaign_id: campaign.id,
    campaign_name: campaign.name,
    adset_id: adset.id,
    adset_name: adset.name,
    ad_id: ad?.id ?? null,
    ad_name: ad?.name ?? null,
  };
};

/** Where an ad's link takes a new user in the app: the deferred deep link. */
const DEEP_LINKS: Readonly<Record<Platform, readonly string[]>> = {
  android: ["/levels/7", "/shop/starter-pack", "/events/winter-cup"],
  ios: ["/products/4711", "/sale/winter", "/collections/new-in"],
};

/** The app link an ad of this campaign points to: its deep link path and promo parameter. */
export const linkOf = (platform: Platform, touch: Touch) => {
  const paths = DEEP_LINKS[platform];
  const index = hashString(touch.campaign_id) % paths.length;
  return {
    deep_link_path: paths[index] ?? "/",
    // Some links carry a promo code, named after the campaign's last word; the rest none.
    params:
      index === 0 ? {} : { promo: (touch.campaign_name.split("_").at(-1) ?? "").toUpperCase() },
  };
};
