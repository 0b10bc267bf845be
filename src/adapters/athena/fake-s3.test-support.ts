/**
 * An in-memory S3 behind aws-sdk-client-mock, for the Athena engine's unit tests: it honours
 * Range GETs, ETags and missing keys, and records every body it hands out, so a test can see
 * how much of an object was actually read and whether the download was stopped.
 */
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import {
  GetObjectCommand,
  type GetObjectCommandInput,
  NoSuchKey,
  PutObjectCommand,
  type PutObjectCommandInput,
  S3Client,
} from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";

export interface ServedBody {
  readonly key: string;
  readonly range: string | undefined;
  stream: Readable;
  /** Bytes the reader pulled from this body. */
  pulled: number;
}

const CHUNK_BYTES = 61; // small and odd, so rows and multi-byte characters straddle chunks

const chunked = (data: Buffer, served: { pulled: number }): Readable => {
  let at = 0;
  return new Readable({
    read() {
      if (at >= data.length) {
        this.push(null);
        return;
      }
      const chunk = data.subarray(at, at + CHUNK_BYTES);
      at += chunk.length;
      served.pulled += chunk.length;
      this.push(chunk);
    },
  });
};

export const createFakeS3 = () => {
  const objects = new Map<string, { data: Buffer; etag: string }>();
  const served: ServedBody[] = [];
  const client = new S3Client({ region: "eu-west-1" });
  const mock = mockClient(client);
  const id = (bucket: string | undefined, key: string | undefined) => `${bucket}/${key}`;

  const put = (bucket: string, key: string, data: Buffer | string) => {
    const bytes = Buffer.from(data);
    const etag = `"${createHash("md5").update(bytes).digest("hex")}"`;
    objects.set(id(bucket, key), { data: bytes, etag });
  };

  mock.on(GetObjectCommand).callsFake(async (input: GetObjectCommandInput) => {
    const object = objects.get(id(input.Bucket, input.Key));
    if (!object)
      throw new NoSuchKey({ message: "The specified key does not exist.", $metadata: {} });
    const match = input.Range ? /^bytes=(\d+)-$/.exec(input.Range) : null;
    if (input.Range && !match) throw new Error(`fake S3 does not support Range ${input.Range}`);
    const start = Number(match?.[1] ?? 0);
    if (start >= object.data.length) throw new Error("InvalidRange: 416");
    const data = object.data.subarray(start);
    const body: ServedBody = {
      key: input.Key ?? "",
      range: input.Range,
      stream: new Readable(),
      pulled: 0,
    };
    body.stream = chunked(data, body);
    served.push(body);
    return { Body: body.stream, ETag: object.etag, ContentLength: data.length };
  });

  mock.on(PutObjectCommand).callsFake(async (input: PutObjectCommandInput) => {
    if (typeof input.Body !== "string") throw new Error("fake S3 stores string bodies only");
    put(input.Bucket ?? "", input.Key ?? "", input.Body);
    return {};
  });

  return {
    client,
    mock,
    served,
    put,
    text: (bucket: string, key: string) => objects.get(id(bucket, key))?.data.toString("utf8"),
    size: (bucket: string, key: string) => objects.get(id(bucket, key))?.data.length ?? 0,
  };
};
