/**
 * The providers of the three ingestion routes (installs, events, server-to-server events),
 * which share their row's uses (INGEST_USES in src/http/routes.ts) and so one set of adapters.
 */
import { createAttributionStore } from "../adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../adapters/dynamodb/deletions.ts";
import { createCustomerUserMap, createInstallStore } from "../adapters/dynamodb/installs.ts";
import { createAppStore } from "../adapters/dynamodb/stores.ts";
import { firehoseStreams } from "./firehose-streams.ts";
import { geoipCountries } from "./geoip-countries.ts";
import { kmsKeyrings } from "./kms-keyrings.ts";
import { s3Rates } from "./rates.ts";
import { sqsQueues } from "./sqs-queues.ts";

export const INGEST_PROVIDERS = {
  tables: {
    apps: createAppStore,
    installs: createInstallStore,
    customerUsers: createCustomerUserMap,
    deletions: createDeletionStore,
    attributions: createAttributionStore,
  },
  streams: firehoseStreams,
  queues: sqsQueues,
  rates: s3Rates,
  countries: geoipCountries,
  sealingKey: kmsKeyrings,
} as const;
