/**
 * The S3 lake purge against an in-memory versioned S3, with real Parquet: Firehose-like files
 * (INT96 timestamps, as Hive writes them, and INT64 micros) are rewritten and read back with
 * hyparquet and DuckDB.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { parquetWriteBuffer } from "hyparquet-writer";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lakeEvent } from "../../../test/support/records.ts";
import { readErrorObject } from "../../lake/error-records.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  errorPrefix,
  type LakeTable,
  SESSIONS_TABLE,
} from "../../lake/lake-tables.ts";
import type { AppSnapshots, SnapshotRef } from "../../ports/lake.ts";
import {
  duckdbRows,
  HIVE_KV,
  type LakeRow,
  lakeFile,
  lakeRows,
  readLakeFile,
  type TimestampEncoding,
} from "./lake-files.test-support.ts";
import { UnsupportedParquetError } from "./parquet-rewrite.ts";
import { createS3LakePurger, KEYS_AT_ONCE, type S3LakePurgerOptions } from "./purge.ts";
import { createVersionedS3, type ServedRange } from "./versioned-s3.test-support.ts";

const LAKE = "lake-bucket";
const RESULTS = "results-bucket";
const APP = "com.example.app";
const GONE = "install-gone";

const eventsKey = (app: string, day: string, n: number) =>
  `events/app_id=${app}/dt=2026-11-${day}/events-1-2026-11-${day}-10-00-0${n}-0f1e2d3c`;
const attributionsKey = (app: string) =>
  `attributions/app_id=${app}/dt=2026-11-01/attributions-1-2026-11-01-10-00-00-9a8b7c6d`;

const memorySnapshots = (refs: SnapshotRef[]): AppSnapshots & { refs: SnapshotRef[] } => {
  const store = {
    refs,
    listByApp: async (appId: string) => store.refs.filter((r) => r.appId === appId),
    delete: async (ref: SnapshotRef) => {
      store.refs = store.refs.filter((r) => r.snapshotId !== ref.snapshotId);
    },
  };
  return store;
};

/** The app's tombstones' version once the install is among them: older snapshots may hold it. */
const CLEAN_FROM = 1;

const snapshotRef = (appId: string, queryId: string): SnapshotRef => ({
  appId,
  since: 1_790_000_000,
  snapshotId: `snap-${queryId}`,
  location: `s3://${RESULTS}/athena/${queryId}.csv`,
  createdAt: 1,
  tombstoneVersion: 0,
  expiresAt: 2,
});

/** Rows whose install is `GONE` every fourth row, the rest spread over three others. */
const mixedIds = (count: number) =>
  Array.from({ length: count }, (_, i) => (i % 4 === 1 ? GONE : `install-${i % 3}`));

const putCallsFor = (fake: ReturnType<typeof createVersionedS3>, key: string) =>
  fake.mock.commandCalls(PutObjectCommand).filter((c) => c.args[0].input.Key === key);

