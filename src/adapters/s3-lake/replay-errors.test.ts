/**
 * `lake replay-errors` over moto's S3 and Firehose (test/local-aws/moto.ts): the error objects
 * Firehose wrote under a table's error prefix are read back, their lake records put on the
 * table's stream (which names their partition again), and each object removed, or left holding
 * only what is not a lake record of the table. The deletion requests are in the embedded
 * DynamoDB-compatible server, read as on AWS.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FirehoseClient } from "@aws-sdk/client-firehose";
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type MotoServer,
  motoClientConfig,
  motoDisabled,
  motoStreamIntoBucket,
  reportNoMoto,
  startMoto,
} from "../../../test/local-aws/moto.ts";
import { everyInstallStored } from "../../../test/support/installs.ts";
import { lakeEvent } from "../../../test/support/records.ts";
import { replayErrorsCommand } from "../../cli/commands/lake.ts";
import { requestDeletion } from "../../deletion/deletions.ts";
import {
  type DynamoConnection,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
} from "../../embedded/local-dynamodb.ts";
import {
  EVENTS_TABLE,
  errorPrefix,
  type LakeRecord,
  lakeDay,
  PARTITION_DAY_KEY,
} from "../../lake/lake-tables.ts";
import { createDeletionStore } from "../dynamodb/deletions.ts";

reportNoMoto("the replay of the lake's error output (src/adapters/s3-lake/replay-errors.test.ts)");

const APP = "com.example.replay";
const DELIVERED = "delivered/";

/** One line of Firehose's error output for a record of `lines`. */
const errorDocument = (
  lines: readonly string[],
  errorCode = "DynamicPartitioning.ActivePartitionsLimitExceeded",
) =>
  JSON.stringify({
    attemptsMade: 1,
    arrivalTimestamp: Date.now(),
    errorCode,
    errorMessage: "Active partitions limit exceeded",
    attemptEndingTimestamp: Date.now(),
    rawData: Buffer.from(lines.map((line) => `${line}\n`).join(""), "utf8").toString("base64"),
  });

