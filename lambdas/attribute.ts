/**
 * The attribution worker on AWS, fed by its SQS queue: each new install matched to the touch
 * that caused it (or found organic), its result stored once and written to the lake.
 */
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createInstallStore } from "../src/adapters/dynamodb/installs.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { createTouchStore } from "../src/adapters/dynamodb/touches.ts";
import { appleAds } from "../src/aws/apple-ads.ts";
import { firehoseStreams } from "../src/aws/firehose-streams.ts";
import { lambdaWorker } from "../src/aws/lambda-worker.ts";
import { attributionWorkerFunction } from "../src/workers/attribution-worker.ts";

export const handler = await lambdaWorker(attributionWorkerFunction, {
  tables: {
    apps: createAppStore,
    installs: createInstallStore,
    touches: createTouchStore,
    attributions: createAttributionStore,
    deletions: createDeletionStore,
  },
  streams: firehoseStreams,
  appleAds,
});
