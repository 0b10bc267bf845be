import { describe, expect, it } from "vitest";
import type { AppSnapshots, SnapshotCatalog, SnapshotRef } from "../../ports/lake.ts";
import { cachedSnapshotCatalog } from "./cached-snapshots.ts";

const ref = (snapshotId: string, since = 10): SnapshotRef => ({
  location: `/s/${snapshotId}`,
  appId: "a",
  since,
  snapshotId,
  createdAt: 1,
  expiresAt: 1_000,
  tombstoneVersion: 0,
});

const countingCatalog = () => {
  const refs = new Map<string, SnapshotRef>();
  const counts = { get: 0 };
  const store: SnapshotCatalog & AppSnapshots = {
    get: async (appId, since) => {
      counts.get += 1;
      return refs.get(`${appId}#${since}`);
    },
    put: async (r) => void refs.set(`${r.appId}#${r.since}`, r),
    claim: async (r) => {
      const key = `${r.appId}#${r.since}`;
      const standing = refs.get(key) ?? r;
      refs.set(key, standing);
      return standing;
    },
    listByApp: async () => [...refs.values()],
    delete: async (r) => {
      const key = `${r.appId}#${r.since}`;
      if (refs.get(key)?.snapshotId === r.snapshotId) refs.delete(key);
    },
  };
  return { store, counts, refs };
};

describe("cached snapshot catalog", () => {
  it("answers from memory what it read or wrote, absent pairs included", async () => {
    const { store, counts } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 100);
    expect(await cached.get("a", 10)).toBeUndefined();
    expect(await cached.get("a", 10)).toBeUndefined();
    expect(await cached.claim(ref("s1"))).toEqual(ref("s1"));
    expect(await cached.get("a", 10)).toEqual(ref("s1"));
    expect(counts.get).toBe(1);
  });

  it("remembers the snapshot that stands when a claim loses", async () => {
    const { store } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 100);
    await store.put(ref("s0"));
    expect((await cached.claim(ref("s1"))).snapshotId).toBe("s0");
    expect((await cached.get("a", 10))?.snapshotId).toBe("s0");
  });

  it("reads again after a delete, which keeps a newer snapshot", async () => {
    const { store } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 100);
    await cached.claim(ref("s1"));
    await cached.delete(ref("s1"));
    expect(await cached.get("a", 10)).toBeUndefined();
    await cached.put(ref("s2"));
    await cached.delete(ref("s1"));
    expect((await cached.get("a", 10))?.snapshotId).toBe("s2");
  });

  it("keeps the most recently used pairs only", async () => {
    const { store, counts } = countingCatalog();
    const cached = cachedSnapshotCatalog(store, 2);
    await cached.get("a", 1);
    await cached.get("a", 2);
    // A hit counts as a use: (a, 2) is now the least recently used, and goes first.
    await cached.get("a", 1);
    await cached.get("a", 3);
    expect(counts.get).toBe(3);
    await cached.get("a", 1);
    expect(counts.get).toBe(3);
    await cached.get("a", 2);
    expect(counts.get).toBe(4);
  });
});
