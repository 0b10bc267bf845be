/**
 * The attribution worker on AWS, fed by its SQS queue: each new install matched to the touch
 * that caused it (or found organic), its result stored once and written to the lake.
 */
import { createAdServicesClient } from "../src/adapters/apple/ad-services.ts";
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createInstallStore } from "../src/adapters/dynamodb/installs.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { createTouchStore } from "../src/adapters/dynamodb/touches.ts";
import { createFirehoseStream } from "../src/adapters/firehose/record-stream.ts";
import { createSqsWorkerHandler } from "../src/adapters/sqs/worker-handler.ts";
import { functionEnv } from "../src/functions/env.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE } from "../src/lake/tables.ts";
import { ATTRIBUTION_WORKER, createAttributionWorker } from "../src/workers/attribution.ts";
import { dynamoDocument, firehose } from "./clients.ts";
import { logged } from "./logged.ts";

const env = functionEnv(ATTRIBUTION_WORKER);

export const handler = logged(
  createSqsWorkerHandler(
    ATTRIBUTION_WORKER,
    createAttributionWorker({
      apps: createAppStore(dynamoDocument, env.APPS_TABLE),
      installs: createInstallStore(dynamoDocument, env.INSTALLS_TABLE),
      attributions: createAttributionStore(dynamoDocument, env.ATTRIBUTIONS_TABLE),
      deletions: createDeletionStore(dynamoDocument, env.DELETIONS_TABLE),
      searchAds: createAdServicesClient({ url: env.APPLE_ADS_URL }),
      touches: createTouchStore(dynamoDocument, env.TOUCHES_TABLE),
      lake: {
        attributions: createFirehoseStream({
          firehose,
          streamName: env.ATTRIBUTIONS_STREAM,
          table: ATTRIBUTIONS_TABLE,
        }),
        events: createFirehoseStream({
          firehose,
          streamName: env.EVENTS_STREAM,
          table: EVENTS_TABLE,
        }),
      },
    }),
  ),
);
