/** The few S3 reads and writes the Athena engine needs, as Node streams. */
import { Readable } from "node:stream";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";

export interface S3ObjectRef {
  readonly bucket: string;
  readonly key: string;
}

const S3_URI = /^s3:\/\/([^/]+)\/(.+)$/;

/** `s3://bucket/key` as bucket and key; Athena reports result locations in this form. */
export const parseS3Uri = (uri: string): S3ObjectRef => {
  const [, bucket, key] = S3_URI.exec(uri) ?? [];
  if (!bucket || !key) throw new Error(`Not an S3 object URI: ${uri}`);
  return { bucket, key };
};

export interface OpenedObject {
  readonly body: Readable;
  readonly etag: string | undefined;
  /** The whole object's size; only known when it is read from its first byte. */
  readonly size: number | undefined;
}

/** Opens an object for streaming from byte `start` to its end (an S3 Range GET past 0). */
export const openObject = async (
  s3: S3Client,
  ref: S3ObjectRef,
  start = 0,
): Promise<OpenedObject> => {
  const out = await s3.send(
    new GetObjectCommand({
      Bucket: ref.bucket,
      Key: ref.key,
      Range: start > 0 ? `bytes=${start}-` : undefined,
    }),
  );
  // In Node the SDK's body is an IncomingMessage (a Readable); anything else is a wrong runtime.
  if (!(out.Body instanceof Readable)) {
    throw new Error(`s3://${ref.bucket}/${ref.key} did not return a Node stream`);
  }
  return { body: out.Body, etag: out.ETag, size: start === 0 ? out.ContentLength : undefined };
};

export const readText = async (body: Readable): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
};

export const putJson = async (s3: S3Client, ref: S3ObjectRef, body: string): Promise<void> => {
  await s3.send(
    new PutObjectCommand({
      Bucket: ref.bucket,
      Key: ref.key,
      Body: body,
      ContentType: "application/json",
    }),
  );
};