describe.skipIf(motoDisabled)("replaying the lake's error output", () => {
  let moto: MotoServer;
  let s3: S3Client;
  let firehose: FirehoseClient;
  let dir: string;
  let dynamo: DynamoConnection;
  const bucket = `lake-${randomUUID()}`;
  const stream = `events-${randomUUID()}`;

  beforeAll(async () => {
    moto = await startMoto();
    s3 = new S3Client(motoClientConfig(moto));
    firehose = new FirehoseClient(motoClientConfig(moto));
    await motoStreamIntoBucket({ s3, firehose }, { bucket, stream, prefix: DELIVERED });
    dir = await mkdtemp(join(tmpdir(), "replay-errors-"));
    dynamo = await startLocalDynamoDb(dir);
  });
  afterAll(async () => {
    s3?.destroy();
    firehose?.destroy();
    await moto?.stop();
    await dynamo?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const keysUnder = async (prefix: string) =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? [])
      .map((object) => object.Key ?? "")
      .sort();
  const textOf = async (key: string) =>
    (await (
      await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
    ).Body?.transformToString("utf8")) ?? "";
  const delivered = async () => {
    const records: LakeRecord[] = [];
    for (const key of await keysUnder(DELIVERED)) {
      for (const line of (await textOf(key)).split("\n")) {
        if (line !== "") records.push(JSON.parse(line) as LakeRecord);
      }
    }
    return records;
  };
  const replay = (dryRun = false) =>
    replayErrorsCommand({
      table: "events",
      bucket,
      stream,
      deletionsTable: LOCAL_TABLE_NAMES.deletions,
      dryRun,
      clients: { s3, firehose, dynamo: dynamo.doc },
    });

  it("puts every lake record back on the stream, once, and leaves only what is not one", async () => {
    const late = lakeEvent({
      app_id: APP,
      event_id: "late",
      event_time: "2026-11-01T10:00:00.000Z",
      received_at: "2026-11-20T10:00:00.000Z",
    });
    const packed = [
      lakeEvent({ app_id: APP, event_id: "a" }),
      lakeEvent({ app_id: APP, event_id: "b" }),
    ];
    const broken = JSON.stringify(lakeEvent({ app_id: APP, event_id: "bad", revenue: "4.99" }));
    const prefix = errorPrefix("events");
    const first = `${prefix}DynamicPartitioning.ActivePartitionsLimitExceeded/2026-11-20/one`;
    const second = `${prefix}format-conversion-failed/2026-11-21/two`;
    const lines = [
      // As the stream sent them: with the partition day it named.
      errorDocument(
        packed.map((record) => JSON.stringify({ ...record, [PARTITION_DAY_KEY]: "x" })),
      ),
      errorDocument([broken]),
      "not a document",
    ];
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: first, Body: `${lines.join("\n")}\n` }),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: second,
        Body: `${errorDocument([JSON.stringify(late)])}\n`,
      }),
    );

    const counted = await replay(true);
    expect(counted).toMatchObject({ objects: 2, records: 3 });
    expect(counted.kept.map((k) => k.key)).toEqual([first, first]);
    expect(await delivered()).toEqual([]);

    const done = await replay();
    expect(done).toMatchObject({ objects: 2, records: 3 });
    expect(done.kept.map((k) => k.reason)).toEqual([
      'events.revenue: expected double, got "4.99"',
      "not a JSON document",
    ]);
    const records = await delivered();
    expect(records.map((record) => record.event_id).sort()).toEqual(["a", "b", "late"]);
    for (const record of records) {
      const { [PARTITION_DAY_KEY]: day, ...lakeRecord } = record;
      expect(day).toBe(lakeDay(EVENTS_TABLE, lakeRecord as LakeRecord));
    }
    expect(records.find((record) => record.event_id === "late")?.[PARTITION_DAY_KEY]).toBe(
      "2026-11-19",
    );
    // The object with nothing else is gone; the other holds its two other lines only.
    expect(await keysUnder(prefix)).toEqual([first]);
    expect(await textOf(first)).toBe(`${lines[1]}\n${lines[2]}\n`);

    // Nothing is put twice.
    expect(await replay()).toMatchObject({ objects: 1, records: 0 });
    expect(await delivered()).toHaveLength(3);
  });

  it("puts no record of an install whose data was deleted back, and keeps none", async () => {
    const deletions = createDeletionStore(dynamo.doc, LOCAL_TABLE_NAMES.deletions);
    // Its purge may have completed already: the replayed rows would land after it, for good.
    const request = await requestDeletion(APP, "install-deleted", {
      deletions: deletions,
      installs: everyInstallStored,
    });
    await deletions.setStatus(request.request_id, "completed", new Date().toISOString());
    await requestDeletion(APP, "install-pending", {
      deletions: deletions,
      installs: everyInstallStored,
    });
    const record = (eventId: string, serviceId: string, appId = APP) =>
      JSON.stringify(lakeEvent({ app_id: appId, event_id: eventId, service_id: serviceId }));
    const prefix = errorPrefix("events");
    const key = `${prefix}DynamicPartitioning.ActivePartitionsLimitExceeded/2026-11-22/three`;
    const lines = [
      errorDocument([
        record("deleted-1", "install-deleted"),
        record("alive-1", "install-alive"),
        // Another app's install with the same id has no deletion request.
        record("other-app", "install-deleted", "com.example.other"),
      ]),
      errorDocument([record("deleted-2", "install-deleted"), record("pending", "install-pending")]),
    ];
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: `${lines.join("\n")}\n` }),
    );

    // The first test left an object of lines that are not records: it is read again.
    expect(await replay(true)).toMatchObject({ objects: 2, records: 2, dropped: 3 });
    const done = await replay();
    expect(done).toMatchObject({ objects: 2, records: 2, dropped: 3 });
    expect(done.kept.filter((k) => k.key === key)).toEqual([]);
    const ours = new Set(["deleted-1", "alive-1", "other-app", "deleted-2", "pending"]);
    const records = (await delivered()).filter((r) => ours.has(String(r.event_id)));
    expect(records.map((r) => r.event_id).sort()).toEqual(["alive-1", "other-app"]);
    // Gone from the error output too, with the records put back.
    expect(await keysUnder(prefix)).not.toContain(key);
  });
});
