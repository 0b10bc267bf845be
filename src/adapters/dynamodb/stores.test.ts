/** The DynamoDB stores against a real DynamoDB-compatible server (dynalite on disk). */
import { createHash } from "node:crypto";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { storedInstall } from "../../../test/support/installs.ts";
import { installFacts } from "../../attribution/facts.ts";
import { resultOf } from "../../attribution/results.ts";
import { DEFAULT_ATTRIBUTION } from "../../attribution/settings.ts";
import { ConflictError, NotFoundError } from "../../domain/errors.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { testLink } from "../../links/link.test-support.ts";
import type { AppLinkSettings } from "../../ports/apps.ts";
import type { CostRow } from "../../ports/costs.ts";
import type { DeletionRequest } from "../../ports/deletions.ts";
import { SNAPSHOT_ENTRY_GRACE_MS } from "../../ports/lake.ts";
import type { Touch } from "../../ports/touches.ts";
import { NO_CAMPAIGN } from "../../touches/touch.ts";
import { contractTouch } from "../contracts/touch-store.test-support.ts";
import { createAttributionStore } from "./attributions.ts";
import { VERSIONED_CHANGE_ATTEMPTS } from "./conditional.ts";
import { createCostStore } from "./costs.ts";
import { createDeletionStore } from "./deletions.ts";
import { dynaliteForTests } from "./dynamo-targets.test-support.ts";
import { createCustomerUserMap } from "./installs.ts";
import { createDynamoStores } from "./stores.ts";
import { tombstonesKey } from "./tombstones.ts";
import { createTouchStore } from "./touches.ts";

const deletionRequest = (
  requestId: string,
  appId: string,
  serviceId: string,
  minute: number,
): DeletionRequest => ({
  requestId,
  appId,
  serviceId,
  status: "pending",
  requestedAt: `2026-11-01T10:0${minute}:00.000Z`,
  completedAt: null,
});

