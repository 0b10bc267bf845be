/**
 * A table's error prefix in the lake bucket (LakeErrorObjects on S3): the objects Firehose
 * wrote there, listed page by page, read whole (each is at most one buffer's records), and
 * replaced by what a replay leaves or deleted (the bucket is versioned: the old version stays
 * until the noncurrent-version lifetime ends).
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { LakeErrorObjects } from "../../ports/lake.ts";

export const createS3ErrorObjects = (options: {
  readonly s3: S3Client;
  readonly bucket: string;
  /** The table's error prefix (`errorPrefix` in src/lake/lake-tables.ts). */
  readonly prefix: string;
}): LakeErrorObjects => {
  const { s3, bucket: Bucket, prefix } = options;
  return {
    async *list() {
      // Listed first: replacing an object while its page is being read would list it again.
      const keys: string[] = [];
      for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket, Prefix: prefix })) {
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      }
      yield* keys.sort();
    },
    async read(key) {
      const got = await s3.send(new GetObjectCommand({ Bucket, Key: key }));
      return (await got.Body?.transformToString("utf8")) ?? "";
    },
    async replace(key, text) {
      if (text === "") await s3.send(new DeleteObjectCommand({ Bucket, Key: key }));
      else await s3.send(new PutObjectCommand({ Bucket, Key: key, Body: text }));
    },
  };
};
