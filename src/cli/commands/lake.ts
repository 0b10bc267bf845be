/**
 * `lake replay-errors`: puts the records Firehose sent to a table's error prefix (a partition it
 * could not open, a Parquet conversion that failed) back on the table's stream, on the deployed
 * stack (the outputs LakeBucketName and <Table>StreamName), with the caller's AWS credentials and
 * region. Records of installs whose data was deleted are left out (the deletions table, output
 * DeletionsTableName). The embedded lake has no error output: its stream refuses a record before
 * it is acknowledged.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { FirehoseClient } from "@aws-sdk/client-firehose";
import { S3Client } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { createDeletionStore } from "../../adapters/dynamodb/deletions.ts";
import { MARSHALL_OPTIONS } from "../../adapters/dynamodb/marshall-options.ts";
import { createFirehoseStream } from "../../adapters/firehose/record-stream.ts";
import { createS3ErrorObjects } from "../../adapters/s3-lake/error-objects.ts";
import { errorPrefix, LAKE_TABLES, type LakeTableName } from "../../lake/lake-tables.ts";
import { replayErrors } from "../../lake/replay-errors.ts";

export interface ReplayErrorsOptions {
  readonly table: LakeTableName;
  readonly bucket: string;
  readonly stream: string;
  /** The stack's deletions table: records of installs with a deletion request are dropped. */
  readonly deletionsTable: string;
  readonly dryRun?: boolean;
  /** Clients to use instead of the default chain's (for a local endpoint). */
  readonly clients?: {
    readonly s3: S3Client;
    readonly firehose: FirehoseClient;
    readonly dynamo: DynamoDBDocumentClient;
  };
}

export const replayErrorsCommand = async (options: ReplayErrorsOptions) => {
  const table = LAKE_TABLES.find((candidate) => candidate.name === options.table);
  if (!table) throw new Error(`No lake table ${options.table}.`);
  const s3 = options.clients?.s3 ?? new S3Client({});
  const firehose = options.clients?.firehose ?? new FirehoseClient({});
  const dynamo =
    options.clients?.dynamo ??
    DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: MARSHALL_OPTIONS });
  // Without a region the SDK says only "Region is missing", after the first request is built.
  if (!options.clients) {
    await s3.config.region().catch(() => {
      throw new Error(
        "No AWS region: set AWS_REGION (or AWS_PROFILE, a profile with a region) to the stack's, with credentials that may read its bucket.",
      );
    });
  }
  const result = await replayErrors({
    table,
    objects: createS3ErrorObjects({ s3, bucket: options.bucket, prefix: errorPrefix(table.name) }),
    stream: createFirehoseStream({ firehose, streamName: options.stream, table }),
    deletions: createDeletionStore(dynamo, options.deletionsTable),
    ...(options.dryRun ? { dryRun: true } : {}),
  });
  const verb = options.dryRun ? "Would put" : "Put";
  console.log(
    `${verb} ${result.records} records of ${result.objects} error objects back on ${options.stream}.`,
  );
  if (result.dropped > 0) {
    console.log(`Left out ${result.dropped} records of installs whose data was deleted.`);
  }
  for (const { key, reason } of result.kept) console.log(`Left in ${key}: ${reason}`);
  return result;
};
