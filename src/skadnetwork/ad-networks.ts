/**
 * SKAdNetwork's ad network ids (`<id>.skadnetwork`) and the media sources the service names
 * them by, so Apple's postbacks land beside the same network's clicks in the reports. A
 * catalog of ids their networks publish; an app adds or changes its own (a network the
 * catalog lacks, or a name of its own), and an id neither knows is reported as it stands.
 */
export interface AdNetwork {
  readonly id: string;
  readonly mediaSource: string;
  readonly source: string;
}

/**
 * Google's list of the ad networks its mediation serves and their ids, each named there: the
 * networks' own lists name many others' ids too (those they buy from), so a network's own id is
 * read from one list that names whose each is. The media sources are those the postback
 * partners' catalog and the leading services name the networks by.
 */
const THIRD_PARTY_IDS =
  "https://developers.google.com/ad-manager/mobile-ads-sdk/ios/3p-skadnetworks";

export const AD_NETWORKS = [
  {
    id: "cstr6suwn9.skadnetwork",
    mediaSource: "googleadwords_int",
    source: "https://developers.google.com/admob/ios/ios14#skadnetwork",
  },
  {
    id: "v9wttpbfk9.skadnetwork",
    mediaSource: "facebook_ads",
    source: "https://developers.facebook.com/docs/SKAdNetwork",
  },
  {
    id: "n38lu8286q.skadnetwork",
    mediaSource: "facebook_ads",
    source: "https://developers.facebook.com/docs/SKAdNetwork",
  },
  {
    // AppLovin.
    id: "ludvb6z3bs.skadnetwork",
    mediaSource: "applovin_int",
    source: THIRD_PARTY_IDS,
  },
  {
    // ironSource Ads.
    id: "su67r6k2v3.skadnetwork",
    mediaSource: "ironsource_int",
    source: THIRD_PARTY_IDS,
  },
  {
    // Unity Ads.
    id: "4dzt52r2t5.skadnetwork",
    mediaSource: "unityads_int",
    source: THIRD_PARTY_IDS,
  },
  {
    // Mintegral.
    id: "kbd757ywx3.skadnetwork",
    mediaSource: "mintegral_int",
    source: THIRD_PARTY_IDS,
  },
  {
    // Moloco.
    id: "9t245vhmpl.skadnetwork",
    mediaSource: "moloco_int",
    source: THIRD_PARTY_IDS,
  },
  {
    // Liftoff.
    id: "7ug5zh24hu.skadnetwork",
    mediaSource: "liftoff_int",
    source: THIRD_PARTY_IDS,
  },
  {
    // Liftoff Monetize, formerly Vungle.
    id: "gta9lk7p23.skadnetwork",
    mediaSource: "vungle_int",
    source: THIRD_PARTY_IDS,
  },
  {
    // Pangle.
    id: "22mmun2rn5.skadnetwork",
    mediaSource: "bytedanceglobal_int",
    source: THIRD_PARTY_IDS,
  },
] as const satisfies readonly AdNetwork[];

/** An id as devices and networks write it varies in case: one key for both. */
const normal = (id: string) => id.toLowerCase();

/** The media source of an ad network id: the app's own name first, then the catalog's. */
export const mediaSourceOf = (
  adNetworkId: string,
  appNetworks: Readonly<Record<string, string>> = {},
): string => {
  const key = normal(adNetworkId);
  const own = Object.entries(appNetworks).find(([id]) => normal(id) === key)?.[1];
  if (own) return own;
  return AD_NETWORKS.find((network) => network.id === key)?.mediaSource ?? adNetworkId;
};
