/**
 * Purging installs from the S3 lake (the AWS LakePurger). Every object under the app's
 * partitions of each lake table (`<table>/app_id=<app>/`) is a Parquet file Firehose wrote.
 * Every version of each is looked at, current or not: for each, only the footer and the
 * `service_id` column are read (Range GETs). A current file holding one of the installs is read
 * whole, rewritten without their rows under its own schema (parquet-rewrite.ts), checked, and put
 * back under the same key, conditional on the ETag that was read (If-Match: a file replaced
 * meanwhile fails this purge, which the next run retries); a file holding nothing else is
 * deleted. Either way the version that held the rows is then deleted by its VersionId: the
 * lake bucket is versioned, and a plain overwrite or delete would keep it for the
 * noncurrent-version lifetime (30 days). A noncurrent version that holds an install (a run
 * stopped between putting the rewrite and deleting the old version) is deleted too.
 *
 * All the installs of one app are purged in one pass, and files are read several at once: an
 * app with traffic has thousands of files a month, each a HeadObject and two GETs or more,
 * which one at a time would not fit in the purge function's timeout. The versions of one key
 * are taken in turn (see keysUnder); whole files are held in memory a few at a time only.
 *
 * Firehose's error output (`firehose-errors/<table>/`, records it could not deliver, which
 * `lake replay-errors` puts back) holds records of every app in JSON documents, and is purged
 * the same way: the installs' records are taken out of each version holding them, and a
 * document or an object left with none goes. It is kept for 30 days (lib/lake.ts), which no
 * deletion should wait for.
 *
 * Export snapshots of the app made before the installs' tombstones (Athena result CSVs, their
 * page checkpoint sidecars and Athena's `.metadata` file) are deleted: they may hold their
 * records, and they are a cache the export rebuilds on demand. Their catalog entries stay until
 * they expire, so that a later page of one is refused for its version (start again at offset
 * 0), never sliced from a new snapshot made in its place; a snapshot made since leaves the
 * installs out, and its pages go on.
 *
 * A pass goes over its phases in turn: each lake table's app prefix, then each error prefix, a
 * phase's keys in listing order. A pass whose run is running out of time (its `goOn`) takes no
 * further key, finishes those under way and answers where it stopped: by phase name (never an
 * index, so a table added meanwhile does not shift it) the phases done, and in the one under
 * way the last key up to which every key is done (the keys under way finish out of order). The
 * next run lists that phase from the key after it (ListObjectVersions' KeyMarker alone), skips
 * the phases done, and takes the others whole: an app with more files than one run can read
 * (a year of a busy app's small Firehose files) is purged over several runs, none reading a
 * key again. The snapshots go once the pass is complete.
 *
 * Each step is idempotent, so a run that fails or times out part-way is completed by the next.
 */
import {
  DeleteObjectCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import pLimit from "p-limit";
import {
  errorPrefix,
  INSTALL_TABLES,
  type LakeTable,
  type LakeTableName,
} from "../../lake/lake-tables.ts";
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
  /** Default: every lake table whose rows name an install. */
  readonly tables?: readonly LakeTable<LakeTableName>[];
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

/**
 * Keys looked at at once. Most of a pass is waiting on S3 for small reads (a HeadObject, a
 * footer, a column), each answered on its own: far under S3's request rate for a prefix
 * (thousands a second), and their buffers small beside the function's memory.
 */
export const KEYS_AT_ONCE = 16;

/**
 * Whole objects held at once, each in memory about three times over (read, decoded, written
 * again): a Firehose file is made of one buffer, at most 128 MiB, so two of them stay well
 * within the purge function's 2 GB beside the small reads under way.
 */
const REWRITES_AT_ONCE = 2;

/** `<table>/app_id=<app>/`: the Hive-style prefix Firehose writes the app's files under. */
export const appPrefix = (table: LakeTable, appId: string): string =>
  `${table.name}/app_id=${appId}/`;

/** A value's bytes as a string that compares as the bytes do (latin1 maps each byte to a char). */
const bytesKey = (value: Uint8Array): string =>
  Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("latin1");

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const parsedObject = (line: string): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(line);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
};

