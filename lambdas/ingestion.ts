/**
 * What the three ingestion entries share: their dependencies on AWS, built once per execution
 * environment. The environment is parsed first, so a bad deployment fails on its first cold
 * start naming the variable; then the FX table (the one the daily rates job stores, else the
 * one shipped in the function's asset) and the country database shipped there are loaded
 * (top-level await), so no request pays for them. A warm function reads the stored table
 * again every few hours, in the background.
 */
import { cachedAppStore } from "../src/adapters/cache/cached-apps.ts";
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createCustomerUserMap, createInstallStore } from "../src/adapters/dynamodb/installs.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { createFirehoseStream } from "../src/adapters/firehose/record-stream.ts";
import { createCountryResolver } from "../src/adapters/geoip/country-resolver.ts";
import { createKmsKeyWrapper } from "../src/adapters/kms/kms-key-wrapper.ts";
import { s3RatesTable } from "../src/adapters/s3-lake/rates-table.ts";
import { createSqsWorkQueue } from "../src/adapters/sqs/work-queue.ts";
import { createAppKeyrings } from "../src/apps/app-keyrings.ts";
import { DEFAULT_APP_CACHE_MS } from "../src/config/defaults.ts";
import { functionEnv } from "../src/functions/env.ts";
import { loadEcbRates, parseEcbRates } from "../src/fx/ecb-rates.ts";
import { reloadingRates } from "../src/fx/reloading-rates.ts";
import { createIngestHandlers } from "../src/http/handlers/ingest.ts";
import { routeOf } from "../src/http/routes.ts";
import { EVENTS_TABLE } from "../src/lake/tables.ts";
import { logger } from "../src/logging/logger.ts";
import { dynamoDocument, firehose, kms, s3, sqs } from "./clients.ts";

const env = functionEnv(routeOf("events"));

/** The job stores a new table once a working day; a warm function reads it again this often. */
const RATES_MAX_AGE_MS = 3 * 60 * 60 * 1000;

const stored =
  env.FX_RATES_BUCKET && env.FX_RATES_KEY
    ? s3RatesTable(s3, env.FX_RATES_BUCKET, env.FX_RATES_KEY)
    : undefined;
const loadRates = async () => {
  const text = await stored?.read();
  return text ? parseEcbRates(text) : loadEcbRates(env.FX_RATES_FILE);
};

const [countries, fx] = await Promise.all([
  createCountryResolver(env.GEOIP_DB_FILE, {
    trustViewerCountry: env.TRUST_VIEWER_COUNTRY === "true",
  }),
  reloadingRates(loadRates, {
    maxAgeMs: RATES_MAX_AGE_MS,
    onError: (error) => logger.error("rates reload failed", { error }),
  }),
]);

export const handlers = createIngestHandlers({
  // A warm function reads each app at most every few seconds.
  apps: cachedAppStore(createAppStore(dynamoDocument, env.APPS_TABLE), DEFAULT_APP_CACHE_MS),
  installs: createInstallStore(dynamoDocument, env.INSTALLS_TABLE),
  customerUsers: createCustomerUserMap(dynamoDocument, env.CUSTOMER_USERS_TABLE),
  deletions: createDeletionStore(dynamoDocument, env.DELETIONS_TABLE),
  events: createFirehoseStream({ firehose, streamName: env.EVENTS_STREAM, table: EVENTS_TABLE }),
  countries,
  fx,
  // Private keys are unwrapped once per app key and execution environment, then kept in memory.
  keyrings: createAppKeyrings(createKmsKeyWrapper({ kms, keyId: env.SEALING_KEY_ARN })),
  attribution: {
    store: createAttributionStore(dynamoDocument, env.ATTRIBUTIONS_TABLE),
    queue: createSqsWorkQueue(sqs, env.ATTRIBUTION_QUEUE_URL),
  },
});
