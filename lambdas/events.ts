/** `POST /v1/events` on AWS: SDK event batches, judged one by one, into the events stream. */
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createCustomerUserMap, createInstallStore } from "../src/adapters/dynamodb/installs.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { firehoseStreams } from "../src/aws/firehose-streams.ts";
import { geoipCountries } from "../src/aws/geoip-countries.ts";
import { kmsKeyrings } from "../src/aws/kms-keyrings.ts";
import { lambda } from "../src/aws/lambda.ts";
import { s3Rates } from "../src/aws/rates.ts";
import { sqsQueues } from "../src/aws/sqs-queues.ts";
import { eventsFunction } from "../src/http/handlers/ingest.ts";

export const handler = await lambda(eventsFunction, {
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
});
