/**
 * The lake's purge on AWS: a deleted install's rows rewritten out of its Parquet files in S3,
 * and its app's export snapshots dropped. Firehose cannot be flushed: its buffer is waited out
 * instead (the purge's minimum request age).
 */
import { createSnapshotCatalog } from "../adapters/dynamodb/stores.ts";
import { createS3LakePurger } from "../adapters/s3-lake/purge.ts";
import { tableVariable } from "../functions/env.ts";
import { dynamoDocument, s3 } from "./clients.ts";
import { type Provider, variable } from "./provider.ts";

export const s3LakePurger: Provider = (env) => ({
  lakePurger: createS3LakePurger({
    s3,
    lakeBucket: variable(env, "LAKE_BUCKET"),
    resultsBucket: variable(env, "RESULTS_BUCKET"),
    snapshots: createSnapshotCatalog(dynamoDocument, variable(env, tableVariable("snapshots"))),
  }),
  flushLake: async () => {},
});