/**
 * An error object's text without the app's records of the installs, or undefined when it holds
 * none. Each line is a document whose `rawData` (base64) holds lake records, a JSON object a line
 * (src/lake/error-records.ts); a document left with no record goes. A line or a record that
 * cannot be read is kept as it is, for the replay to name.
 */
const errorTextWithout = (
  text: string,
  installColumn: string,
  appId: string,
  serviceIds: ReadonlySet<string>,
): string | undefined => {
  const purged = (record: string): boolean => {
    const parsed = parsedObject(record);
    const id = parsed?.[installColumn];
    return parsed?.app_id === appId && typeof id === "string" && serviceIds.has(id);
  };
  let removed = false;
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const document = parsedObject(line);
    if (typeof document?.rawData !== "string") {
      lines.push(line);
      continue;
    }
    const records = Buffer.from(document.rawData, "base64")
      .toString("utf8")
      .split("\n")
      .filter((record) => record.trim() !== "");
    const kept = records.filter((record) => !purged(record));
    if (kept.length === records.length) {
      lines.push(line);
      continue;
    }
    removed = true;
    if (kept.length === 0) continue;
    const rawData = Buffer.from(kept.map((record) => `${record}\n`).join(""), "utf8");
    lines.push(JSON.stringify({ ...document, rawData: rawData.toString("base64") }));
  }
  return removed ? lines.map((line) => `${line}\n`).join("") : undefined;
};

/**
 * Runs `work` on each item as the items come, at most `limit` at once, and answers whether it
 * stopped before the items ran out. The first failure stops the taking of items, and so does
 * `goOn` saying no (asked before each item but the first, so a run gets on by one at least);
 * either way those under way end before it returns or throws, so nothing of the pass writes
 * once it has returned (a later run would race it).
 */
const eachAtMost = async <T>(
  items: AsyncIterable<T>,
  limit: number,
  work: (item: T) => Promise<void>,
  goOn?: () => boolean,
): Promise<boolean> => {
  const iterator = items[Symbol.asyncIterator]();
  let failed: { error: unknown } | undefined;
  let taken = 0;
  let stopped = false;
  let exhausted = false;
  const worker = async () => {
    while (!failed && !stopped) {
      try {
        if (goOn && taken > 0 && !goOn()) {
          stopped = true;
          return;
        }
        taken += 1;
        const next = await iterator.next();
        if (next.done) {
          exhausted = true;
          return;
        }
        await work(next.value);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: limit }, worker));
  } finally {
    await iterator.return?.();
  }
  if (failed) throw failed.error;
  return stopped && !exhausted;
};

/**
 * Where a stopped pass stands, by phase name: `true` for a phase done, a key for the one under
 * way (every key of it up to this one done); a phase not named is yet to be taken.
 */
type Position = ReadonlyMap<string, true | string>;

/**
 * A position as the pass answered it. One it cannot read (none, or written otherwise) is the
 * start: a whole pass again costs time, never a file left unpurged.
 */
const readPosition = (text: string | undefined): Position => {
  if (text === undefined) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new Map();
  }
  if (!isObject(parsed)) return new Map();
  const position = new Map<string, true | string>();
  for (const [phase, state] of Object.entries(parsed)) {
    if (state === true || typeof state === "string") position.set(phase, state);
  }
  return position;
};

/** One phase of a pass: a prefix whose keys are purged one way. */
interface Phase {
  /** `app/<table>` or `errors/<table>`: what a position names it by. */
  readonly name: string;
  readonly prefix: string;
  readonly purge: (version: ListedVersion) => Promise<boolean>;
}

