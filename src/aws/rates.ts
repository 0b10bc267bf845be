/**
 * Exchange rates on AWS, read: the table the daily rates job stores in S3, else the one shipped
 * in the function's asset, loaded at start-up so no request pays for it, and read again every
 * few hours in the background. The job's side is ./rates-job.ts.
 */
import { s3RatesTable } from "../adapters/s3-lake/rates-table.ts";
import { HOUR_MS, MINUTE_MS } from "../domain/time.ts";
import { loadEcbRates, parseEcbRates } from "../fx/ecb-rates.ts";
import { reloadingRates } from "../fx/reloading-rates.ts";
import { logger } from "../logging/logger.ts";
import { s3 } from "./clients.ts";
import { optionalVariable, type Provider, variable } from "./provider.ts";

/** The job stores a new table once a working day; a warm function reads it again this often. */
const RATES_MAX_AGE_MS = 3 * HOUR_MS;
/** After a start that could not read the stored table, and served the shipped one instead. */
const RATES_RETRY_MS = MINUTE_MS;

export const s3Rates: Provider = async (env) => {
  const shippedFile = variable(env, "FX_RATES_FILE");
  const bucket = optionalVariable(env, "FX_RATES_BUCKET");
  const key = optionalVariable(env, "FX_RATES_KEY");
  const stored = bucket && key ? s3RatesTable(s3, bucket, key) : undefined;
  const load = async () => {
    const text = await stored?.read();
    return text ? parseEcbRates(text) : loadEcbRates(shippedFile);
  };
  return {
    fx: await reloadingRates(load, {
      maxAgeMs: RATES_MAX_AGE_MS,
      onError: (error) => logger.error("rates reload failed", { error }),
      // An S3 error at a cold start (a 5xx, a reset, a stall past the read's timeout) would
      // otherwise fail the function's start, and every request that start was for.
      fallback: () => loadEcbRates(shippedFile),
      retryAfterMs: RATES_RETRY_MS,
    }),
  };
};
