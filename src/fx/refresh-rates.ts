/**
 * Keeping the rate table current on AWS: a daily job merges the ECB's 90-day feed into the
 * stored table, which the ingestion functions read (reloading-rates.ts). Until the job has
 * stored one, the history shipped with the service serves.
 */

import type { RatesTable } from "../ports/rates.ts";
import { mergeEcbRates, parseEcbFeed } from "./ecb-feed.ts";
import { parseEcbRates } from "./ecb-rates.ts";

export interface RefreshRatesDeps {
  readonly table: RatesTable;
  /** The ECB's 90-day feed (XML). */
  readonly feed: () => Promise<string>;
  /** The history shipped with the service, which a first run starts from. */
  readonly shipped: () => Promise<string>;
}

/**
 * Merges the feed into the stored table (or the shipped one) and stores the result, which is
 * read back as the ingestion functions read it first: a table they could not read is never
 * stored. Resolves with the dates it covers.
 */
export const refreshRates = async (
  deps: RefreshRatesDeps,
): Promise<{ firstDate: string; lastDate: string }> => {
  const [feed, stored] = await Promise.all([deps.feed(), deps.table.read()]);
  const merged = mergeEcbRates(stored ?? (await deps.shipped()), parseEcbFeed(feed));
  const { firstDate, lastDate } = parseEcbRates(merged);
  await deps.table.write(merged);
  return { firstDate, lastDate };
};