describe.each(["INT96", "INT64"] as const)("S3 lake purge, %s timestamps", (timestamps) => {
  let fake: ReturnType<typeof createVersionedS3>;
  let snapshots: ReturnType<typeof memorySnapshots>;
  let files: Record<string, { bytes: Uint8Array; rows: LakeRow[]; version: string }>;

  const seed = async (key: string, rows: LakeRow[], rowGroupSize: number) => {
    const table = key.startsWith("events/") ? EVENTS_TABLE : ATTRIBUTIONS_TABLE;
    const bytes = await lakeFile(table, rows, timestamps as TimestampEncoding, rowGroupSize);
    files[key] = { bytes, rows, version: fake.put(LAKE, key, bytes) };
  };

  beforeEach(async () => {
    // Two keys per listing page, so every prefix is listed over several pages.
    fake = createVersionedS3({ versioned: [LAKE], pageSize: 2 });
    files = {};
    // Holds the install among others, over three row groups, with nulls in every column.
    await seed(eventsKey(APP, "01", 1), lakeRows(EVENTS_TABLE, mixedIds(25), timestamps), 10);
    // Does not hold it.
    await seed(eventsKey(APP, "01", 2), lakeRows(EVENTS_TABLE, ["a", "b", "c"], timestamps), 2);
    await seed(eventsKey(APP, "02", 1), lakeRows(EVENTS_TABLE, ["d"], timestamps, 40), 5);
    // Holds nothing but the install.
    await seed(attributionsKey(APP), lakeRows(ATTRIBUTIONS_TABLE, [GONE, GONE], timestamps), 5);
    // Another app whose install has the same id, and an app whose id starts like APP's.
    await seed(eventsKey("com.other", "01", 1), lakeRows(EVENTS_TABLE, [GONE, "x"], timestamps), 5);
    await seed(eventsKey(`${APP}.beta`, "01", 1), lakeRows(EVENTS_TABLE, [GONE], timestamps), 5);
    fake.put(RESULTS, "athena/q1.csv", '"event_id"\n"e1"\n');
    fake.put(RESULTS, "athena/q1.csv.pages.json", "{}");
    fake.put(RESULTS, "athena/q1.csv.metadata", "meta");
    fake.put(RESULTS, "athena/q2.csv", '"event_id"\n');
    fake.put(RESULTS, "athena/q3.csv", '"event_id"\n"e9"\n');
    snapshots = memorySnapshots([
      snapshotRef(APP, "q1"),
      snapshotRef(APP, "q2"),
      snapshotRef("com.other", "q3"),
    ]);
  });

  const purge = () =>
    createS3LakePurger({
      s3: fake.client,
      lakeBucket: LAKE,
      resultsBucket: RESULTS,
      snapshots,
    }).purgeInstalls(APP, [GONE], CLEAN_FROM);

  it("rewrites a file holding the install with every other row, its schema and metadata", async () => {
    const key = eventsKey(APP, "01", 1);
    const { filesRewritten } = await purge();
    expect(filesRewritten).toBe(2);

    const rewritten = fake.bytes(LAKE, key);
    if (!rewritten) throw new Error("the file is gone");
    const before = await readLakeFile(files[key]?.bytes ?? new Uint8Array());
    const after = await readLakeFile(rewritten);
    const kept = before.rows.filter((row) => row.service_id !== GONE);
    expect(kept.length).toBeGreaterThan(0);
    expect(after.rows).toEqual(kept);
    expect(after.metadata.schema).toEqual(before.metadata.schema);
    expect(after.metadata.schema.find((e) => e.name === "event_time")?.type).toBe(timestamps);
    expect(after.metadata.key_value_metadata).toEqual(HIVE_KV);
    expect(after.metadata.row_groups.map((g) => g.num_rows)).toEqual([10n, 9n]);
    // Put once, conditional on the version that was read, which is then deleted by id.
    const [put] = putCallsFor(fake, key);
    expect(put?.args[0].input.IfMatch).toMatch(/^"[0-9a-f]{32}"$/);
    expect(fake.versions(LAKE, key)).toHaveLength(1);
    expect(fake.versions(LAKE, key)).not.toContain(files[key]?.version);
  });

  it("writes a file DuckDB reads as the same typed rows, minus the install's", async () => {
    const key = eventsKey(APP, "01", 1);
    await purge();
    const rewritten = fake.bytes(LAKE, key) ?? new Uint8Array();
    const micros = (rows: LakeRow[]) =>
      rows.map((r) => [
        r.event_id,
        typeof r.event_time === "bigint" ? r.event_time / 1000n : null,
        r.revenue,
      ]);
    const query = `SELECT event_id, epoch_us(event_time), revenue FROM $file`;
    // The input first: DuckDB reading the expected instants checks how it was encoded too.
    const original = files[key]?.rows ?? [];
    expect(await duckdbRows(files[key]?.bytes ?? new Uint8Array(), query)).toEqual(
      micros(original),
    );
    expect(await duckdbRows(rewritten, query)).toEqual(
      micros(original.filter((r) => r.service_id !== GONE)),
    );
    const types = await duckdbRows(
      rewritten,
      `SELECT name, type, converted_type, repetition_type FROM parquet_schema($path)
       WHERE name IN ('service_id', 'event_time', 'revenue')`,
    );
    expect(types).toEqual([
      ["event_time", timestamps, timestamps === "INT96" ? null : "TIMESTAMP_MICROS", "OPTIONAL"],
      ["service_id", "BYTE_ARRAY", "UTF8", "OPTIONAL"],
      ["revenue", "DOUBLE", null, "OPTIONAL"],
    ]);
    expect(
      await duckdbRows(rewritten, `SELECT count(*) FROM $file WHERE service_id = '${GONE}'`),
    ).toEqual([[0n]]);
  });

  it("deletes a file holding nothing but the install, leaving no version or marker", async () => {
    const key = attributionsKey(APP);
    await purge();
    expect(fake.keys(LAKE)).not.toContain(key);
    expect(fake.versions(LAKE, key)).toEqual([]);
    expect(putCallsFor(fake, key)).toEqual([]);
  });

  it("leaves other files untouched", async () => {
    await purge();
    for (const key of [eventsKey(APP, "01", 2), eventsKey(APP, "02", 1)]) {
      expect(fake.versions(LAKE, key)).toEqual([files[key]?.version]);
      expect(putCallsFor(fake, key)).toEqual([]);
      expect(fake.served.some((s) => s.key === key)).toBe(true);
    }
    // Other apps' partitions are not even listed into.
    for (const key of [eventsKey("com.other", "01", 1), eventsKey(`${APP}.beta`, "01", 1)]) {
      expect(fake.versions(LAKE, key)).toEqual([files[key]?.version]);
      expect(fake.served.some((s) => s.key === key)).toBe(false);
    }
  });

  it("deletes the app's snapshots made before the tombstone and their sidecars, and no other app's; their entries stay to refuse their pages", async () => {
    await purge();
    expect(fake.keys(RESULTS)).toEqual(["athena/q3.csv"]);
    expect(snapshots.refs.map((r) => r.snapshotId)).toEqual(["snap-q1", "snap-q2", "snap-q3"]);
    const deleted = fake.mock
      .commandCalls(DeleteObjectCommand)
      .map((c) => c.args[0].input)
      .filter((input) => input.Bucket === RESULTS)
      .map((input) => input.Key);
    expect(deleted).toEqual([
      "athena/q1.csv",
      "athena/q1.csv.pages.json",
      "athena/q1.csv.metadata",
      "athena/q2.csv",
      "athena/q2.csv.pages.json",
      "athena/q2.csv.metadata",
    ]);
  });

  it("reads a large file without the install only in part: its footer and service ids", async () => {
    const key = eventsKey(APP, "03", 1);
    const rows = lakeRows(
      EVENTS_TABLE,
      mixedIds(3000).map((id) => `${id}-kept`),
      timestamps,
    );
    // Incompressible parameters make the file a few megabytes, mostly not service ids.
    for (const row of rows) row.parameters = randomBytes(600).toString("hex");
    await seed(key, rows, 1000);
    const size = files[key]?.bytes.byteLength ?? 0;
    expect(size).toBeGreaterThan(3_000_000);
    await purge();
    const read = fake.served.filter((s) => s.key === key);
    expect(read.every((s) => s.range !== undefined)).toBe(true);
    expect(read.reduce((sum, s) => sum + s.bytes, 0)).toBeLessThan(size / 4);
    expect(fake.versions(LAKE, key)).toEqual([files[key]?.version]);
  });

  it("deletes an old version a stopped run left behind after putting its rewrite", async () => {
    const key = eventsKey(APP, "04", 1);
    const rows = lakeRows(EVENTS_TABLE, [GONE, "kept"], timestamps);
    await seed(key, rows, 5);
    const old = files[key]?.version;
    // What the run had put before it stopped: the file without the install, now current.
    const rewrite = await lakeFile(
      EVENTS_TABLE,
      rows.filter((r) => r.service_id !== GONE),
      timestamps as TimestampEncoding,
      5,
    );
    const current = fake.put(LAKE, key, rewrite);
    expect(fake.versions(LAKE, key)).toEqual([old, current]);
    await purge();
    expect(fake.versions(LAKE, key)).toEqual([current]);
    expect(putCallsFor(fake, key)).toEqual([]);
  });

  it("does nothing more when run again (a retried request)", async () => {
    await purge();
    const puts = fake.mock.commandCalls(PutObjectCommand).length;
    expect(await purge()).toEqual({ filesRewritten: 0 });
    expect(fake.mock.commandCalls(PutObjectCommand)).toHaveLength(puts);
  });
});

