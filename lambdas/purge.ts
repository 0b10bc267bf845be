/**
 * The scheduled purge of deleted installs on AWS (an EventBridge schedule, not an API route):
 * the shared flow (src/deletion/deletions.ts) over the DynamoDB stores and the S3 lake. The
 * schedule's interval must exceed Firehose's buffering interval, or a run could never see its
 * requests old enough before the next one starts: lib/purge-job.ts checks it.
 */
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createCustomerUserMap, createInstallStore } from "../src/adapters/dynamodb/installs.ts";
import { createSnapshotCatalog } from "../src/adapters/dynamodb/stores.ts";
import { lambdaJob } from "../src/aws/lambda-job.ts";
import { s3LakePurger } from "../src/aws/s3-lake-purger.ts";
import { purgeJob } from "../src/deletion/deletions.ts";

export const handler = await lambdaJob(purgeJob, {
  tables: {
    deletions: createDeletionStore,
    installs: createInstallStore,
    customerUsers: createCustomerUserMap,
    snapshots: createSnapshotCatalog,
    attributions: createAttributionStore,
  },
  lake: s3LakePurger,
});
