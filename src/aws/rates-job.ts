/**
 * Exchange rates on AWS, written (the daily rates job): the table stored in S3, the ECB's feed
 * merged into it, and the table shipped in the asset that a first run starts from.
 */
import { readFile } from "node:fs/promises";
import { fetchEcbFeed } from "../adapters/ecb/feed.ts";
import { s3RatesTable } from "../adapters/s3-lake/rates-table.ts";
import { s3 } from "./clients.ts";
import { type Provider, variable } from "./provider.ts";

export const s3RatesJob: Provider = (env) => ({
  ratesTable: s3RatesTable(s3, variable(env, "FX_RATES_BUCKET"), variable(env, "FX_RATES_KEY")),
  shippedRates: () => readFile(variable(env, "FX_RATES_FILE"), "utf8"),
  ratesFeed: () => fetchEcbFeed(),
});
