/** The job against the snapshot catalog on a real DynamoDB-compatible server (dynalite). */
import { describe, expect, it } from "vitest";
import { dynaliteForTests } from "../adapters/dynamodb/dynamo-targets.test-support.ts";
import { createSnapshotCatalog } from "../adapters/dynamodb/stores.ts";
import { LOCAL_TABLE_NAMES } from "../embedded/local-dynamodb.ts";
import type { App } from "../ports/apps.ts";
import type { SnapshotRef } from "../ports/lake.ts";
import { SNAPSHOT_ENTRY_GRACE_MS } from "../ports/lake.ts";
import { jobOf } from "./jobs.ts";
import { reapSnapshotEntries } from "./reap-snapshot-entries.ts";

const dynamo = dynaliteForTests("reap-snapshots-");

const NOW = Date.parse("2026-03-02T12:00:00Z");

const ref = (appId: string, snapshotId: string, expiresAt: number): SnapshotRef => ({
  appId,
  since: Date.parse("2026-03-01T00:00:00Z"),
  snapshotId,
  location: `snapshots/${snapshotId}`,
  createdAt: expiresAt - 900_000,
  expiresAt,
  tombstoneVersion: 0,
});

describe("reap-snapshot-entries", () => {
  it("runs in the background on the embedded runtime; DynamoDB's TTL does it on AWS", () => {
    const job = jobOf("reap-snapshot-entries");
    expect(job.aws).toEqual({ instead: expect.stringContaining("TTL") });
    expect(job.embedded.everyMs).toBeGreaterThan(0);
  });

  it("forgets the entries of every app's snapshots a grace past their expiry, and no others", async () => {
    // The job reads only each app's id.
    const apps = { list: async () => [{ appId: "app-one" }, { appId: "app-two" }] as App[] };
    const snapshots = createSnapshotCatalog(dynamo().doc, LOCAL_TABLE_NAMES.snapshots);
    const old = ref("app-one", "old", NOW - SNAPSHOT_ENTRY_GRACE_MS - 1);
    const late = ref("app-one", "late", NOW - SNAPSHOT_ENTRY_GRACE_MS + 60_000);
    // Exactly the grace past its expiry: kept until it is more.
    const edge = ref("app-one", "edge", NOW - SNAPSHOT_ENTRY_GRACE_MS);
    const other = ref("app-two", "other-old", NOW - 2 * SNAPSHOT_ENTRY_GRACE_MS);
    for (const entry of [old, late, edge, other]) await snapshots.put(entry);

    const reaped = await reapSnapshotEntries({ apps, snapshots, now: () => new Date(NOW) });

    expect(reaped).toBe(2);
    expect(await snapshots.byId(old.appId, old.since, old.snapshotId)).toBeUndefined();
    expect(await snapshots.byId(other.appId, other.since, other.snapshotId)).toBeUndefined();
    // Expired, but recently: a late page still hears that it expired.
    expect(await snapshots.byId(late.appId, late.since, late.snapshotId)).toMatchObject({
      snapshotId: "late",
    });
    expect(await snapshots.byId(edge.appId, edge.since, edge.snapshotId)).toMatchObject({
      snapshotId: "edge",
    });
  });
});
