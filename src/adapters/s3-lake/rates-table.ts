/**
 * The rate table as one S3 object (eurofxref-hist.csv's layout), which the daily job writes and
 * the ingestion functions read. A missing object is no table yet, whether S3 answers it with 404
 * or, to a reader it does not let list the bucket, 403.
 */
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import {
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { logger } from "../../logging/logger.ts";
import type { RatesTable } from "../../ports/rates.ts";

/**
 * A read that takes longer has stalled: the table is a few megabytes, and a function reads it
 * at its start, which Lambda gives ten seconds.
 */
const READ_TIMEOUT_MS = 4_000;

export const s3RatesTable = (
  s3: S3Client,
  bucket: string,
  key: string,
  options: { readonly readTimeoutMs?: number } = {},
): RatesTable => ({
  async read() {
    try {
      const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
        // The body's reading too: the signal aborts the request until its response has ended.
        abortSignal: AbortSignal.timeout(options.readTimeoutMs ?? READ_TIMEOUT_MS),
      });
      // In Node the SDK's body is an IncomingMessage (a Readable).
      if (!(Body instanceof Readable)) throw new Error(`s3://${bucket}/${key}: no Node stream`);
      return await text(Body);
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      // S3 answers a missing object with 403, not 404, to a reader that may not list the
      // bucket. The functions that read rates may list only this key, under a condition a
      // GetObject does not carry: until the rates job first writes the table, that is no table
      // yet, and the shipped one serves. Said, since a wrong grant reads the same.
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 403) {
        logger.warn("the rates table cannot be read (403): none written yet, or no grant", {
          bucket,
          key,
        });
        return undefined;
      }
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
