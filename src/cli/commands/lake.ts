/**
 * `lake replay-errors`: puts the records Firehose sent to a table's error prefix (a partition it
 * could not open, a Parquet conversion that failed) back on the table's stream, on the deployed
 * stack (the outputs LakeBucketName and <Table>StreamName), with the caller's AWS credentials and
 * region. The embedded lake has no error output: its stream refuses a record before it is
 * acknowledged.
 */
import { FirehoseClient } from "@aws-sdk/client-firehose";
import { S3Client } from "@aws-sdk/client-s3";
import { createFirehoseStream } from "../../adapters/firehose/record-stream.ts";
import { createS3ErrorObjects } from "../../adapters/s3-lake/error-objects.ts";
import { errorPrefix, LAKE_TABLES, type LakeTableName } from "../../lake/lake-tables.ts";
import { replayErrors } from "../../lake/replay-errors.ts";

export interface ReplayErrorsOptions {
  readonly table: LakeTableName;
  readonly bucket: string;
  readonly stream: string;
  readonly dryRun?: boolean;
  /** Clients to use instead of the default chain's (for a local endpoint). */
  readonly clients?: { readonly s3: S3Client; readonly firehose: FirehoseClient };
}

export const replayErrorsCommand = async (options: ReplayErrorsOptions) => {
  const table = LAKE_TABLES.find((candidate) => candidate.name === options.table);
  if (!table) throw new Error(`No lake table ${options.table}.`);
  const s3 = options.clients?.s3 ?? new S3Client({});
  const firehose = options.clients?.firehose ?? new FirehoseClient({});
  const result = await replayErrors({
    table,
    objects: createS3ErrorObjects({ s3, bucket: options.bucket, prefix: errorPrefix(table.name) }),
    stream: createFirehoseStream({ firehose, streamName: options.stream, table }),
    ...(options.dryRun ? { dryRun: true } : {}),
  });
  const verb = options.dryRun ? "Would put" : "Put";
  console.log(
    `${verb} ${result.records} records of ${result.objects} error objects back on ${options.stream}.`,
  );
  for (const { key, reason } of result.kept) console.log(`Left in ${key}: ${reason}`);
  return result;
};
