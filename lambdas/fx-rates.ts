/**
 * The daily rates job on AWS (an EventBridge schedule, not an API route): merges the ECB's
 * 90-day feed into the rate table the ingestion functions read (src/fx/refresh-rates.ts).
 */
import { readFile } from "node:fs/promises";
import middy from "@middy/core";
import { fetchEcbFeed } from "../src/adapters/ecb/feed.ts";
import { s3RatesTable } from "../src/adapters/s3-lake/rates-table.ts";
import { functionEnv } from "../src/functions/env.ts";
import { refreshRates } from "../src/fx/refresh-rates.ts";
import { jobOf } from "../src/jobs/jobs.ts";
import { logger } from "../src/logging/logger.ts";
import { s3 } from "./clients.ts";
import { logged } from "./logged.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = functionEnv(jobOf("fx-rates").aws);

const deps = {
  table: s3RatesTable(s3, env.FX_RATES_BUCKET, env.FX_RATES_KEY),
  feed: () => fetchEcbFeed(),
  shipped: () => readFile(env.FX_RATES_FILE, "utf8"),
};

export const handler = logged(
  middy().handler(async () => {
    const covered = await refreshRates(deps);
    logger.info("fx rates refreshed", covered);
    return covered;
  }),
);
