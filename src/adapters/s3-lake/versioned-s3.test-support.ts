/**
 * An in-memory S3 behind aws-sdk-client-mock for the lake purge's tests: buckets that keep
 * every version of an object (VersionIds, delete markers, deleting one version by id) or keep
 * only the current one, paginated listings of versions, HeadObject and GETs of
 * the current or a named version, Range GETs (`bytes=a-b`, `bytes=a-`) and If-Match on
 * GetObject and PutObject. It records each GET's key and range.
 */
import { createHash, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  type DeleteObjectCommandInput,
  GetObjectCommand,
  type GetObjectCommandInput,
  HeadObjectCommand,
  type HeadObjectCommandInput,
  ListObjectVersionsCommand,
  type ListObjectVersionsCommandInput,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  type PutObjectCommandInput,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";

interface Version {
  readonly versionId: string;
  /** Undefined for a delete marker. */
  readonly data: Buffer | undefined;
  readonly etag: string;
}

export interface ServedRange {
  readonly key: string;
  readonly range: string | undefined;
  readonly bytes: number;
}

const preconditionFailed = () =>
  new S3ServiceException({
    name: "PreconditionFailed",
    $fault: "client",
    $metadata: { httpStatusCode: 412 },
    message: "At least one of the pre-conditions you specified did not hold",
  });

export interface VersionedS3Options {
  /** Buckets with versioning on; the others keep only the current object. */
  readonly versioned: readonly string[];
  /** Keys per listing page, to exercise pagination. */
  readonly pageSize?: number;
  /** Called after each GET is served, e.g. to replace the object behind a reader's back. */
  readonly afterGet?: (served: ServedRange) => void;
}

export const createVersionedS3 = (options: VersionedS3Options) => {
  const versioned = new Set(options.versioned);
  const pageSize = options.pageSize ?? 1000;
  const objects = new Map<string, Version[]>();
  const served: ServedRange[] = [];
  const client = new S3Client({ region: "eu-west-1" });
  const mock = mockClient(client);
  const id = (bucket: string | undefined, key: string | undefined) => `${bucket}\u0000${key}`;
  const current = (bucket?: string, key?: string): Version | undefined => {
    const last = objects.get(id(bucket, key))?.at(-1);
    return last?.data ? last : undefined;
  };
  const missing = () =>
    new NoSuchKey({ message: "The specified key does not exist.", $metadata: {} });

  /** `versionId` "null" stores what a versioned bucket holds from before versioning was on. */
  const put = (
    bucket: string,
    key: string,
    body: Uint8Array | string,
    versionId?: "null",
  ): string => {
    const data = Buffer.from(body);
    const version: Version = {
      versionId: versionId ?? (versioned.has(bucket) ? randomUUID() : "null"),
      data,
      etag: `"${createHash("md5").update(data).digest("hex")}"`,
    };
    const history = versioned.has(bucket) ? (objects.get(id(bucket, key)) ?? []) : [];
    objects.set(id(bucket, key), [...history, version]);
    return version.versionId;
  };

  // Every version of every key, a key's newest first, as S3 lists them; delete markers apart.
  mock.on(ListObjectVersionsCommand).callsFake(async (input: ListObjectVersionsCommandInput) => {
    const prefix = `${input.Bucket}\u0000${input.Prefix ?? ""}`;
    const all = [...objects.keys()]
      .filter((k) => k.startsWith(prefix))
      .sort()
      .flatMap((k) => {
        const key = k.slice(`${input.Bucket}\u0000`.length);
        const history = objects.get(k) ?? [];
        return history
          .map((version, at) => ({ key, version, latest: at === history.length - 1 }))
          .reverse();
      });
    // The markers name the last version listed: the page goes on right after it. A key marker
    // alone starts at the first key after it, as S3 does.
    const { KeyMarker, VersionIdMarker } = input;
    const firstAfter = (marker: string) => {
      const at = all.findIndex((e) => e.key > marker);
      return at < 0 ? all.length : at;
    };
    const resumeAt =
      KeyMarker === undefined
        ? 0
        : VersionIdMarker === undefined
          ? firstAfter(KeyMarker)
          : all.findIndex((e) => e.key === KeyMarker && e.version.versionId === VersionIdMarker) +
            1;
    const page = all.slice(resumeAt, resumeAt + Math.min(input.MaxKeys ?? 1000, pageSize));
    const last = page.at(-1);
    const truncated = resumeAt + page.length < all.length;
    return {
      Versions: page
        .filter((e) => e.version.data)
        .map((e) => ({
          Key: e.key,
          VersionId: e.version.versionId,
          IsLatest: e.latest,
          ETag: e.version.etag,
          Size: e.version.data?.length,
        })),
      DeleteMarkers: page
        .filter((e) => !e.version.data)
        .map((e) => ({ Key: e.key, VersionId: e.version.versionId, IsLatest: e.latest })),
      IsTruncated: truncated,
      NextKeyMarker: truncated ? last?.key : undefined,
      NextVersionIdMarker: truncated ? last?.version.versionId : undefined,
    };
  });

  mock.on(HeadObjectCommand).callsFake(async (input: HeadObjectCommandInput) => {
    const object = input.VersionId
      ? objects.get(id(input.Bucket, input.Key))?.find((v) => v.versionId === input.VersionId)
      : current(input.Bucket, input.Key);
    if (!object?.data) throw new NotFound({ message: "Not Found", $metadata: {} });
    // S3 names no version of an object in a bucket that never had versioning.
    const versionId = versioned.has(input.Bucket ?? "") ? object.versionId : undefined;
    return { ContentLength: object.data.length, ETag: object.etag, VersionId: versionId };
  });

  mock.on(GetObjectCommand).callsFake(async (input: GetObjectCommandInput) => {
    const object = input.VersionId
      ? objects.get(id(input.Bucket, input.Key))?.find((v) => v.versionId === input.VersionId)
      : current(input.Bucket, input.Key);
    if (!object?.data) throw missing();
    if (input.IfMatch && input.IfMatch !== object.etag) throw preconditionFailed();
    const match = input.Range ? /^bytes=(\d+)-(\d*)$/.exec(input.Range) : null;
    if (input.Range && !match) throw new Error(`fake S3 does not support Range ${input.Range}`);
    const start = Number(match?.[1] ?? 0);
    const end = match?.[2] ? Number(match[2]) + 1 : object.data.length;
    if (start >= object.data.length) throw new Error("InvalidRange: 416");
    const data = object.data.subarray(start, Math.min(end, object.data.length));
    const record = { key: input.Key ?? "", range: input.Range, bytes: data.length };
    served.push(record);
    options.afterGet?.(record);
    return {
      Body: Readable.from([data]),
      ETag: object.etag,
      VersionId: object.versionId,
      ContentLength: data.length,
    };
  });

  mock.on(PutObjectCommand).callsFake(async (input: PutObjectCommandInput) => {
    const { Bucket = "", Key = "", Body } = input;
    if (!(Body instanceof Uint8Array) && typeof Body !== "string") {
      throw new Error("fake S3 stores byte and string bodies only");
    }
    if (input.IfMatch && current(Bucket, Key)?.etag !== input.IfMatch) throw preconditionFailed();
    const versionId = put(Bucket, Key, Body);
    return {
      ETag: current(Bucket, Key)?.etag,
      VersionId: versioned.has(Bucket) ? versionId : undefined,
    };
  });

  mock.on(DeleteObjectCommand).callsFake(async (input: DeleteObjectCommandInput) => {
    const key = id(input.Bucket, input.Key);
    const history = objects.get(key) ?? [];
    if (input.VersionId) {
      objects.set(
        key,
        history.filter((v) => v.versionId !== input.VersionId),
      );
      return { VersionId: input.VersionId };
    }
    if (!versioned.has(input.Bucket ?? "")) {
      objects.delete(key);
      return {};
    }
    const marker: Version = { versionId: randomUUID(), data: undefined, etag: "" };
    objects.set(key, [...history, marker]);
    return { DeleteMarker: true, VersionId: marker.versionId };
  });

  return {
    client,
    mock,
    served,
    put,
    /** The current bytes of an object, if it has any. */
    bytes: (bucket: string, key: string) => current(bucket, key)?.data,
    /** Every version id of an object, delete markers included, oldest first. */
    versions: (bucket: string, key: string) =>
      (objects.get(id(bucket, key)) ?? []).map((v) => v.versionId),
    /** Keys with a current version, sorted. */
    keys: (bucket: string) =>
      [...objects.keys()]
        .filter((k) => k.startsWith(`${bucket}\u0000`))
        .map((k) => k.slice(bucket.length + 1))
        .filter((key) => current(bucket, key))
        .sort(),
  };
};
