/**
 * The rate table as one S3 object (eurofxref-hist.csv's layout), which the daily job writes and
 * the ingestion functions read. A missing object is no table yet: the grants include listing
 * its key, without which S3 answers a missing object with 403 rather than 404.
 */
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { RatesTable } from "../../ports/rates.ts";

export const s3RatesTable = (s3: S3Client, bucket: string, key: string): RatesTable => ({
  async read() {
    try {
      const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      // In Node the SDK's body is an IncomingMessage (a Readable).
      if (!(Body instanceof Readable)) throw new Error(`s3://${bucket}/${key}: no Node stream`);
      return await text(Body);
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  },
  async write(csvText) {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: csvText,
        ContentType: "text/csv; charset=utf-8",
      }),
    );
  },
});
