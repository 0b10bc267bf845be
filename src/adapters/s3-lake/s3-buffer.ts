/**
 * One version of an S3 object as hyparquet's AsyncBuffer: its size from HeadObject, its bytes
 * from Range GETs of that version. Every read names the version (in a versioned bucket) and
 * carries the ETag HeadObject saw (If-Match), so reads never mix two versions of a file.
 */
import { Readable } from "node:stream";
import { GetObjectCommand, HeadObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { AsyncBuffer } from "hyparquet";

export interface S3ObjectVersion {
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
  readonly etag: string;
  /** As HeadObject gave it: undefined in a bucket that never had versioning. */
  readonly versionId: string | undefined;
}

export const s3Uri = (object: { bucket: string; key: string }): string =>
  `s3://${object.bucket}/${object.key}`;

/**
 * The object's current version, or the version named ("null" included: the version of an
 * object stored while the bucket had no versioning).
 */
export const headObject = async (
  s3: S3Client,
  bucket: string,
  key: string,
  versionId?: string,
): Promise<S3ObjectVersion> => {
  const out = await s3.send(
    new HeadObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }),
  );
  if (out.ContentLength === undefined || !out.ETag) {
    throw new Error(`${s3Uri({ bucket, key })}: HeadObject gave no size or ETag`);
  }
  return { bucket, key, size: out.ContentLength, etag: out.ETag, versionId: out.VersionId };
};

const readBytes = async (body: unknown, object: S3ObjectVersion): Promise<Uint8Array> => {
  // In Node the SDK's body is an IncomingMessage (a Readable); anything else is a wrong runtime.
  if (!(body instanceof Readable)) throw new Error(`${s3Uri(object)} did not return a Node stream`);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
};

/** Bytes [start, end) of the object version, exactly (a short read is an error). */
export const readRange = async (
  s3: S3Client,
  object: S3ObjectVersion,
  start = 0,
  end = object.size,
): Promise<ArrayBuffer> => {
  if (start < 0 || end > object.size || start > end) {
    throw new RangeError(`${s3Uri(object)}: bytes ${start}-${end} outside 0-${object.size}`);
  }
  if (start === end) return new ArrayBuffer(0);
  const whole = start === 0 && end === object.size;
  const out = await s3.send(
    new GetObjectCommand({
      Bucket: object.bucket,
      Key: object.key,
      VersionId: object.versionId,
      IfMatch: object.etag,
      Range: whole ? undefined : `bytes=${start}-${end - 1}`,
    }),
  );
  const bytes = await readBytes(out.Body, object);
  if (bytes.byteLength !== end - start) {
    throw new Error(`${s3Uri(object)}: asked for ${end - start} bytes, got ${bytes.byteLength}`);
  }
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
};

export const s3AsyncBuffer = (s3: S3Client, object: S3ObjectVersion): AsyncBuffer => ({
  byteLength: object.size,
  slice: (start, end) => readRange(s3, object, start, end),
});

/** An AsyncBuffer over bytes already in memory. */
export const memoryAsyncBuffer = (bytes: ArrayBuffer): AsyncBuffer => ({
  byteLength: bytes.byteLength,
  slice: (start, end) => bytes.slice(start, end),
});