describe("S3 lake purge, failing loudly", () => {
  const purger = (fake: ReturnType<typeof createVersionedS3>, refs: SnapshotRef[] = []) =>
    createS3LakePurger({
      s3: fake.client,
      lakeBucket: LAKE,
      resultsBucket: RESULTS,
      snapshots: memorySnapshots(refs),
    });

  const decimalFile = (serviceIds: string[]) =>
    new Uint8Array(
      parquetWriteBuffer({
        columnData: [
          { name: "service_id", data: serviceIds },
          { name: "price", data: serviceIds.map((_, i) => i + 0.5) },
        ],
        schema: [
          { name: "hive_schema", num_children: 2 },
          {
            name: "service_id",
            type: "BYTE_ARRAY",
            converted_type: "UTF8",
            repetition_type: "OPTIONAL",
          },
          {
            name: "price",
            type: "INT32",
            converted_type: "DECIMAL",
            scale: 2,
            precision: 9,
            repetition_type: "OPTIONAL",
          },
        ],
      }),
    );

  it("refuses to rewrite a type it cannot write back unchanged, and changes nothing", async () => {
    const fake = createVersionedS3({ versioned: [LAKE] });
    const key = eventsKey(APP, "01", 1);
    const version = fake.put(LAKE, key, decimalFile(["a", GONE]));
    await expect(purger(fake).purgeInstalls(APP, [GONE], CLEAN_FROM)).rejects.toThrow(
      UnsupportedParquetError,
    );
    await expect(purger(fake).purgeInstalls(APP, [GONE], CLEAN_FROM)).rejects.toThrow(
      /cannot rewrite it unchanged: column price is OPTIONAL INT32 DECIMAL/,
    );
    expect(fake.versions(LAKE, key)).toEqual([version]);
    expect(fake.mock.commandCalls(PutObjectCommand)).toEqual([]);
    expect(fake.mock.commandCalls(DeleteObjectCommand)).toEqual([]);
    // Such a file is fine as long as it does not hold the install.
    await expect(purger(fake).purgeInstalls(APP, ["someone-else"], CLEAN_FROM)).resolves.toEqual({
      filesRewritten: 0,
    });
  });

  it("fails, deleting nothing, when the file is replaced while it is rewritten", async () => {
    let replaced = false;
    const key = eventsKey(APP, "01", 1);
    const onGet = (served: ServedRange) => {
      // Right after the whole file is read: a concurrent writer puts a new version.
      if (served.key === key && served.range === undefined && !replaced) {
        replaced = true;
        fake.put(LAKE, key, decimalFile(["late"]));
      }
    };
    const fake = createVersionedS3({ versioned: [LAKE], afterGet: onGet });
    const rows = lakeRows(EVENTS_TABLE, [GONE, "a"], "INT96");
    const first = fake.put(LAKE, key, await lakeFile(EVENTS_TABLE, rows, "INT96", 5));
    await expect(purger(fake).purgeInstalls(APP, [GONE], CLEAN_FROM)).rejects.toThrow(
      /pre-conditions/,
    );
    expect(fake.versions(LAKE, key)).toHaveLength(2);
    expect(fake.versions(LAKE, key)[0]).toBe(first);
  });

  it("purges nothing for no installs", async () => {
    const fake = createVersionedS3({ versioned: [LAKE] });
    const key = eventsKey(APP, "01", 1);
    fake.put(
      LAKE,
      key,
      await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, [GONE], "INT96"), "INT96", 5),
    );
    fake.put(RESULTS, "athena/q1.csv", '"event_id"\n');
    await expect(
      purger(fake, [snapshotRef(APP, "q1")]).purgeInstalls(APP, [], CLEAN_FROM),
    ).resolves.toEqual({ filesRewritten: 0 });
    expect(fake.mock.commandCalls(ListObjectVersionsCommand)).toEqual([]);
    expect(fake.keys(RESULTS)).toEqual(["athena/q1.csv"]);
  });

  it("passes over a folder's placeholder, which is no file", async () => {
    const fake = createVersionedS3({ versioned: [LAKE] });
    fake.put(LAKE, `events/app_id=${APP}/`, "");
    fake.put(LAKE, `events/app_id=${APP}/dt=2026-11-01/`, "");
    const key = eventsKey(APP, "01", 1);
    fake.put(
      LAKE,
      key,
      await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, [GONE, "a"], "INT96"), "INT96", 5),
    );
    await expect(purger(fake).purgeInstalls(APP, [GONE], CLEAN_FROM)).resolves.toEqual({
      filesRewritten: 1,
    });
  });

  it("deletes a file's old versions before its current one, which would bring one back meanwhile", async () => {
    const fake = createVersionedS3({ versioned: [LAKE] });
    const key = eventsKey(APP, "01", 1);
    const file = await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, [GONE], "INT96"), "INT96", 5);
    const oldest = fake.put(LAKE, key, file);
    const older = fake.put(LAKE, key, file);
    const current = fake.put(LAKE, key, file);
    // A key listed after it: its versions are not the last the listing gives.
    fake.put(LAKE, eventsKey(APP, "01", 2), file);
    await purger(fake).purgeInstalls(APP, [GONE], CLEAN_FROM);
    const deleted = fake.mock
      .commandCalls(DeleteObjectCommand)
      .filter((call) => call.args[0].input.Key === key)
      .map((call) => call.args[0].input.VersionId);
    expect(deleted).toEqual([oldest, older, current]);
    expect(fake.versions(LAKE, key)).toEqual([]);
  });

  it("rewrites in place in a bucket that never had versioning, deleting nothing else", async () => {
    const fake = createVersionedS3({ versioned: [] });
    const key = eventsKey(APP, "01", 1);
    const other = eventsKey(APP, "01", 2);
    fake.put(
      LAKE,
      key,
      await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, [GONE, "a"], "INT96"), "INT96", 5),
    );
    fake.put(
      LAKE,
      other,
      await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, [GONE], "INT96"), "INT96", 5),
    );
    await expect(purger(fake).purgeInstalls(APP, [GONE], CLEAN_FROM)).resolves.toEqual({
      filesRewritten: 2,
    });
    const after = await readLakeFile(fake.bytes(LAKE, key) ?? new Uint8Array());
    expect(after.rows.map((r) => r.service_id)).toEqual(["a"]);
    expect(fake.keys(LAKE)).toEqual([key]);
    // No request names a version: the bucket has none to name.
    const named = [
      ...fake.mock.commandCalls(HeadObjectCommand),
      ...fake.mock.commandCalls(GetObjectCommand),
    ].filter((c) => c.args[0].input.VersionId !== undefined);
    expect(named).toEqual([]);
  });

  it("purges files stored before versioning was turned on (the null version)", async () => {
    const fake = createVersionedS3({ versioned: [LAKE] });
    const file = (ids: string[]) =>
      lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, ids, "INT96"), "INT96", 5);
    // Current and holding the install: rewritten as a new version, the null one deleted.
    const current = eventsKey(APP, "01", 1);
    fake.put(LAKE, current, await file([GONE, "a"]), "null");
    // Rewritten before, its null version still holding the install: that version goes.
    const old = eventsKey(APP, "01", 2);
    fake.put(LAKE, old, await file([GONE, "b"]), "null");
    const rewritten = fake.put(LAKE, old, await file(["b"]));
    await purger(fake).purgeInstalls(APP, [GONE], CLEAN_FROM);
    expect(fake.versions(LAKE, current)).toHaveLength(1);
    expect(fake.versions(LAKE, current)).not.toContain("null");
    const after = await readLakeFile(fake.bytes(LAKE, current) ?? new Uint8Array());
    expect(after.rows.map((r) => r.service_id)).toEqual(["a"]);
    expect(fake.versions(LAKE, old)).toEqual([rewritten]);
  });

  it("keeps a snapshot made since the install's tombstone, which leaves it out, whole", async () => {
    const fake = createVersionedS3({ versioned: [LAKE] });
    fake.put(RESULTS, "athena/q9.csv", new Uint8Array([1]));
    const since = { ...snapshotRef(APP, "q9"), tombstoneVersion: CLEAN_FROM };
    const refs = [since];
    await purger(fake, refs).purgeInstalls(APP, [GONE], CLEAN_FROM);
    expect(fake.keys(RESULTS)).toEqual(["athena/q9.csv"]);
    expect(fake.mock.commandCalls(DeleteObjectCommand)).toEqual([]);
  });

  it("refuses to delete a snapshot outside the results bucket", async () => {
    const fake = createVersionedS3({ versioned: [LAKE] });
    const stray = { ...snapshotRef(APP, "q1"), location: "s3://elsewhere/athena/q1.csv" };
    await expect(purger(fake, [stray]).purgeInstalls(APP, [GONE], CLEAN_FROM)).rejects.toThrow(
      /outside results-bucket/,
    );
    expect(fake.mock.commandCalls(DeleteObjectCommand)).toEqual([]);
  });
});

