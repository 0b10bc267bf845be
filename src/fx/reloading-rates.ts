/**
 * Rates whose table changes under their readers: on AWS they load themselves again, since the
 * ingestion functions stay warm for hours while the daily rates job stores a new table
 * (refresh-rates.ts); on the embedded runtime the same refresh replaces the table in place.
 */
import type { FxRates } from "./ecb-rates.ts";

export interface ReloadingRatesOptions {
  /** How old the loaded table may get before a conversion starts loading it again. */
  readonly maxAgeMs: number;
  readonly now?: () => number;
  /** Told of a failed load; the table loaded before goes on serving. */
  readonly onError?: (error: unknown) => void;
  /**
   * The table served when the first load fails, rather than failing with it: a function's
   * start must not fail, or wait, on a store that is briefly away while a table it ships can
   * serve. A load is then tried again after `retryAfterMs`, until one succeeds. Without it, the
   * first load's failure is thrown.
   */
  readonly fallback?: () => Promise<FxRates>;
  readonly retryAfterMs?: number;
}

/**
 * Rates that load themselves again: each answer comes from the table loaded last, and once
 * that is `maxAgeMs` old a conversion starts a reload in the background, without waiting.
 */
export const reloadingRates = async (
  load: () => Promise<FxRates>,
  options: ReloadingRatesOptions,
): Promise<FxRates> => {
  const now = options.now ?? Date.now;
  /** Serving the fallback: no load has succeeded yet. */
  let fallingBack = false;
  let current: FxRates;
  try {
    current = await load();
  } catch (error) {
    if (!options.fallback) throw error;
    options.onError?.(error);
    current = await options.fallback();
    fallingBack = true;
  }
  let loadedAt = now();
  let reloading = false;
  const reloadIfOld = () => {
    const maxAgeMs = fallingBack ? (options.retryAfterMs ?? options.maxAgeMs) : options.maxAgeMs;
    if (reloading || now() - loadedAt < maxAgeMs) return;
    reloading = true;
    load()
      .then(
        (rates) => {
          current = rates;
          fallingBack = false;
        },
        (error: unknown) => options.onError?.(error),
      )
      .finally(() => {
        // A failed reload is tried again only after another interval, not on every event.
        loadedAt = now();
        reloading = false;
      });
  };
  return ratesFrom(() => current, reloadIfOld);
};

/**
 * Rates that answer each call from whatever table `current()` gives at that moment, so the
 * table can be replaced under readers that keep this object. `beforeConvert` runs before each
 * conversion.
 */
export const ratesFrom = (current: () => FxRates, beforeConvert?: () => void): FxRates => ({
  get firstDate() {
    return current().firstDate;
  },
  get lastDate() {
    return current().lastDate;
  },
  get currencies() {
    return current().currencies;
  },
  toUsd(amount, currency, date, toUsdOptions) {
    beforeConvert?.();
    return current().toUsd(amount, currency, date, toUsdOptions);
  },
});
