/**
 * What campaigns cost, as the app's owner (or a network's API, through the owner's server)
 * reports it: one row per day and campaign (and ad set, ad, country when given), a row sent
 * again for the same keys replacing the earlier one.
 */
export interface CostRow {
  readonly appId: string;
  /** The UTC day the spend was on (YYYY-MM-DD). */
  readonly day: string;
  readonly mediaSource: string;
  readonly campaignId: string;
  readonly campaignName: string | null;
  readonly adsetId: string | null;
  readonly adsetName: string | null;
  readonly adId: string | null;
  readonly adName: string | null;
  /** ISO 3166-1 alpha-2; null for a row of every country. */
  readonly country: string | null;
  readonly amount: number;
  readonly currency: string;
  /** At the ECB's rate of the row's day, as revenue is; null when there is none for it. */
  readonly amountUsd: number | null;
  readonly impressions: number | null;
  readonly clicks: number | null;
  /** ISO 8601 UTC: when this version of the row came. */
  readonly receivedAt: string;
}

export interface CostStore {
  /**
   * Stores each row, replacing the one of the same app, day and keys unless that one was
   * received later (which then stands, the row refused without an error); how many replaced one.
   */
  put(rows: readonly CostRow[]): Promise<{ readonly replaced: number }>;
  /** An app's rows of the days [from, to] (YYYY-MM-DD, both included), by day. */
  listByApp(
    appId: string,
    days: { readonly from: string; readonly to: string },
  ): Promise<CostRow[]>;
}