describe("S3 lake purge of an app with many files and several installs", () => {
  const OTHER = "install-other";
  const purger = (s3: S3Client) =>
    createS3LakePurger({
      s3,
      lakeBucket: LAKE,
      resultsBucket: RESULTS,
      snapshots: memorySnapshots([]),
    });

  /** The client, each call answered after `ms`, counting the calls under way at once. */
  const withLatency = (client: S3Client, ms: number) => {
    const calls = { now: 0, most: 0 };
    const send = async (command: Parameters<S3Client["send"]>[0]) => {
      calls.now += 1;
      calls.most = Math.max(calls.most, calls.now);
      try {
        await sleep(ms);
        return await client.send(command);
      } finally {
        calls.now -= 1;
      }
    };
    return { s3: { send } as unknown as S3Client, calls };
  };

  const idsIn = async (fake: ReturnType<typeof createVersionedS3>, key: string) =>
    (await readLakeFile(fake.bytes(LAKE, key) ?? new Uint8Array())).rows.map((r) => r.service_id);

  it("reads several files at once, no more than its bound, and purges each", async () => {
    const fake = createVersionedS3({ versioned: [LAKE], pageSize: 10 });
    const keys: string[] = [];
    for (let day = 1; day <= 10; day++) {
      for (let n = 1; n <= 4; n++) {
        const key = eventsKey(APP, String(day).padStart(2, "0"), n);
        const ids = n % 2 === 0 ? [GONE, `kept-${n}`] : [`kept-${n}`];
        fake.put(
          LAKE,
          key,
          await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, ids, "INT96"), "INT96", 5),
        );
        keys.push(key);
      }
    }
    const { s3, calls } = withLatency(fake.client, 5);
    expect(await purger(s3).purgeInstalls(APP, [GONE], CLEAN_FROM)).toEqual({
      filesRewritten: 20,
    });
    expect(calls.most).toBeGreaterThan(1);
    expect(calls.most).toBeLessThanOrEqual(KEYS_AT_ONCE);
    for (const key of keys) {
      expect(await idsIn(fake, key)).not.toContain(GONE);
      expect(fake.versions(LAKE, key)).toHaveLength(1);
    }
  });

  it("purges several installs of the app in one pass: each prefix listed once", async () => {
    const fake = createVersionedS3({ versioned: [LAKE], pageSize: 2 });
    const file = (ids: string[]) =>
      lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, ids, "INT96"), "INT96", 5);
    fake.put(LAKE, eventsKey(APP, "01", 1), await file([GONE, "a", OTHER]));
    fake.put(LAKE, eventsKey(APP, "01", 2), await file([OTHER]));
    fake.put(LAKE, eventsKey(APP, "02", 1), await file(["b", GONE]));
    fake.put(LAKE, eventsKey(APP, "02", 2), await file(["c"]));
    const attributions = attributionsKey(APP);
    fake.put(
      LAKE,
      attributions,
      await lakeFile(
        ATTRIBUTIONS_TABLE,
        lakeRows(ATTRIBUTIONS_TABLE, [OTHER, "d"], "INT96"),
        "INT96",
        5,
      ),
    );

    expect(await purger(fake.client).purgeInstalls(APP, [GONE, OTHER], CLEAN_FROM)).toEqual({
      filesRewritten: 4,
    });
    expect(await idsIn(fake, eventsKey(APP, "01", 1))).toEqual(["a"]);
    expect(fake.keys(LAKE)).not.toContain(eventsKey(APP, "01", 2));
    expect(await idsIn(fake, eventsKey(APP, "02", 1))).toEqual(["b"]);
    expect(await idsIn(fake, attributions)).toEqual(["d"]);
    // A listing starts once a prefix (its later pages go on from a marker).
    const started = fake.mock
      .commandCalls(ListObjectVersionsCommand)
      .map((c) => c.args[0].input)
      .filter((input) => input.KeyMarker === undefined)
      .map((input) => input.Prefix);
    expect(started.length).toBeGreaterThan(0);
    expect(new Set(started).size).toBe(started.length);
    expect(started).toContain(`events/app_id=${APP}/`);
  });

  describe("Firehose's error output", () => {
    const errorKey = (name: string) =>
      `${errorPrefix("events")}format-conversion-failed/2026-11-20/${name}`;
    const document = (records: object[]) =>
      JSON.stringify({
        attemptsMade: 1,
        errorCode: "DataFormatConversion.MalformedData",
        rawData: Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join("")).toString(
          "base64",
        ),
      });
    const gone = lakeEvent({ app_id: APP, event_id: "gone", service_id: GONE });
    const kept = lakeEvent({ app_id: APP, event_id: "kept", service_id: "install-kept" });
    // Another app's install with the same id is not this purge's.
    const othersGone = lakeEvent({ app_id: "com.other", event_id: "other", service_id: GONE });

    it("takes the installs' records out of error objects and their old versions", async () => {
      const fake = createVersionedS3({ versioned: [LAKE] });
      const mixed = errorKey("mixed");
      // A document that holds none of the installs' records is left as it is.
      const alsoKept = lakeEvent({
        app_id: APP,
        event_id: "also-kept",
        service_id: "install-kept",
      });
      const lines = [
        document([gone, kept, othersGone]),
        document([gone]),
        document([alsoKept]),
        "not a document",
      ];
      fake.put(LAKE, mixed, `${lines.join("\n")}\n`);
      const only = errorKey("only");
      fake.put(LAKE, only, `${document([gone])}\n`);
      // A replay left the object's unreadable line alone: its old version still holds the install.
      const replayed = errorKey("replayed");
      fake.put(LAKE, replayed, `${document([gone, kept])}\nnot a document\n`);
      const left = fake.put(LAKE, replayed, "not a document\n");
      const untouched = errorKey("untouched");
      const untouchedVersion = fake.put(LAKE, untouched, `${document([kept, othersGone])}\n`);

      expect(await purger(fake.client).purgeInstalls(APP, [GONE], CLEAN_FROM)).toEqual({
        filesRewritten: 3,
      });
      const text = fake.bytes(LAKE, mixed)?.toString("utf8") ?? "";
      const read = readErrorObject(EVENTS_TABLE, text);
      expect(read.records.map((r) => r.event_id)).toEqual(["kept", "other", "also-kept"]);
      expect(text.split("\n")).toContain(document([alsoKept]));
      expect(read.kept.map((k) => k.line)).toEqual(["not a document"]);
      expect(fake.versions(LAKE, mixed)).toHaveLength(1);
      expect(fake.versions(LAKE, only)).toEqual([]);
      expect(fake.versions(LAKE, replayed)).toEqual([left]);
      expect(fake.versions(LAKE, untouched)).toEqual([untouchedVersion]);
    });
  });
});

