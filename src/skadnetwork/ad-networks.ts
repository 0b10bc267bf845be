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
