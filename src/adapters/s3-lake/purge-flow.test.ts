/**
 * The purge's whole flow as the purge function's entry composes it on AWS: the DynamoDB stores (reading
 * their indexes, as on AWS) against the embedded DynamoDB-compatible server, and the S3 lake
 * in memory.
 */
import { ListObjectVersionsCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { everyInstallStored, storedInstall } from "../../../test/support/installs.ts";
import { purgeEnv } from "../../config/aws-env.ts";
import { type PurgeDeps, purgeOpenRequests, requestDeletion } from "../../deletion/deletions.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { EVENTS_TABLE } from "../../lake/lake-tables.ts";
import type { DeletionStore } from "../../ports/deletions.ts";
import type { Install } from "../../ports/installs.ts";
import { createAttributionStore } from "../dynamodb/attributions.ts";
import { createDeletionStore } from "../dynamodb/deletions.ts";
import { dynaliteForTests } from "../dynamodb/dynamo-targets.test-support.ts";
import { createCustomerUserMap, createInstallStore } from "../dynamodb/installs.ts";
import { createDeliveryLog, createOutboxStore } from "../dynamodb/postbacks.ts";
import { createDynamoStores, createSnapshotCatalog } from "../dynamodb/stores.ts";
import { createTouchStore } from "../dynamodb/touches.ts";
import { lakeFile, lakeRows, readLakeFile } from "./lake-files.test-support.ts";
import { createS3LakePurger } from "./purge.ts";
import { createVersionedS3 } from "./versioned-s3.test-support.ts";

/** A deletion request for an install the app stored. */
const requestOf = (deletions: DeletionStore, appId: string, serviceId: string, at?: Date) =>
  requestDeletion(appId, serviceId, { deletions, installs: everyInstallStored }, at);

const APP = "com.example.app";
const LAKE = "lake";
const RESULTS = "results";
const NOW = new Date("2026-11-02T12:00:00.000Z");
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

const install = (serviceId: string): Install =>
  storedInstall(APP, serviceId, { maid: null, customerUserId: `user-${serviceId}` });

describe("the purge on AWS", () => {
  const dynamo = dynaliteForTests("purge-job-");

  it("completes requests old enough; the install, its mapping, rows and snapshots' files are gone", async () => {
    const stores = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    for (const id of ["gone", "young", "kept"]) {
      await stores.installs.putIfAbsent(install(id));
      await stores.customerUsers.put(APP, `user-${id}`, id, "2026-11-01T10:00:00.000Z");
    }
    // Old enough to be purged, and one made a minute ago that Firehose may still be delivering.
    const old = await requestOf(stores.deletions, APP, "gone", minutesAgo(30));
    const young = await requestOf(stores.deletions, APP, "young", minutesAgo(1));

    const s3 = createVersionedS3({ versioned: [LAKE] });
    const key = `events/app_id=${APP}/dt=2026-11-01/events-1-2026-11-01-10-00-00-abc`;
    const ids = ["gone", "young", "kept", "gone", "kept", "young"];
    const original = await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, ids, "INT96"), "INT96", 4);
    s3.put(LAKE, key, original);
    s3.put(RESULTS, "athena/q1.csv", '"event_id"\n');
    await stores.snapshots.put({
      appId: APP,
      since: 1_790_000_000,
      snapshotId: "s1",
      location: `s3://${RESULTS}/athena/q1.csv`,
      createdAt: minutesAgo(40).getTime(),
      expiresAt: minutesAgo(25).getTime(),
      tombstoneVersion: 0,
    });

    const env = purgeEnv.parse({
      DELETIONS_TABLE: LOCAL_TABLE_NAMES.deletions,
      INSTALLS_TABLE: LOCAL_TABLE_NAMES.installs,
      CUSTOMER_USERS_TABLE: LOCAL_TABLE_NAMES.customerUsers,
      ATTRIBUTIONS_TABLE: LOCAL_TABLE_NAMES.attributions,
      TOUCHES_TABLE: LOCAL_TABLE_NAMES.touches,
      SNAPSHOTS_TABLE: LOCAL_TABLE_NAMES.snapshots,
      OUTBOX_TABLE: LOCAL_TABLE_NAMES.outbox,
      DELIVERY_LOG_TABLE: LOCAL_TABLE_NAMES.deliveryLog,
      LAKE_BUCKET: LAKE,
      RESULTS_BUCKET: RESULTS,
    });
    expect(env.MIN_REQUEST_AGE_SECONDS).toBe(360);
    const { doc } = dynamo();
    const { completed } = await purgeOpenRequests({
      deletions: createDeletionStore(doc, env.DELETIONS_TABLE),
      installs: createInstallStore(doc, env.INSTALLS_TABLE),
      customerUsers: createCustomerUserMap(doc, env.CUSTOMER_USERS_TABLE),
      attributions: createAttributionStore(doc, env.ATTRIBUTIONS_TABLE),
      claims: createTouchStore(doc, env.TOUCHES_TABLE),
      outbox: createOutboxStore(doc, env.OUTBOX_TABLE),
      deliveryLog: createDeliveryLog(doc, env.DELIVERY_LOG_TABLE),
      lake: createS3LakePurger({
        s3: s3.client,
        lakeBucket: env.LAKE_BUCKET,
        resultsBucket: env.RESULTS_BUCKET,
        snapshots: createSnapshotCatalog(doc, env.SNAPSHOTS_TABLE),
      }),
      flush: async () => {},
      minAgeMs: env.MIN_REQUEST_AGE_SECONDS * 1000,
      now: () => NOW,
    });

    expect(completed).toBe(1);

    expect(await stores.deletions.get(old.request_id)).toMatchObject({
      status: "completed",
      completedAt: NOW.toISOString(),
    });
    expect((await stores.deletions.listOpen()).map((r) => r.requestId)).toEqual([young.request_id]);
    expect(await stores.installs.get(APP, "gone")).toBeUndefined();
    expect(await stores.customerUsers.get(APP, "user-gone")).toBeUndefined();
    const after = await readLakeFile(s3.bytes(LAKE, key) ?? new Uint8Array());
    expect(after.rows.map((r) => r.service_id)).toEqual(["young", "kept", "kept", "young"]);
    // The snapshot's files are gone; its entry stays, to refuse its pages for its version.
    expect((await stores.snapshots.listByApp(APP)).map((ref) => ref.snapshotId)).toEqual(["s1"]);
    expect(s3.keys(RESULTS)).toEqual([]);
    // The young request's install waits for the next run.
    expect(await stores.installs.get(APP, "young")).toBeDefined();
    expect(await stores.customerUsers.get(APP, "user-young")).toBe("young");
    expect(await stores.installs.get(APP, "kept")).toBeDefined();
  });

  /** The purge on AWS as its entry composes it, on the tables here and the lake `s3` holds. */
  const purgeOn = (
    s3: ReturnType<typeof createVersionedS3>,
    more: Pick<PurgeDeps, "remainingMs"> = {},
  ) => {
    const { doc } = dynamo();
    return purgeOpenRequests({
      deletions: createDeletionStore(doc, LOCAL_TABLE_NAMES.deletions),
      // Every request's install stored, so each has a lake pass to make.
      installs: { ...createInstallStore(doc, LOCAL_TABLE_NAMES.installs), ...everyInstallStored },
      customerUsers: createCustomerUserMap(doc, LOCAL_TABLE_NAMES.customerUsers),
      attributions: createAttributionStore(doc, LOCAL_TABLE_NAMES.attributions),
      claims: createTouchStore(doc, LOCAL_TABLE_NAMES.touches),
      outbox: createOutboxStore(doc, LOCAL_TABLE_NAMES.outbox),
      deliveryLog: createDeliveryLog(doc, LOCAL_TABLE_NAMES.deliveryLog),
      lake: createS3LakePurger({
        s3: s3.client,
        lakeBucket: LAKE,
        resultsBucket: RESULTS,
        snapshots: createSnapshotCatalog(doc, LOCAL_TABLE_NAMES.snapshots),
      }),
      flush: async () => {},
      minAgeMs: 6 * 60_000,
      now: () => NOW,
      ...more,
    });
  };

  it("purges an app's requests in one pass over its files, each prefix listed once", async () => {
    const app = "com.example.two";
    const stores = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const requests = [
      await requestOf(stores.deletions, app, "first", minutesAgo(30)),
      await requestOf(stores.deletions, app, "second", minutesAgo(20)),
    ];
    const s3 = createVersionedS3({ versioned: [LAKE], pageSize: 2 });
    const keys = ["01", "02", "03"].map(
      (day) => `events/app_id=${app}/dt=2026-11-${day}/events-1-2026-11-${day}-10-00-00-abc`,
    );
    for (const key of keys) {
      const ids = ["first", "kept", "second"];
      s3.put(
        LAKE,
        key,
        await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, ids, "INT96"), "INT96", 4),
      );
    }
    const outcome = await purgeOn(s3);

    expect(outcome).toEqual({ completed: 2, deferred: 0 });
    for (const request of requests) {
      expect((await stores.deletions.get(request.request_id))?.status).toBe("completed");
    }
    for (const key of keys) {
      const after = await readLakeFile(s3.bytes(LAKE, key) ?? new Uint8Array());
      expect(after.rows.map((r) => r.service_id)).toEqual(["kept"]);
    }
    // A listing of a prefix starts once (its later pages go on from a marker).
    const started = s3.mock
      .commandCalls(ListObjectVersionsCommand)
      .map((c) => c.args[0].input)
      .filter((input) => input.KeyMarker === undefined)
      .map((input) => input.Prefix);
    expect(started.filter((prefix) => prefix === `events/app_id=${app}/`)).toHaveLength(1);
    expect(new Set(started).size).toBe(started.length);
  });

  it("goes on with an app's pass where the run before stopped for time, then completes its requests", async () => {
    const app = "com.example.three";
    const stores = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const requests = [
      await requestOf(stores.deletions, app, "first", minutesAgo(30)),
      await requestOf(stores.deletions, app, "second", minutesAgo(20)),
    ];
    const s3 = createVersionedS3({ versioned: [LAKE], pageSize: 2 });
    const keys = ["01", "02", "03", "04"].map(
      (day) => `events/app_id=${app}/dt=2026-11-${day}/events-1-2026-11-${day}-10-00-00-abc`,
    );
    const ids = ["first", "kept", "second"];
    const file = await lakeFile(EVENTS_TABLE, lakeRows(EVENTS_TABLE, ids, "INT96"), "INT96", 4);
    for (const key of keys) s3.put(LAKE, key, file);
    const run = (remainingMs: number) => purgeOn(s3, { remainingMs: () => remainingMs });
    const serviceIdsIn = async (key: string) =>
      (await readLakeFile(s3.bytes(LAKE, key) ?? new Uint8Array())).rows.map((r) => r.service_id);

    // Out of time from the start: one file, and the pass saved where it stopped.
    expect(await run(0)).toEqual({ completed: 0, deferred: 2 });
    expect(await serviceIdsIn(keys[0] ?? "")).toEqual(["kept"]);
    for (const key of keys.slice(1)) expect(await serviceIdsIn(key)).toEqual(ids);
    expect((await stores.deletions.savedPass(app))?.serviceIds).toEqual(["first", "second"]);
    for (const request of requests) {
      expect((await stores.deletions.get(request.request_id))?.status).toBe("in_progress");
    }
    expect((await stores.deletions.listOpen()).map((r) => r.appId)).toContain(app);

    const before = s3.served.length;
    expect(await run(60_000)).toEqual({ completed: 2, deferred: 0 });
    // The first file is not read again.
    expect(new Set(s3.served.slice(before).map((s) => s.key))).toEqual(new Set(keys.slice(1)));
    for (const key of keys) expect(await serviceIdsIn(key)).toEqual(["kept"]);
    expect(await stores.deletions.savedPass(app)).toBeUndefined();
    for (const request of requests) {
      expect((await stores.deletions.get(request.request_id))?.status).toBe("completed");
    }
  });
});
