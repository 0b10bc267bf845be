/**
 * Purging an install from the S3 lake (the AWS LakePurger). Every object under the app's
 * partitions of each lake table (`<table>/app_id=<app>/`) is a Parquet file Firehose wrote.
 * Every version of each is looked at, current or not: for each, only the footer and the
 * `service_id` column are read (Range GETs). A current file holding the install is read whole,
 * rewritten without its rows under its own schema (parquet-rewrite.ts), checked, and put back
 * under the same key, conditional on the ETag that was read (If-Match: a file replaced
 * meanwhile fails this purge, which the next run retries); a file holding nothing else is
 * deleted. Either way the version that held the rows is then deleted by its VersionId: the
 * lake bucket is versioned, and a plain overwrite or delete would keep it for the
 * noncurrent-version lifetime (30 days). A noncurrent version that holds the install (a run
 * stopped between putting the rewrite and deleting the old version) is deleted too.
 *
 * Export snapshots of the app made before the install's tombstone (Athena result CSVs, their
 * page checkpoint sidecars and Athena's `.metadata` file) are deleted: they may hold its
 * records, and they are a cache the export rebuilds on demand. Their catalog entries stay until
 * they expire, so that a later page of one is refused for its version (start again at offset
 * 0), never sliced from a new snapshot made in its place; a snapshot made since leaves the
 * install out, and its pages go on.
 *
 * Each step is idempotent, so a run that fails or times out part-way is completed by the next.
 */
