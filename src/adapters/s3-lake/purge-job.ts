/**
 * The purge of deleted installs on AWS, run on a schedule (lambdas/purge.ts): the shared flow
 * (purgeOpenRequests) over the DynamoDB stores and the S3 lake.
 *
 * Firehose cannot be flushed: it delivers a file when its buffer fills or its buffering
 * interval ends, so rows of the install sent just before the request may still be on their way
 * to the lake when a run starts. A request is therefore purged only once it is older than
 * MIN_REQUEST_AGE_SECONDS (the buffering interval plus a delivery margin); a younger one waits
 * for a later run. The schedule's interval must exceed the buffering interval, or a run could
 * never see its requests old enough before the next one starts: lib/purge-job.ts checks it.
 */
import type { S3Client } from "@aws-sdk/client-s3";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { PurgeEnv } from "../../config/aws-env.ts";
import { purgeOpenRequests } from "../../deletion/deletions.ts";
import { createDeletionStore } from "../dynamodb/deletions.ts";
import { createCustomerUserMap, createInstallStore } from "../dynamodb/installs.ts";
import { createSnapshotCatalog } from "../dynamodb/stores.ts";
import { createS3LakePurger } from "./purge.ts";

export interface S3PurgeJobDeps {
  readonly doc: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly env: PurgeEnv;
  readonly now?: () => Date;
}

/** One run: completes every open request old enough; returns how many it completed. */
export const createS3PurgeJob = ({ doc, s3, env, now }: S3PurgeJobDeps) => {
  const lake = createS3LakePurger({
    s3,
    lakeBucket: env.LAKE_BUCKET,
    resultsBucket: env.RESULTS_BUCKET,
    snapshots: createSnapshotCatalog(doc, env.SNAPSHOTS_TABLE),
  });
  const deps = {
    deletions: createDeletionStore(doc, env.DELETIONS_TABLE),
    installs: createInstallStore(doc, env.INSTALLS_TABLE),
    customerUsers: createCustomerUserMap(doc, env.CUSTOMER_USERS_TABLE),
    lake,
    // Nothing to flush: Firehose's buffer is waited out instead (minAgeMs).
    flush: async () => {},
    minAgeMs: env.MIN_REQUEST_AGE_SECONDS * 1000,
    now,
  };
  return (): Promise<number> => purgeOpenRequests(deps);
};
