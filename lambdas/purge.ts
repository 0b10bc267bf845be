/**
 * The scheduled purge of deleted installs on AWS (an EventBridge schedule, not an API route):
 * the shared flow (purgeOpenRequests) over the DynamoDB stores and the S3 lake.
 *
 * Firehose cannot be flushed: it delivers a file when its buffer fills or its buffering
 * interval ends, so rows of the install sent just before the request may still be on their way
 * to the lake when a run starts. A request is therefore purged only once it is older than
 * MIN_REQUEST_AGE_SECONDS (the buffering interval plus a delivery margin); a younger one waits
 * for a later run. The schedule's interval must exceed the buffering interval, or a run could
 * never see its requests old enough before the next one starts: lib/purge-job.ts checks it.
 */
import middy from "@middy/core";
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createCustomerUserMap, createInstallStore } from "../src/adapters/dynamodb/installs.ts";
import { createSnapshotCatalog } from "../src/adapters/dynamodb/stores.ts";
import { createS3LakePurger } from "../src/adapters/s3-lake/purge.ts";
import { purgeOpenRequests } from "../src/deletion/deletions.ts";
import { functionEnv } from "../src/functions/env.ts";
import { jobOf } from "../src/jobs/jobs.ts";
import { logger } from "../src/logging/logger.ts";
import { dynamoDocument, s3 } from "./clients.ts";
import { logged } from "./logged.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = functionEnv(jobOf("purge").aws);

const deps = {
  deletions: createDeletionStore(dynamoDocument, env.DELETIONS_TABLE),
  installs: createInstallStore(dynamoDocument, env.INSTALLS_TABLE),
  customerUsers: createCustomerUserMap(dynamoDocument, env.CUSTOMER_USERS_TABLE),
  attributions: createAttributionStore(dynamoDocument, env.ATTRIBUTIONS_TABLE),
  lake: createS3LakePurger({
    s3,
    lakeBucket: env.LAKE_BUCKET,
    resultsBucket: env.RESULTS_BUCKET,
    snapshots: createSnapshotCatalog(dynamoDocument, env.SNAPSHOTS_TABLE),
  }),
  // Nothing to flush: Firehose's buffer is waited out instead (minAgeMs).
  flush: async () => {},
  minAgeMs: env.MIN_REQUEST_AGE_SECONDS * 1000,
};

export const handler = logged(
  middy().handler(async (): Promise<{ completed: number }> => {
    const completed = await purgeOpenRequests(deps);
    logger.info("purge deletions", { completed });
    return { completed };
  }),
);