/** A promise and the function that settles it, to hold one change until another is saved. */
const gate = () => {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

describe("DynamoDB stores", () => {
  const dynamo = dynaliteForTests("dynamo-");

  it("creates an app once, and changes only an existing one", async () => {
    const { apps } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const app = {
      appId: "com.a",
      name: "A",
      platform: "ios" as const,
      enabled: true,
      createdAt: "t",
    };
    await apps.create(app);
    await expect(apps.create(app)).rejects.toBeInstanceOf(ConflictError);
    const updated = await apps.update("com.a", (stored) => ({
      ...stored,
      enabled: false,
      encryptionEnabled: true,
    }));
    expect(updated).toEqual({ ...app, enabled: false, encryptionEnabled: true });
    expect(await apps.get("com.a")).toEqual(updated);
    await expect(apps.update("com.none", (stored) => stored)).rejects.toBeInstanceOf(NotFoundError);
    // An app keeps its id, whatever a change makes of it.
    await apps.update("com.a", (stored) => ({ ...stored, appId: "com.b" }));
    expect(await apps.get("com.b")).toBeUndefined();
  });

  it("lists apps by id", async () => {
    const { apps } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    for (const appId of ["org.listed.z", "com.listed.m", "net.listed.a"]) {
      await apps.create({ appId, name: appId, platform: "android", enabled: true, createdAt: "t" });
    }
    const ids = (await apps.list()).map((app) => app.appId);
    expect(ids.filter((id) => id.includes(".listed."))).toEqual([
      "com.listed.m",
      "net.listed.a",
      "org.listed.z",
    ]);
    expect(ids).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
  });

  it("applies a change again to the app another change saved since it read it", async () => {
    const { apps } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    await apps.create({
      appId: "com.race",
      name: "R",
      platform: "ios",
      enabled: true,
      createdAt: "t",
    });
    const seen: (number | undefined)[] = [];
    const read = gate();
    const saved = gate();
    // The first reads, then waits until the second has saved: its write must not undo the second.
    const first = apps.update("com.race", async (stored) => {
      seen.push(stored.attribution?.clickWindowDays);
      read.open();
      await saved.opened;
      return { ...stored, encryptionEnabled: true };
    });
    await read.opened;
    await apps.update("com.race", (stored) => ({ ...stored, attribution: { clickWindowDays: 3 } }));
    saved.open();
    await first;
    expect(seen).toEqual([undefined, 3]);
    expect(await apps.get("com.race")).toMatchObject({
      encryptionEnabled: true,
      attribution: { clickWindowDays: 3 },
    });
  });

  it("writes nothing when a change refuses, and gives up when others keep winning", async () => {
    const { apps } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const app = {
      appId: "com.busy",
      name: "B",
      platform: "ios" as const,
      enabled: true,
      createdAt: "t",
    };
    await apps.create(app);
    await expect(
      apps.update("com.busy", () => {
        throw new ConflictError("No longer valid.");
      }),
    ).rejects.toThrow("No longer valid.");
    expect(await apps.get("com.busy")).toEqual(app);
    let attempts = 0;
    const losing = apps.update("com.busy", async (stored) => {
      attempts += 1;
      // Another change is saved between each read and its write.
      await apps.update("com.busy", (other) => ({ ...other, name: `${other.name}+` }));
      return { ...stored, enabled: false };
    });
    await expect(losing).rejects.toBeInstanceOf(ConflictError);
    expect(attempts).toBe(VERSIONED_CHANGE_ATTEMPTS);
    expect(await apps.get("com.busy")).toMatchObject({ enabled: true, name: "B+++++" });
  });

  it("keeps every link setting of an app (its item's schema drops a key it does not name)", async () => {
    const { apps } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    // Required: a setting added to AppLinkSettings must be added here, and so checked.
    const links: Required<AppLinkSettings> = {
      appStoreId: "1234567890",
      playPackage: "com.example.game",
      iosBundleId: "com.example.game.ios",
      webUrl: "https://game.example.com/",
      hosts: ["go.example.com"],
      appleTeamId: "9JA89QQLNQ",
      androidSha256Fingerprints: ["14:6D"],
      languages: ["de", "en"],
      previewTitle: "Game",
      previewDescription: "Race.",
      previewImageUrl: "https://cdn.example.com/card.png",
    };
    const app = {
      appId: "com.links",
      name: "L",
      platform: "ios" as const,
      enabled: true,
      createdAt: "t",
    };
    await apps.create(app);
    await apps.update("com.links", (stored) => ({ ...stored, links }));
    expect((await apps.get("com.links"))?.links).toEqual(links);
  });

  it("revokes a key once and keeps the first revocation time", async () => {
    const { keys } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    await keys.put({
      keyId: "k1",
      appId: "com.a",
      kind: "sdk",
      scopes: ["ingest"],
      hash: "h",
      createdAt: "t0",
    });
    expect((await keys.revoke("k1", "t1"))?.revokedAt).toBe("t1");
    expect((await keys.revoke("k1", "t2"))?.revokedAt).toBe("t1");
    expect(await keys.revoke("missing", "t1")).toBeUndefined();
    expect((await keys.listByApp("com.a")).map((k) => k.keyId)).toEqual(["k1"]);
  });

  it("spreads one address's taps over shards of its index, and reads them all back newest first", async () => {
    const touches = createTouchStore(dynamo().doc, LOCAL_TABLE_NAMES.touches);
    // A carrier NAT's address: forty taps of one app, a minute apart.
    const tap = (minute: number): Touch => {
      const at = new Date(Date.UTC(2026, 10, 1, 10, minute)).toISOString();
      return {
        clickId: `nat-${minute}`,
        appId: "com.nat",
        touchType: "click",
        source: "link",
        touchTime: at,
        receivedAt: at,
        deeplinkId: null,
        mediaSource: "network_a",
        ...NO_CAMPAIGN,
        networkClickId: null,
        ip: "81.2.69.142",
        userAgent: null,
        platform: "android",
        osVersion: null,
        deviceModel: null,
        language: null,
        country: null,
        maid: null,
        params: {},
        urlParams: {},
        cost: null,
      };
    };
    const taps = Array.from({ length: 40 }, (_, minute) => tap(minute));
    await touches.put(taps);
    const keys = new Set<string>();
    for (const t of taps) {
      const { Item } = await dynamo().doc.send(
        new GetCommand({ TableName: LOCAL_TABLE_NAMES.touches, Key: { clickId: t.clickId } }),
      );
      keys.add(String(Item?.ipKey));
    }
    expect(keys.size).toBeGreaterThan(4);
    const window = {
      appId: "com.nat",
      from: new Date(Date.UTC(2026, 10, 1, 10, 5)),
      to: new Date(Date.UTC(2026, 10, 1, 10, 34)),
    };
    expect((await touches.byIp("81.2.69.142", window)).map((t) => t.clickId)).toEqual(
      taps
        .slice(5, 35)
        .reverse()
        .map((t) => t.clickId),
    );
    expect(await touches.byIp("81.2.69.142", { ...window, appId: "com.other" })).toEqual([]);
  });

  it("spreads installs in flight over shards of the open index, and lists them all", async () => {
    const attributions = createAttributionStore(dynamo().doc, LOCAL_TABLE_NAMES.attributions);
    const facts = {
      appId: "com.open",
      os: "android" as const,
      osVersion: null,
      deviceModel: null,
      firstOpenTime: "2026-11-01T10:00:00.000Z",
      receivedAt: "2026-11-01T10:00:01.000Z",
      clockOffsetMs: null,
      maid: null,
      attStatus: null,
      referrerClickId: null,
      openUrlClickId: null,
      installBeganAt: null,
      deviceReferrerClickAt: null,
      deviceInstallBeganAt: null,
      ip: null,
      userAgent: null,
      platformAdsToken: null,
    };
    const ids = Array.from({ length: 30 }, (_, i) => `open-${i}`);
    for (const serviceId of ids) {
      await attributions.createPending({
        appId: "com.open",
        serviceId,
        facts,
        requestedAt: "2026-11-01T10:00:02.000Z",
      });
    }
    const markers = new Set<string>();
    for (const serviceId of ids) {
      const { Item } = await dynamo().doc.send(
        new GetCommand({
          TableName: LOCAL_TABLE_NAMES.attributions,
          Key: { attributionKey: `com.open#${serviceId}` },
        }),
      );
      markers.add(String(Item?.openMarker));
    }
    expect(markers.size).toBeGreaterThan(4);
    const open = await attributions.listOpen(new Date("2026-11-01T11:00:00.000Z"));
    expect(
      open
        .filter((o) => o.appId === "com.open")
        .map((o) => o.serviceId)
        .sort(),
    ).toEqual([...ids].sort());
    expect(await attributions.listOpen(new Date("2026-11-01T10:00:00.000Z"))).toEqual([]);
  });

  it("maps a customer user id to the install that last used it, per app", async () => {
    const users = createCustomerUserMap(dynamo().doc, LOCAL_TABLE_NAMES.customerUsers);
    const later = { serviceId: "s2", seenAt: "2026-11-02T10:00:00.000Z" };
    await users.put("com.a", "u1", "s1", "2026-11-01T10:00:00.000Z");
    expect(await users.put("com.a", "u1", "s2", later.seenAt)).toEqual(later);
    // A late retry of an older event does not move the id back, and says what stands.
    expect(await users.put("com.a", "u1", "s1", "2026-11-01T12:00:00.000Z")).toEqual(later);
    expect(await users.get("com.a", "u1")).toBe("s2");
    expect(await users.get("com.b", "u1")).toBeUndefined();
    await users.put("com.a", "u2", "s2", "2026-11-02T10:00:00.000Z");
    await users.deleteInstall("com.a", "s2");
    expect(await users.get("com.a", "u1")).toBeUndefined();
    expect(await users.get("com.a", "u2")).toBeUndefined();
  });
  it("deletes only the mappings that still name the install, whatever a lagging index lists", async () => {
    const real = createCustomerUserMap(dynamo().doc, LOCAL_TABLE_NAMES.customerUsers);
    await real.put("com.lag", "u1", "s3", "2026-11-03T10:00:00.000Z");
    // The index still lists u1 under s2, the install it named before it moved to s3.
    const lagging = Object.create(dynamo().doc);
    lagging.send = async (command: Parameters<DynamoDBDocumentClient["send"]>[0]) =>
      command instanceof QueryCommand
        ? { Items: [{ customerUserKey: "com.lag#u1" }] }
        : dynamo().doc.send(command);
    await createCustomerUserMap(lagging, LOCAL_TABLE_NAMES.customerUsers).deleteInstall(
      "com.lag",
      "s2",
    );
    expect(await real.get("com.lag", "u1")).toBe("s3");
  });

  it("writes a use again when the one that refused it is deleted before it is read", async () => {
    const real = createCustomerUserMap(dynamo().doc, LOCAL_TABLE_NAMES.customerUsers);
    await real.put("com.race", "u1", "s2", "2026-11-02T10:00:00.000Z");
    // The purge lands between the refused put and the read of what stands.
    const racing = Object.create(dynamo().doc);
    racing.send = async (command: Parameters<DynamoDBDocumentClient["send"]>[0]) => {
      try {
        return await dynamo().doc.send(command);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException)
          await real.deleteInstall("com.race", "s2");
        throw error;
      }
    };
    const users = createCustomerUserMap(racing, LOCAL_TABLE_NAMES.customerUsers);
    expect(await users.put("com.race", "u1", "s1", "2026-11-01T10:00:00.000Z")).toEqual({
      serviceId: "s1",
      seenAt: "2026-11-01T10:00:00.000Z",
    });
    expect(await real.get("com.race", "u1")).toBe("s1");
  });

  it("lists an app's snapshots by app and deletes one only while it is the catalogued one", async () => {
    const { snapshots } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const ref = (appId: string, since: number, snapshotId: string) => ({
      appId,
      since,
      snapshotId,
      location: `s3://results/athena/${snapshotId}.csv`,
      createdAt: 1,
      expiresAt: 2,
      tombstoneVersion: 0,
    });
    await snapshots.put(ref("com.s", 10, "q1"));
    await snapshots.put(ref("com.s", 20, "q2"));
    await snapshots.put(ref("com.t", 10, "q3"));
    // Each snapshot once, though each is stored by its id and as its window's newest.
    const listed = await snapshots.listByApp("com.s");
    expect(listed.map((s) => s.snapshotId).sort()).toEqual(["q1", "q2"]);
    // Replaced since it was listed: the newer snapshot stays.
    await snapshots.put(ref("com.s", 20, "q4"));
    for (const snapshot of listed) await snapshots.delete(snapshot);
    expect((await snapshots.listByApp("com.s")).map((s) => s.snapshotId)).toEqual(["q4"]);
    expect(await snapshots.latest("com.s", 20)).toEqual(ref("com.s", 20, "q4"));
    expect(await snapshots.byId("com.s", 20, "q2")).toBeUndefined();
    expect(await snapshots.latest("com.t", 10)).toEqual(ref("com.t", 10, "q3"));
  });

  it("keeps a window's newest snapshot when one made before it is stored after it, and keeps entries a day past expiry", async () => {
    const { snapshots } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const ref = (snapshotId: string, createdAt: number) => ({
      appId: "com.newest",
      since: 10,
      snapshotId,
      location: `s3://results/athena/${snapshotId}.csv`,
      createdAt,
      expiresAt: createdAt + 900_000,
      tombstoneVersion: 0,
    });
    // A retry's snapshot, made after its client gave the first up, is stored first.
    await snapshots.put(ref("retry", 2_000_000));
    await snapshots.put(ref("abandoned", 1_000_000));
    expect((await snapshots.latest("com.newest", 10))?.snapshotId).toBe("retry");
    expect((await snapshots.byId("com.newest", 10, "abandoned"))?.snapshotId).toBe("abandoned");
    await snapshots.put(ref("next", 3_000_000));
    expect((await snapshots.latest("com.newest", 10))?.snapshotId).toBe("next");

    // DynamoDB's TTL reaps an entry once its time has passed: a day after the snapshot expires.
    const item = await dynamo().doc.send(
      new GetCommand({
        TableName: LOCAL_TABLE_NAMES.snapshots,
        Key: { snapshotKey: "com.newest#10" },
      }),
    );
    expect(Number(item.Item?.expiresTtl) * 1000).toBeGreaterThanOrEqual(
      3_000_000 + 900_000 + SNAPSHOT_ENTRY_GRACE_MS,
    );
  });

  it("finds one install's deletion requests by index, and an app's all", async () => {
    const { deletions } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    await deletions.create(deletionRequest("d2", "com.del", "s1", 2));
    await deletions.create(deletionRequest("d1", "com.del", "s1", 1));
    await deletions.create(deletionRequest("d3", "com.del", "s2", 3));
    // The same install id in another app is another install.
    await deletions.create(deletionRequest("d4", "com.other", "s1", 4));
    const ids = (requests: { requestId: string }[]) => requests.map((r) => r.requestId);
    expect(ids(await deletions.listByInstall("com.del", "s1"))).toEqual(["d1", "d2"]);
    expect(ids(await deletions.listByInstall("com.del", "s2"))).toEqual(["d3"]);
    expect(await deletions.listByInstall("com.del", "s3")).toEqual([]);
    expect(ids(await deletions.listByApp("com.del"))).toEqual(["d1", "d2", "d3"]);
    // The tombstones item is no request: not listed, not open, not found by id.
    expect(ids(await deletions.listOpen())).not.toContain(tombstonesKey("com.del").requestId);
    expect(await deletions.get(tombstonesKey("com.del").requestId)).toBeUndefined();
  });

  it("lists two requests whose index entries clash in dynalite, by scanning the table", async () => {
    // dynalite keys an index entry by the index key and the first six hex digits of this hash
    // of the item's key: these two request ids share them, so the by-app and open indexes
    // each keep only one of the two.
    const clashing = [
      "83690635-0986-4dac-8e20-2f0c477dcab4",
      "6b5e6255-d269-4385-9527-7a44c9311edd",
    ];
    const digits = (id: string) =>
      createHash("md5").update("Outliers").update(id).digest("hex").slice(0, 6);
    expect(new Set(clashing.map(digits)).size).toBe(1);
    const { deletions } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const [first = "", second = ""] = clashing;
    await deletions.create(deletionRequest(first, "com.clash", "s1", 1));
    await deletions.create(deletionRequest(second, "com.clash", "s2", 2));

    const fromIndex = await createDeletionStore(
      dynamo().doc,
      LOCAL_TABLE_NAMES.deletions,
    ).listByApp("com.clash");
    expect(fromIndex).toHaveLength(1);
    const ids = (requests: { requestId: string }[]) => requests.map((r) => r.requestId);
    expect(ids(await deletions.listByApp("com.clash"))).toEqual(clashing);
    expect(ids(await deletions.listOpen())).toEqual(expect.arrayContaining(clashing));
  });

  it("keeps an app's tombstones in one item: the installs with an open request, and a version", async () => {
    const { deletions } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const sorted = async (appId: string) => {
      const { serviceIds, version } = await deletions.tombstones(appId);
      return { serviceIds: [...serviceIds].sort(), version };
    };
    expect(await deletions.tombstones("com.tomb")).toEqual({ serviceIds: [], version: 0 });
    const first = deletionRequest("t1", "com.tomb", "s1", 1);
    expect(await deletions.create(first)).toBe(true);
    await deletions.create(deletionRequest("t2", "com.tomb", "s2", 2));
    expect(await sorted("com.tomb")).toEqual({ serviceIds: ["s1", "s2"], version: 2 });
    // A request that could not be stored (its id taken) adds nothing.
    expect(await deletions.create(deletionRequest("t2", "com.tomb", "s9", 3))).toBe(false);
    expect(await sorted("com.tomb")).toEqual({ serviceIds: ["s1", "s2"], version: 2 });
    // Marked again (a repeat, or an update retried after it was applied): nothing changes, the
    // version neither, so asking again withdraws no export's snapshot.
    await deletions.markTombstone(first);
    await deletions.markTombstone({ ...first, status: "in_progress" });
    expect(await sorted("com.tomb")).toEqual({ serviceIds: ["s1", "s2"], version: 2 });
    // Completed: listed by app from then on, so the version stays.
    await deletions.clearTombstone(first);
    expect(await sorted("com.tomb")).toEqual({ serviceIds: ["s2"], version: 2 });
    // Taken up by the purge, which marked it then and may have taken it out since (a repeat
    // between its two last steps): nothing is added, the version stays.
    await deletions.markTombstone({ ...first, status: "in_progress" });
    expect(await sorted("com.tomb")).toEqual({ serviceIds: ["s2"], version: 2 });
    // Marked after a create that failed after storing: added, the version moved.
    const third = deletionRequest("t3", "com.tomb", "s3", 3);
    await deletions.markTombstone(third);
    expect(await sorted("com.tomb")).toEqual({ serviceIds: ["s2", "s3"], version: 3 });
    await deletions.clearTombstone(deletionRequest("t2", "com.tomb", "s2", 2));
    await deletions.clearTombstone(third);
    expect(await sorted("com.tomb")).toEqual({ serviceIds: [], version: 3 });
    // An install with nothing to withdraw: added, the version kept; marked again with the
    // version asked for, it is there already, and nothing moves.
    const unknown = deletionRequest("t4", "com.tomb", "s4", 4);
    expect(await deletions.create(unknown, { moveVersion: false })).toBe(true);
    await deletions.markTombstone(unknown);
    expect(await sorted("com.tomb")).toEqual({ serviceIds: ["s4"], version: 3 });
    // A new app's first such request makes an item its completion can take the install from.
    const fresh = deletionRequest("t5", "com.tomb.fresh", "f1", 5);
    await deletions.create(fresh, { moveVersion: false });
    expect(await sorted("com.tomb.fresh")).toEqual({ serviceIds: ["f1"], version: 0 });
    await deletions.clearTombstone(fresh);
    expect(await sorted("com.tomb.fresh")).toEqual({ serviceIds: [], version: 0 });
  });

  /** Ids of the longest kind, so that some 3,200 fill a tombstones item's 400 KB. */
  const longId = (prefix: string, i: number) =>
    `${prefix}-${String(i).padStart(5, "0")}-`.padEnd(128, "x");

  /** Adds the installs to the app's item as `create` does, until it is full; those that fit. */
  const fillTombstones = async (appId: string, serviceIds: readonly string[]) => {
    const add = (ids: readonly string[]) =>
      dynamo().doc.send(
        new UpdateCommand({
          TableName: LOCAL_TABLE_NAMES.deletions,
          Key: tombstonesKey(appId),
          UpdateExpression: "ADD serviceIds :ids, version :one",
          ExpressionAttributeValues: { ":ids": new Set(ids), ":one": 1 },
        }),
      );
    const added: string[] = [];
    for (let start = 0; start < serviceIds.length; start += 100) {
      const chunk = serviceIds.slice(start, start + 100);
      try {
        await add(chunk);
        added.push(...chunk);
      } catch {
        // The last room, one at a time: the item ends up within one id of its limit.
        for (const id of chunk) {
          try {
            await add([id]);
            added.push(id);
          } catch {
            return added;
          }
        }
      }
    }
    throw new Error("the item never filled up");
  };

  /** Stores requests as `create` does, without their tombstones. */
  const storeInBulk = async (requests: readonly DeletionRequest[]) => {
    for (let start = 0; start < requests.length; start += 25) {
      const chunk = requests.slice(start, start + 25);
      await dynamo().doc.send(
        new BatchWriteCommand({
          RequestItems: {
            [LOCAL_TABLE_NAMES.deletions]: chunk.map((request) => ({
              PutRequest: { Item: request },
            })),
          },
        }),
      );
    }
  };

  it("makes room in a full tombstones item by shedding installs the by-app index long lists", async () => {
    const deletions = createDeletionStore(dynamo().doc, LOCAL_TABLE_NAMES.deletions);
    const appId = "com.full";
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    // Requests made five minutes ago, stored and listed by app. (Not thousands: dynalite keys
    // an index's entries by six hex digits of their item's key, and drops those that clash.)
    const older = Array.from({ length: 300 }, (_, i) => ({
      ...deletionRequest(`full-${i}`, appId, longId("older", i), 0),
      requestedAt: ago(300_000),
    }));
    await storeInBulk(older);
    // Then installs of requests the index does not list yet, until the item is full.
    const held = await fillTombstones(appId, [
      ...older.map((request) => request.serviceId),
      ...Array.from({ length: 3_200 }, (_, i) => longId("newer", i)),
    ]);
    const newer = held.filter((serviceId) => serviceId.startsWith("newer-"));
    expect(newer.length).toBeGreaterThan(2_500);
    const full = await deletions.tombstones(appId);
    expect(full.serviceIds).toHaveLength(older.length + newer.length);

    // A new request does not fit as the item is: the older installs are shed, then its own added.
    const newcomer = longId("newcomer", 0);
    await deletions.create({
      ...deletionRequest("full-new", appId, newcomer, 0),
      requestedAt: ago(0),
    });
    const after = await deletions.tombstones(appId);
    expect(after.version).toBe(full.version + 1);
    expect([...after.serviceIds].sort()).toEqual([...newer, newcomer].sort());
    // Shed installs are still left out of every new snapshot: the index lists their requests.
    const listed = new Set((await deletions.listByApp(appId)).map((r) => r.serviceId));
    expect(older.every((request) => listed.has(request.serviceId))).toBe(true);
  }, 60_000);

  it("refuses a request while its app's tombstones item is full of requests too new to shed", async () => {
    const deletions = createDeletionStore(dynamo().doc, LOCAL_TABLE_NAMES.deletions);
    const appId = "com.full-new";
    // Listed by app, but made just now: an export's read of the index may still miss them. (Now,
    // not a few seconds back: they stay too new to shed for as long as the test may run.)
    const made = new Date().toISOString();
    const recent = Array.from({ length: 300 }, (_, i) => ({
      ...deletionRequest(`recent-${i}`, appId, longId("recent", i), 0),
      requestedAt: made,
    }));
    await storeInBulk(recent);
    await fillTombstones(appId, [
      ...recent.map((request) => request.serviceId),
      ...Array.from({ length: 3_200 }, (_, i) => longId("unlisted", i)),
    ]);
    const full = await deletions.tombstones(appId);
    await expect(
      deletions.create({
        ...deletionRequest("recent-new", appId, longId("newcomer", 1), 0),
        requestedAt: new Date().toISOString(),
      }),
    ).rejects.toThrow(/maximum allowed size/);
    expect(await deletions.tombstones(appId)).toEqual(full);
  }, 60_000);

  it("takes nothing out of an app that has no item", async () => {
    const { deletions } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    await deletions.clearTombstone(deletionRequest("p1", "com.no-item", "s1", 1));
    const stored = await dynamo().doc.send(
      new GetCommand({ TableName: LOCAL_TABLE_NAMES.deletions, Key: tombstonesKey("com.no-item") }),
    );
    expect(stored.Item).toBeUndefined();
    expect(await deletions.tombstones("com.no-item")).toEqual({ serviceIds: [], version: 0 });
  });

  it("finds each snapshot by its id, and the newest of its window", async () => {
    const { snapshots } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const ref = (snapshotId: string, since: number, createdAt: number) => ({
      appId: "com.pinned",
      since,
      snapshotId,
      location: `/snapshots/${snapshotId}.parquet`,
      createdAt,
      expiresAt: createdAt + 1_000,
      tombstoneVersion: 0,
    });
    await snapshots.put(ref("a", 5, 100));
    await snapshots.put(ref("b", 5, 200));
    await snapshots.put(ref("c", 6, 300));
    expect((await snapshots.latest("com.pinned", 5))?.snapshotId).toBe("b");
    expect(await snapshots.byId("com.pinned", 5, "a")).toEqual(ref("a", 5, 100));
    // A snapshot is found only with its own window, and only for its own app.
    expect(await snapshots.byId("com.pinned", 6, "a")).toBeUndefined();
    expect(await snapshots.byId("com.other", 5, "a")).toBeUndefined();
    expect(await snapshots.latest("com.other", 5)).toBeUndefined();
  });

  it("keeps a link's cost, changes and clears it", async () => {
    const { links } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const cpi = { model: "CPI", value: 2.5, currency: "EUR" } as const;
    const link = testLink({ deeplinkId: "CoSt0000001", appId: "com.costs", cost: cpi });
    expect(await links.create(link)).toBe(true);
    expect(await links.get(link.deeplinkId)).toEqual(link);
    const cpc = { model: "CPC", value: 0.1, currency: "USD" } as const;
    expect((await links.update(link.appId, link.deeplinkId, { cost: cpc }))?.cost).toEqual(cpc);
    expect((await links.update(link.appId, link.deeplinkId, { disabled: true }))?.cost).toEqual(
      cpc,
    );
    expect((await links.update(link.appId, link.deeplinkId, { cost: null }))?.cost).toBeNull();
    expect((await links.get(link.deeplinkId))?.cost).toBeNull();
  });

  it("lists an app's links a page at a time, a full last page naming no next one", async () => {
    const { links } = createDynamoStores(dynamo().doc, LOCAL_TABLE_NAMES);
    const ids = ["PaGe0000001", "PaGe0000002", "PaGe0000003", "PaGe0000004"];
    for (const [n, deeplinkId] of ids.entries()) {
      const createdAt = new Date(Date.UTC(2026, 10, 1, 10, n)).toISOString();
      expect(await links.create(testLink({ deeplinkId, appId: "com.pages", createdAt }))).toBe(
        true,
      );
    }
    const newestFirst = [...ids].reverse();
    const pages = async (limit: number) => {
      const seen: string[][] = [];
      let after: string | undefined;
      do {
        const page = await links.listByApp("com.pages", { limit, ...(after ? { after } : {}) });
        seen.push(page.links.map((link) => link.deeplinkId));
        after = page.next ?? undefined;
      } while (after);
      return seen;
    };
    expect(await pages(2)).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2)]);
    expect(await pages(4)).toEqual([newestFirst]);
    expect(await pages(3)).toEqual([newestFirst.slice(0, 3), newestFirst.slice(3)]);
    expect(await pages(5)).toEqual([newestFirst]);
  });

  it("keeps the cost of an attribution result, or none", async () => {
    const attributions = createAttributionStore(dynamo().doc, LOCAL_TABLE_NAMES.attributions);
    const cpi = { model: "CPI", value: 2.5, currency: "EUR" } as const;
    for (const [serviceId, cost] of [
      ["with-cost", cpi],
      ["without", null],
    ] as const) {
      await attributions.createPending({
        appId: "com.costs",
        serviceId,
        facts: installFacts(storedInstall("com.costs", serviceId), {
          ip: null,
          receivedAt: new Date("2026-11-01T10:00:01.000Z"),
        }),
        requestedAt: "2026-11-01T10:00:01.000Z",
      });
      const result = resultOf({ kind: "organic" }, null, new Date(), DEFAULT_ATTRIBUTION);
      await attributions.resolve(
        "com.costs",
        serviceId,
        { ...result, cost },
        {
          ip: null,
          userAgent: null,
        },
      );
      const stored = await attributions.get("com.costs", serviceId);
      expect(stored?.state === "resolved" && stored.result.cost).toEqual(cost);
    }
  });

  it("keeps a cost row sent twice for the same day and keys once, the later replacing it", async () => {
    const costs = createCostStore(dynamo().doc, LOCAL_TABLE_NAMES.costs);
    const row: CostRow = {
      appId: "com.costs.rows",
      day: "2026-11-02",
      mediaSource: "meta_ads",
      campaignId: "c-1",
      campaignName: "Winter Sale",
      adsetId: null,
      adsetName: null,
      adId: null,
      adName: null,
      country: null,
      amount: 120,
      currency: "EUR",
      amountUsd: 130,
      impressions: 10_000,
      clicks: 400,
      receivedAt: "2026-11-03T08:00:00.000Z",
    };
    expect(await costs.put([row])).toEqual({ replaced: 0 });
    const final = { ...row, amount: 125, amountUsd: 135.4, receivedAt: "2026-11-04T08:00:00.000Z" };
    expect(await costs.put([final])).toEqual({ replaced: 1 });
    // Another country is another row of the same day and campaign.
    expect(await costs.put([{ ...row, country: "DE" }])).toEqual({ replaced: 0 });
    const listed = await costs.listByApp(row.appId, { from: "2026-11-01", to: "2026-11-30" });
    expect(listed).toHaveLength(2);
    expect(listed.find((stored) => stored.country === null)).toEqual(final);
  });
});

