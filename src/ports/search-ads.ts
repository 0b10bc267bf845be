/** Apple Ads attribution: an install's AdServices token, resolved by Apple. */

export type SearchAdsAnswer =
  | { readonly attribution: false }
  | {
      readonly attribution: true;
      readonly campaignId: string;
      readonly adGroupId: string | null;
      readonly keywordId: string | null;
      readonly adId: string | null;
      readonly claimType: "Click" | "Impression";
      /** ISO 8601, when Apple gives it. */
      readonly clickDate: string | null;
    };

export interface SearchAds {
  /**
   * What Apple says of the token: attributed or not (a token Apple refuses as invalid is not).
   * Throws when it cannot be told now (Apple not ready after its retries, or failing), so
   * the job is tried again later.
   */
  resolve(token: string): Promise<SearchAdsAnswer>;
}