describe("S3 lake purge stopped for time, and resumed", () => {
  const day = (n: number) => String(n).padStart(2, "0");
  const tableKey = (table: string, n: number) =>
    `${table}/app_id=${APP}/dt=2026-11-${day(n)}/${table}-1-2026-11-${day(n)}-10-00-00-0f1e2d3c`;
  const errorKey = (n: number) =>
    `${errorPrefix("events")}format-conversion-failed/2026-11-20/errors-${n}`;
  const errorText = (n: number) => {
    const records = [
      lakeEvent({ app_id: APP, event_id: `gone-${n}`, service_id: GONE }),
      lakeEvent({ app_id: APP, event_id: `kept-${n}`, service_id: "install-kept" }),
    ];
    const rawData = records.map((r) => `${JSON.stringify(r)}\n`).join("");
    return `${JSON.stringify({ attemptsMade: 1, rawData: Buffer.from(rawData).toString("base64") })}\n`;
  };
  const fileOf = (table: LakeTable, n: number) =>
    lakeFile(table, lakeRows(table, [GONE, `kept-${n}`], "INT96"), "INT96", 5);

  // Every key of the pass in the order it lists them: the app's events, then its attributions,
  // then the events' error objects; each holds the install.
  const EVENT_KEYS = [1, 2, 3, 4, 5, 6].map((n) => tableKey("events", n));
  const ATTRIBUTION_KEYS = [1, 2].map((n) => tableKey("attributions", n));
  const ERROR_KEYS = [1, 2].map(errorKey);
  const ALL_KEYS = [...EVENT_KEYS, ...ATTRIBUTION_KEYS, ...ERROR_KEYS];

  let bytes: Map<string, Uint8Array>;
  beforeAll(async () => {
    bytes = new Map();
    for (const [n, key] of EVENT_KEYS.entries()) bytes.set(key, await fileOf(EVENTS_TABLE, n));
    for (const [n, key] of ATTRIBUTION_KEYS.entries()) {
      bytes.set(key, await fileOf(ATTRIBUTIONS_TABLE, n));
    }
  });

  /** A lake holding the keys, each listing page two keys long; the app's one snapshot. */
  const seeded = () => {
    const fake = createVersionedS3({ versioned: [LAKE], pageSize: 2 });
    for (const [key, file] of bytes) fake.put(LAKE, key, file);
    for (const [n, key] of ERROR_KEYS.entries()) fake.put(LAKE, key, errorText(n));
    fake.put(RESULTS, "athena/q1.csv", '"event_id"\n"e1"\n');
    return fake;
  };
  const purger = (s3: S3Client, tables?: S3LakePurgerOptions["tables"]) =>
    createS3LakePurger({
      s3,
      lakeBucket: LAKE,
      resultsBucket: RESULTS,
      snapshots: memorySnapshots([snapshotRef(APP, "q1")]),
      ...(tables ? { tables } : {}),
    });
  /** Lets `keys` keys be taken in all: goOn is asked before every one but the first. */
  const keysAtMost = (keys: number) => {
    let asked = 0;
    return () => {
      asked += 1;
      return asked < keys;
    };
  };
  /** The keys a GET was served for since `from` (an index into `served`). */
  const readSince = (fake: ReturnType<typeof createVersionedS3>, from: number) =>
    new Set(fake.served.slice(from).map((s) => s.key));

  const holdsInstall = async (fake: ReturnType<typeof createVersionedS3>, key: string) => {
    const current = fake.bytes(LAKE, key);
    if (!current) return false;
    if (key.startsWith("firehose-errors/")) {
      const { records } = readErrorObject(EVENTS_TABLE, current.toString("utf8"));
      return records.some((record) => record.service_id === GONE);
    }
    return (await readLakeFile(current)).rows.some((row) => row.service_id === GONE);
  };

  it.each([1, 2, 3, 5])(
    "goes on where the run before stopped, %i keys a run, reading no key twice",
    async (perRun) => {
      const fake = seeded();
      for (const key of ALL_KEYS) expect(await holdsInstall(fake, key)).toBe(true);
      const lake = purger(fake.client);
      const runs: Set<string>[] = [];
      let from: string | undefined;
      let filesRewritten = 0;
      for (let run = 0; run <= ALL_KEYS.length; run++) {
        const before = fake.served.length;
        const result = await lake.purgeInstalls(APP, [GONE], CLEAN_FROM, {
          from,
          goOn: keysAtMost(perRun),
        });
        filesRewritten += result.filesRewritten;
        runs.push(readSince(fake, before));
        if (result.stoppedAt === undefined) break;
        // The app's snapshots go once the pass is complete only.
        expect(fake.keys(RESULTS)).toEqual(["athena/q1.csv"]);
        from = result.stoppedAt;
      }
      // Each run read the next keys in listing order, across the tables and error prefixes:
      // the last one may find none left.
      const chunks: string[][] = [];
      for (let at = 0; at < ALL_KEYS.length; at += perRun) {
        chunks.push(ALL_KEYS.slice(at, at + perRun));
      }
      const read = runs.map((keys) => [...keys].sort());
      if (read.at(-1)?.length === 0) read.pop();
      expect(read).toEqual(chunks.map((chunk) => chunk.sort()));
      expect(filesRewritten).toBe(ALL_KEYS.length);
      for (const key of ALL_KEYS) expect(await holdsInstall(fake, key)).toBe(false);
      expect(fake.keys(RESULTS)).toEqual([]);
    },
  );

  it("goes on after the last key of those it took, though they finished out of order", async () => {
    const fake = seeded();
    const [slow, ...others] = ALL_KEYS.slice(0, 5);
    const finished: string[] = [];
    // The first key's requests wait until the other keys taken with it are done: each is
    // rewritten, and done once its old version is deleted.
    const done = new Set<string>();
    let othersDone: () => void = () => undefined;
    const afterOthers = new Promise<void>((resolve) => {
      othersDone = resolve;
    });
    const s3 = {
      send: async (command: { input: { Key?: string } }) => {
        const key = command.input.Key;
        if (key === slow) await afterOthers;
        const answer = await fake.client.send(command as never);
        if (key !== undefined) finished.push(key);
        if (key !== undefined && others.includes(key) && command instanceof DeleteObjectCommand) {
          done.add(key);
          if (done.size === others.length) othersDone();
        }
        return answer;
      },
    } as unknown as S3Client;
    const lake = purger(s3);
    const first = await lake.purgeInstalls(APP, [GONE], CLEAN_FROM, { goOn: keysAtMost(5) });
    expect(first.stoppedAt).toBeDefined();
    const taken = ALL_KEYS.slice(0, 5);
    expect(readSince(fake, 0)).toEqual(new Set(taken));
    // The slow key was the last to finish.
    expect(finished.filter((key) => taken.includes(key)).at(-1)).toBe(slow);

    const before = fake.served.length;
    const second = await lake.purgeInstalls(APP, [GONE], CLEAN_FROM, {
      from: first.stoppedAt,
      goOn: () => true,
    });
    expect(second.stoppedAt).toBeUndefined();
    expect(readSince(fake, before)).toEqual(new Set(ALL_KEYS.slice(5)));
    for (const key of ALL_KEYS) expect(await holdsInstall(fake, key)).toBe(false);
  });

  it("names where it stopped by table, so a table added since is purged whole", async () => {
    const fake = seeded();
    const sessionsKey = tableKey("sessions", 1);
    fake.put(LAKE, sessionsKey, await fileOf(SESSIONS_TABLE, 1));
    const first = await purger(fake.client, [EVENTS_TABLE, ATTRIBUTIONS_TABLE]).purgeInstalls(
      APP,
      [GONE],
      CLEAN_FROM,
      { goOn: keysAtMost(3) },
    );
    expect(readSince(fake, 0)).toEqual(new Set(EVENT_KEYS.slice(0, 3)));
    // The next run's purger knows a table more, listed first.
    const before = fake.served.length;
    const second = await purger(fake.client, [
      SESSIONS_TABLE,
      EVENTS_TABLE,
      ATTRIBUTIONS_TABLE,
    ]).purgeInstalls(APP, [GONE], CLEAN_FROM, { from: first.stoppedAt, goOn: () => true });
    expect(second.stoppedAt).toBeUndefined();
    expect(readSince(fake, before)).toEqual(
      new Set([sessionsKey, ...EVENT_KEYS.slice(3), ...ATTRIBUTION_KEYS, ...ERROR_KEYS]),
    );
    expect(await holdsInstall(fake, sessionsKey)).toBe(false);
  });

  it.each(["not a position", "5", '["app/events"]', '{"app/events": 5, "app/attributions": null}'])(
    "starts over from a position it cannot read: %s",
    async (from) => {
      const fake = seeded();
      const result = await purger(fake.client).purgeInstalls(APP, [GONE], CLEAN_FROM, {
        from,
        goOn: () => true,
      });
      expect(result.stoppedAt).toBeUndefined();
      expect(readSince(fake, 0)).toEqual(new Set(ALL_KEYS));
    },
  );

  it("lists no key of a table a run before finished", async () => {
    const fake = seeded();
    const result = await purger(fake.client).purgeInstalls(APP, [GONE], CLEAN_FROM, {
      from: JSON.stringify({ "app/events": true }),
      goOn: () => true,
    });
    expect(result.stoppedAt).toBeUndefined();
    expect(readSince(fake, 0)).toEqual(new Set([...ATTRIBUTION_KEYS, ...ERROR_KEYS]));
    const listed = fake.mock
      .commandCalls(ListObjectVersionsCommand)
      .map((call) => call.args[0].input.Prefix);
    expect(listed).not.toContain(`events/app_id=${APP}/`);
  });

  it("takes one key at least, however short the run's time", async () => {
    const fake = seeded();
    const result = await purger(fake.client).purgeInstalls(APP, [GONE], CLEAN_FROM, {
      goOn: () => false,
    });
    expect(result.stoppedAt).toBeDefined();
    expect(readSince(fake, 0)).toEqual(new Set(ALL_KEYS.slice(0, 1)));
  });
});