export const createS3LakePurger = (options: S3LakePurgerOptions): LakePurger => {
  const { s3, lakeBucket, resultsBucket, snapshots } = options;
  const tables = options.tables ?? INSTALL_TABLES;
  const rewrites = pLimit(REWRITES_AT_ONCE);

  /**
   * Every version of each file under the prefix (after the key `after`, when given), a key at a
   * time: its versions in the order they are purged in, its current one last. An old version is
   * gone before the current one, whose delete would bring the old one back as current meanwhile.
   */
  async function* keysUnder(
    prefix: string,
    after: string | undefined,
  ): AsyncGenerator<{ key: string; versions: ListedVersion[] }> {
    let versions: ListedVersion[] = [];
    let key: string | undefined;
    for await (const version of listVersions(prefix, after)) {
      if (key !== undefined && version.key !== key) {
        yield { key, versions: versions.reverse() };
        versions = [];
      }
      key = version.key;
      versions.push(version);
    }
    if (key !== undefined) yield { key, versions: versions.reverse() };
  }

  /**
   * Every version of every file under the prefix as S3 lists them, a key's newest first; after
   * the key `after` only, when given (a key marker without a version marker starts at the next
   * key).
   */
  async function* listVersions(
    prefix: string,
    after: string | undefined,
  ): AsyncGenerator<ListedVersion> {
    let markers: { KeyMarker?: string; VersionIdMarker?: string } =
      after === undefined ? {} : { KeyMarker: after };
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

  /**
   * The version, the current one read as current: in a bucket that never had versioning it has
   * no version to name.
   */
  const headOf = (listed: ListedVersion) =>
    headObject(s3, lakeBucket, listed.key, listed.latest ? undefined : listed.versionId);

  /**
   * Puts `body` over the current version that was read, if it still is (If-Match), then deletes
   * that version, so that it does not stay as a noncurrent one.
   */
  const replaceVersion = async (
    object: S3ObjectVersion,
    body: Uint8Array | string,
    contentType: string,
  ): Promise<void> => {
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: lakeBucket,
        Key: object.key,
        Body: body,
        ContentType: contentType,
        IfMatch: object.etag,
      }),
    );
    // Without versioning, or with it suspended (both write the "null" version), the overwrite
    // replaced the old bytes, and deleting that version would delete the new object. Otherwise
    // the old version, a "null" one from before versioning was on included, is still there.
    if (put.VersionId === undefined || put.VersionId === object.versionId) return;
    await deleteVersion(object);
  };

  /** Whether the version of a Parquet file held an install (and so was rewritten or deleted). */
  const purgeVersion = async (
    listed: ListedVersion,
    serviceIds: ReadonlySet<string>,
  ): Promise<boolean> => {
    const object = await headOf(listed);
    const where = s3Uri(object);
    const ranged = s3AsyncBuffer(s3, object);
    const metadata = await readMetadata(ranged);
    if (!metadata.schema.some((e) => e.name === SERVICE_ID)) {
      throw new Error(`${where}: no ${SERVICE_ID} column, so not a lake file`);
    }
    const ids = (await readColumns(ranged, metadata, [SERVICE_ID])).get(SERVICE_ID) ?? [];
    const keep = ids.flatMap((id, row) =>
      id instanceof Uint8Array && serviceIds.has(bytesKey(id)) ? [] : [row],
    );
    if (keep.length === ids.length) return false;

    // The other rows of a noncurrent version are in the current one already: it only goes.
    if (listed.latest && keep.length > 0) {
      // Checked before the whole file is fetched: a type that cannot be written back unchanged
      // fails the purge (and keeps the request open) rather than altering the lake.
      assertRewritable(metadata.schema, where);
      await rewrites(async () => {
        const whole = memoryAsyncBuffer(await readRange(s3, object));
        const columns = await readColumns(whole, metadata);
        const bytes = await writeParquet(layoutOf(metadata), columns, keep);
        await verifyRewrite(bytes, metadata, columns, keep, where);
        await replaceVersion(object, bytes, "application/octet-stream");
      });
      return true;
    }
    await deleteVersion(object);
    return true;
  };

  /** Whether the version of an error object held an install's record (and so was changed). */
  const purgeErrorVersion = (
    listed: ListedVersion,
    installColumn: string,
    appId: string,
    serviceIds: ReadonlySet<string>,
  ): Promise<boolean> =>
    // Read whole: a JSON document holds records of any app and install.
    rewrites(async () => {
      const object = await headOf(listed);
      const text = Buffer.from(await readRange(s3, object)).toString("utf8");
      const left = errorTextWithout(text, installColumn, appId, serviceIds);
      if (left === undefined) return false;
      // A noncurrent version's other records were put back or are in the current one already.
      if (listed.latest && left !== "") await replaceVersion(object, left, "application/json");
      else await deleteVersion(object);
      return true;
    });

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
    async purgeInstalls(appId, serviceIds, cleanFrom, pass) {
      if (serviceIds.length === 0) return { filesRewritten: 0 };
      const ids = new Set(serviceIds);
      const idBytes = new Set(serviceIds.map((id) => bytesKey(Buffer.from(id, "utf8"))));
      const phases: Phase[] = [
        ...tables.map((table) => ({
          name: `app/${table.name}`,
          prefix: appPrefix(table, appId),
          purge: (version: ListedVersion) => purgeVersion(version, idBytes),
        })),
        ...tables.flatMap((table) => {
          const column = table.installColumn;
          if (column === null) return [];
          return [
            {
              name: `errors/${table.name}`,
              prefix: errorPrefix(table.name),
              purge: (version: ListedVersion) => purgeErrorVersion(version, column, appId, ids),
            },
          ];
        }),
      ];
      const from = readPosition(pass?.from);

      /** A key of the pass: its place in this run's listing order, and its phase's. */
      interface Taken {
        readonly order: number;
        readonly phase: number;
        readonly key: string;
      }
      async function* work(): AsyncGenerator<{
        taken: Taken;
        versions: ListedVersion[];
        purge: Phase["purge"];
      }> {
        let order = 0;
        for (const [index, { name, prefix, purge }] of phases.entries()) {
          const state = from.get(name);
          if (state === true) continue;
          for await (const { key, versions } of keysUnder(prefix, state)) {
            yield { taken: { order, phase: index, key }, versions, purge };
            order += 1;
          }
        }
      }
      // The last key up to which every key taken is done, and those done beyond it.
      let doneUpTo: Taken | undefined;
      const doneBeyond = new Map<number, Taken>();
      const done = (taken: Taken) => {
        doneBeyond.set(taken.order, taken);
        for (;;) {
          const next = doneBeyond.get((doneUpTo?.order ?? -1) + 1);
          if (!next) return;
          doneBeyond.delete(next.order);
          doneUpTo = next;
        }
      };

      let filesRewritten = 0;
      const stopped = await eachAtMost(
        work(),
        KEYS_AT_ONCE,
        async ({ taken, versions, purge }) => {
          for (const version of versions) if (await purge(version)) filesRewritten += 1;
          done(taken);
        },
        pass?.goOn,
      );
      if (stopped) {
        const position = new Map<string, true | string>();
        for (const [index, { name }] of phases.entries()) {
          // The phases before the one under way were listed to their end, and are done.
          const state =
            doneUpTo === undefined
              ? from.get(name)
              : index < doneUpTo.phase
                ? true
                : index === doneUpTo.phase
                  ? doneUpTo.key
                  : from.get(name);
          if (state !== undefined) position.set(name, state);
        }
        return { filesRewritten, stoppedAt: JSON.stringify(Object.fromEntries(position)) };
      }
      await purgeSnapshots(appId, cleanFrom);
      return { filesRewritten };
    },
  };
};
