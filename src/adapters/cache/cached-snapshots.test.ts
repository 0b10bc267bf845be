import { describe, expect, it } from "vitest";
import type { AppSnapshots, SnapshotCatalog, SnapshotRef } from "../../ports/lake.ts";
import { cachedSnapshotCatalog } from "./cached-snapshots.ts";

const ref = (snapshotId: string, since = 10, createdAt = 1): SnapshotRef => ({
  location: `/s/${snapshotId}`,
  appId: "a",
  since,
  snapshotId,
  createdAt,
  expiresAt: 1_000,
  tombstoneVersion: 0,
});

/** A catalog in a map, as the DynamoDB one keys it, counting its reads. */
const countingCatalog = () => {
  const latest = new Map<string, SnapshotRef>();
  const byId = new Map<string, SnapshotRef>();
  const counts = { reads: 0 };
  const store: SnapshotCatalog & AppSnapshots = {
    latest: async (appId, since) => {
      counts.reads += 1;
      return latest.get(`${appId}#${since}`);
    },
    byId: async (appId, since, id) => {
      counts.reads += 1;
      return byId.get(`${appId}#${since}#${id}`);
    },
    put: async (r) => {
      byId.set(`${r.appId}#${r.since}#${r.snapshotId}`, r);
      const newest = latest.get(`${r.appId}#${r.since}`);
      if (!newest || newest.createdAt <= r.createdAt) latest.set(`${r.appId}#${r.since}`, r);
    },
    listByApp: async () => [...byId.values()],
    delete: async (r) => {
      byId.delete(`${r.appId}#${r.since}#${r.snapshotId}`);
      const key = `${r.appId}#${r.since}`;
      if (latest.get(key)?.snapshotId === r.snapshotId) latest.delete(key);
    },
  };
  return { store, counts };
};

describe("cached snapshot catalog", () => {
  it("answers from memory what it read or wrote, absent windows and ids included", async () => {
    const { store, counts } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 100);
    expect(await cached.latest("a", 10)).toBeUndefined();
    expect(await cached.latest("a", 10)).toBeUndefined();
    expect(await cached.byId("a", 10, "s1")).toBeUndefined();
    expect(counts.reads).toBe(2);
    await cached.put(ref("s1"));
    expect(await cached.byId("a", 10, "s1")).toEqual(ref("s1"));
    expect(counts.reads).toBe(2);
    // The window's newest is the store's choice: read once after the put, then remembered.
    expect(await cached.latest("a", 10)).toEqual(ref("s1"));
    expect(await cached.latest("a", 10)).toEqual(ref("s1"));
    expect(counts.reads).toBe(3);
  });

  it("answers the window's newest the store kept when one made earlier is stored after it", async () => {
    const { store } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 100);
    await cached.put(ref("retry", 10, 2_000));
    expect((await cached.latest("a", 10))?.snapshotId).toBe("retry");
    await cached.put(ref("abandoned", 10, 1_000));
    expect((await cached.latest("a", 10))?.snapshotId).toBe("retry");
    expect((await cached.byId("a", 10, "abandoned"))?.snapshotId).toBe("abandoned");
  });

  it("keeps each snapshot by its id when a newer one becomes its window's newest", async () => {
    const { store } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 100);
    await cached.put(ref("s1"));
    await cached.put(ref("s2"));
    expect((await cached.latest("a", 10))?.snapshotId).toBe("s2");
    expect((await cached.byId("a", 10, "s1"))?.snapshotId).toBe("s1");
    expect(await cached.byId("a", 11, "s1")).toBeUndefined();
  });

  it("reads again after a delete, which keeps a newer snapshot as the window's newest", async () => {
    const { store } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 100);
    await cached.put(ref("s1"));
    await cached.delete(ref("s1"));
    expect(await cached.latest("a", 10)).toBeUndefined();
    expect(await cached.byId("a", 10, "s1")).toBeUndefined();
    await cached.put(ref("s2"));
    await cached.delete(ref("s1"));
    expect((await cached.latest("a", 10))?.snapshotId).toBe("s2");
  });

  it("keeps no answer read while a snapshot was put or deleted", async () => {
    const { store } = countingCatalog();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = true;
    const slow: typeof store = {
      ...store,
      latest: async (appId, since) => {
        const found = await store.latest(appId, since);
        if (holding) await held;
        return found;
      },
    };
    const cached = cachedSnapshotCatalog(slow, 100);
    // Read before the put lands, answered after it.
    const stale = cached.latest("a", 10);
    await cached.put(ref("s1"));
    holding = false;
    release();
    expect(await stale).toBeUndefined();
    expect(await cached.latest("a", 10)).toEqual(ref("s1"));
  });

  it("keeps the most recently used entries only", async () => {
    const { store, counts } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 2);
    await cached.latest("a", 1);
    await cached.latest("a", 2);
    // A hit counts as a use: (a, 2) is now the least recently used, and goes first.
    await cached.latest("a", 1);
    await cached.latest("a", 3);
    expect(counts.reads).toBe(3);
    await cached.latest("a", 1);
    expect(counts.reads).toBe(3);
    await cached.latest("a", 2);
    expect(counts.reads).toBe(4);
  });
});