describe("DynamoDB stores' requests", () => {
  /** A client that records what it is sent and answers as for a missing item. */
  const recording = () => {
    const sent: unknown[] = [];
    const doc = {
      send: async (command: unknown) => {
        sent.push(command);
        return {};
      },
    } as unknown as Parameters<typeof createTouchStore>[0];
    return { sent, doc };
  };

  it("puts the link host's one touch with PutItem, the only write its function may make", async () => {
    const { sent, doc } = recording();
    const tap = (clickId: string) => contractTouch("com.a", Date.now(), { clickId });
    const touches = createTouchStore(doc, "touches");
    await touches.put([tap("c1")]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(PutCommand);
    await touches.put([tap("c2"), tap("c3")]);
    expect(sent[1]).toBeInstanceOf(BatchWriteCommand);
  });

  it("reads links, apps, tombstones and deletion requests with strong consistency: a change is seen by the next read", async () => {
    const { sent, doc } = recording();
    const stores = createDynamoStores(doc, LOCAL_TABLE_NAMES);
    await stores.links.get("Kx3v9QpZ2aQ");
    await stores.apps.get("com.a");
    // An export page reads the tombstones: a deletion requested a moment ago is in them.
    await stores.deletions.tombstones("com.a");
    await stores.deletions.get("9b2f0c4e-6a1d-4f3b-8e2a-1c5d7e9f0a3b");
    await stores.deletions.savedPass("com.a");
    expect(sent).toHaveLength(5);
    for (const command of sent) {
      expect(command).toBeInstanceOf(GetCommand);
      expect((command as GetCommand).input.ConsistentRead).toBe(true);
    }
  });
});
