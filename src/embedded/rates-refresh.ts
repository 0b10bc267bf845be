/**
 * The embedded runtime's exchange rates kept current, as the daily rates job keeps them on
 * AWS: the ECB's 90-day feed merged into the data folder's rate table (refresh-rates.ts), on
 * the job table's interval (the ECB publishes once a working day, around 16:00 CET), and the
 * merged table put under ingestion at once. Offline, the runtime goes on with the rates it has
 * and says so in one log line per attempt.
 */
import { readFile } from "node:fs/promises";
import { fetchEcbFeed } from "../adapters/ecb/feed.ts";
import { type FxRates, parseEcbRates, SHIPPED_ECB_RATES } from "../fx/ecb-rates.ts";
import { refreshRates } from "../fx/refresh-rates.ts";
import { logger } from "../logging/logger.ts";
import type { RatesTable } from "../ports/rates.ts";

const FEED_TIMEOUT_MS = 15_000;

/** `fetch failed: getaddrinfo ENOTFOUND …`: an error's message and its cause's. */
const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
};

export interface RatesRefreshOptions {
  readonly feedUrl: string;
  readonly table: RatesTable;
  /** The rates ingestion uses now (the newest date is logged when the feed is unreachable). */
  readonly current: () => FxRates;
  readonly replace: (rates: FxRates) => void;
}

/** One refresh: the feed merged into the data folder's table, which then replaces the rates. */
export const ratesRefresh = (options: RatesRefreshOptions) => async (): Promise<void> => {
  try {
    await refreshRates({
      table: options.table,
      feed: () => fetchEcbFeed(options.feedUrl, FEED_TIMEOUT_MS),
      shipped: () => readFile(SHIPPED_ECB_RATES, "utf8"),
    });
    const stored = await options.table.read();
    if (stored === undefined) throw new Error("the refreshed rate table is not there");
    const rates = parseEcbRates(stored);
    options.replace(rates);
    logger.info("exchange rates refreshed from the ECB feed", { lastDate: rates.lastDate });
  } catch (error) {
    logger.warn("ECB rate feed not reachable: revenue_usd goes on with the rates it has", {
      feedUrl: options.feedUrl,
      lastDate: options.current().lastDate,
      // Offline is an expected state here: the reason, without a stack.
      reason: reasonOf(error),
    });
  }
};