import {
  DeleteObjectCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { INSTALL_TABLES, type LakeTable } from "../../lake/lake-tables.ts";
import type { AppSnapshots, LakePurger } from "../../ports/lake.ts";
import { sidecarOf } from "../athena/page-checkpoints.ts";
import { parseS3Uri } from "../athena/s3-object.ts";
import {
  assertRewritable,
  layoutOf,
  readColumns,
  readMetadata,
  verifyRewrite,
  writeParquet,
} from "./parquet-rewrite.ts";
import {
  headObject,
  memoryAsyncBuffer,
  readRange,
  type S3ObjectVersion,
  s3AsyncBuffer,
  s3Uri,
} from "./s3-buffer.ts";

export interface S3LakePurgerOptions {
  readonly s3: S3Client;
  readonly lakeBucket: string;
  readonly resultsBucket: string;
  readonly snapshots: AppSnapshots;
  /** Default: every lake table. */
  readonly tables?: readonly LakeTable[];
}

/** One version of a lake file, as ListObjectVersions names it. */
interface ListedVersion {
  readonly key: string;
  /** "null" in a bucket that never had versioning. */
  readonly versionId: string | undefined;
  readonly latest: boolean;
}

/** The column every lake table keys its rows by install with. */
const SERVICE_ID = "service_id";

/** `<table>/app_id=<app>/`: the Hive-style prefix Firehose writes the app's files under. */
export const appPrefix = (table: LakeTable, appId: string): string =>
  `${table.name}/app_id=${appId}/`;

const sameBytes = (value: unknown, target: Buffer): boolean =>
  value instanceof Uint8Array &&
  value.byteLength === target.byteLength &&
  target.equals(Buffer.from(value.buffer, value.byteOffset, value.byteLength));

export const createS3LakePurger = (options: S3LakePurgerOptions): LakePurger => {
  const { s3, lakeBucket, resultsBucket, snapshots } = options;
  const tables = options.tables ?? INSTALL_TABLES;

  /**
   * Every version of every file under the prefix, a key's versions together and its current
   * one last: an old version is gone before the current one, whose delete would bring the old
   * one back as current meanwhile.
   */
  async function* versionsUnder(prefix: string): AsyncGenerator<ListedVersion> {
    let key: string | undefined;
    let versions: ListedVersion[] = [];
    for await (const version of listVersions(prefix)) {
      if (version.key !== key) {
        yield* versions.reverse();
        key = version.key;
        versions = [];
      }
      versions.push(version);
    }
    yield* versions.reverse();
  }

  /** Every version of every file under the prefix as S3 lists them: a key's newest first. */
  async function* listVersions(prefix: string): AsyncGenerator<ListedVersion> {
    let markers: { KeyMarker?: string; VersionIdMarker?: string } = {};
    for (;;) {
      const page = await s3.send(
        new ListObjectVersionsCommand({ Bucket: lakeBucket, Prefix: prefix, ...markers }),
      );
      for (const version of page.Versions ?? []) {
        // A zero-byte `…/` key is a folder placeholder (a console upload), not a file.
        if (version.Key && !version.Key.endsWith("/")) {
          yield {
            key: version.Key,
            versionId: version.VersionId,
            latest: version.IsLatest ?? false,
          };
        }
      }
      if (!page.IsTruncated) return;
      if (!page.NextKeyMarker) throw new Error(`Listing ${prefix}: truncated with no next marker`);
      markers = { KeyMarker: page.NextKeyMarker, VersionIdMarker: page.NextVersionIdMarker };
    }
  }

  /** Deletes exactly the version that was read (in an unversioned bucket, the object). */
  const deleteVersion = async (object: S3ObjectVersion): Promise<void> => {
    await s3.send(
      new DeleteObjectCommand({
        Bucket: object.bucket,
        Key: object.key,
        VersionId: object.versionId,
      }),
    );
  };

  /** Whether the version held the install (and so was rewritten or deleted). */
  const purgeVersion = async (listed: ListedVersion, serviceId: Buffer): Promise<boolean> => {
    // The current version is read as current: in a bucket that never had versioning, it has
    // no version to name.
    const object = await headObject(
      s3,
      lakeBucket,
      listed.key,
      listed.latest ? undefined : listed.versionId,
    );
    const where = s3Uri(object);
    const ranged = s3AsyncBuffer(s3, object);
    const metadata = await readMetadata(ranged);
    if (!metadata.schema.some((e) => e.name === SERVICE_ID)) {
      throw new Error(`${where}: no ${SERVICE_ID} column, so not a lake file`);
    }
    const ids = (await readColumns(ranged, metadata, [SERVICE_ID])).get(SERVICE_ID) ?? [];
    const keep = ids.flatMap((id, row) => (sameBytes(id, serviceId) ? [] : [row]));
    if (keep.length === ids.length) return false;

    // The other rows of a noncurrent version are in the current one already: it only goes.
    if (listed.latest && keep.length > 0) {
      // Checked before the whole file is fetched: a type that cannot be written back unchanged
      // fails the purge (and keeps the request open) rather than altering the lake.
      assertRewritable(metadata.schema, where);
      const whole = memoryAsyncBuffer(await readRange(s3, object));
      const columns = await readColumns(whole, metadata);
      const bytes = await writeParquet(layoutOf(metadata), columns, keep);
      await verifyRewrite(bytes, metadata, columns, keep, where);
      const put = await s3.send(
        new PutObjectCommand({
          Bucket: lakeBucket,
          Key: object.key,
          Body: bytes,
          ContentType: "application/octet-stream",
          IfMatch: object.etag,
        }),
      );
      // Without versioning, or with it suspended (both write the "null" version), the overwrite
      // replaced the old bytes, and deleting that version would delete the new file. Otherwise
      // the old version, a "null" one from before versioning was on included, is still there.
      if (put.VersionId === undefined || put.VersionId === object.versionId) return true;
    }
    await deleteVersion(object);
    return true;
  };

  const purgeSnapshots = async (appId: string, cleanFrom: number): Promise<void> => {
    for (const snapshot of await snapshots.listByApp(appId)) {
      if (snapshot.tombstoneVersion >= cleanFrom) continue;
      const result = parseS3Uri(snapshot.location);
      if (result.bucket !== resultsBucket) {
        throw new Error(
          `Snapshot ${snapshot.snapshotId} is outside ${resultsBucket}: ${snapshot.location}`,
        );
      }
      const keys = [result.key, sidecarOf(result).key, `${result.key}.metadata`];
      for (const key of keys) {
        await s3.send(new DeleteObjectCommand({ Bucket: resultsBucket, Key: key }));
      }
    }
  };

  return {
    async purgeInstall(appId, serviceId, cleanFrom) {
      const id = Buffer.from(serviceId, "utf8");
      let filesRewritten = 0;
      for (const table of tables) {
        for await (const version of versionsUnder(appPrefix(table, appId))) {
          if (await purgeVersion(version, id)) filesRewritten += 1;
        }
      }
      await purgeSnapshots(appId, cleanFrom);
      return { filesRewritten };
    },
  };
};
