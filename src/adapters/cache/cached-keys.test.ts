import { describe, expect, it } from "vitest";
import type { KeyStore, StoredKey } from "../../ports/apps.ts";
import { cachedKeyStore } from "./cached-keys.ts";
import { readGate } from "./read-gate.test-support.ts";

const key = (revokedAt?: string): StoredKey => ({
  keyId: "k1",
  appId: "com.a",
  kind: "sdk",
  hash: "h",
  scopes: ["ingest"],
  createdAt: "2026-11-01T00:00:00.000Z",
  ...(revokedAt ? { revokedAt } : {}),
});

// A store another process can change behind the cache's back, counting its reads.
const sharedStore = () => {
  const keys = new Map<string, StoredKey>([["k1", key()]]);
  const counts = { get: 0 };
  const gate = readGate();
  const store: KeyStore = {
    put: async (k) => void keys.set(k.keyId, k),
    get: async (id) => {
      counts.get += 1;
      const found = keys.get(id);
      await gate.passed();
      return found;
    },
    listByApp: async () => [...keys.values()],
    revoke: async (id, at) => {
      const revoked = { ...key(), revokedAt: at };
      keys.set(id, revoked);
      return revoked;
    },
  };
  const revokeElsewhere = () => keys.set("k1", key("2026-11-02T00:00:00.000Z"));
  return { store, counts, revokeElsewhere, holdReads: gate.hold };
};

describe("cached key store", () => {
  it("reads a key once while the revision stands", async () => {
    const { store, counts } = sharedStore();
    const cached = cachedKeyStore(store, () => "r1");
    await cached.get("k1");
    await cached.get("k1");
    expect(counts.get).toBe(1);
  });

  it("sees a revocation made elsewhere as soon as the revision moves", async () => {
    const { store, revokeElsewhere } = sharedStore();
    let revision = "r1";
    const cached = cachedKeyStore(store, () => revision);
    expect((await cached.get("k1"))?.revokedAt).toBeUndefined();
    revokeElsewhere();
    revision = "r2";
    expect((await cached.get("k1"))?.revokedAt).toBe("2026-11-02T00:00:00.000Z");
  });

  it("keeps nothing read across a revision change", async () => {
    const { store, counts, revokeElsewhere, holdReads } = sharedStore();
    let revision = "r1";
    const cached = cachedKeyStore(store, () => revision);
    const release = holdReads();
    const inFlight = cached.get("k1");
    // Revoked and marked while the first read (of the old key) is under way.
    revokeElsewhere();
    revision = "r2";
    release();
    expect((await inFlight)?.revokedAt).toBeUndefined();
    expect((await cached.get("k1"))?.revokedAt).toBe("2026-11-02T00:00:00.000Z");
    expect(counts.get).toBe(2);
  });

  it("keeps no key read before a change another request saw first", async () => {
    const { store, revokeElsewhere, holdReads } = sharedStore();
    let revision = "r1";
    const cached = cachedKeyStore(store, () => revision);
    const release = holdReads();
    const inFlight = cached.get("k1");
    revokeElsewhere();
    revision = "r2";
    // Another key's check arrives after the mark, and is the one to see it.
    const other = cached.get("k2");
    release();
    await inFlight;
    await other;
    expect((await cached.get("k1"))?.revokedAt).toBe("2026-11-02T00:00:00.000Z");
  });

  it("forgets a key it puts itself", async () => {
    const { store } = sharedStore();
    const cached = cachedKeyStore(store, () => "r1");
    await cached.get("k1");
    await cached.put({ ...key(), scopes: ["ingest", "config"] });
    expect((await cached.get("k1"))?.scopes).toEqual(["ingest", "config"]);
  });

  it("reads a key again after a minute when no age limit is given", async () => {
    const { store, counts } = sharedStore();
    let now = 0;
    const cached = cachedKeyStore(store, () => "r1", { now: () => now });
    await cached.get("k1");
    now = 59_999;
    await cached.get("k1");
    expect(counts.get).toBe(1);
    now = 60_000;
    await cached.get("k1");
    expect(counts.get).toBe(2);
  });

  it("forgets a key it revokes itself, and never keeps a key not found", async () => {
    const { store, counts } = sharedStore();
    const cached = cachedKeyStore(store, () => "r1");
    await cached.get("k1");
    await cached.revoke("k1", "2026-11-03T00:00:00.000Z");
    expect((await cached.get("k1"))?.revokedAt).toBe("2026-11-03T00:00:00.000Z");
    await cached.get("missing");
    await cached.get("missing");
    expect(counts.get).toBe(4);
  });

  it("reads a key again once it is older than its age limit, mark or no mark", async () => {
    const { store, counts, revokeElsewhere } = sharedStore();
    let now = 0;
    const cached = cachedKeyStore(store, () => "r1", { maxAgeMs: 1_000, now: () => now });
    await cached.get("k1");
    revokeElsewhere();
    now = 999;
    expect((await cached.get("k1"))?.revokedAt).toBeUndefined();
    now = 1_000;
    expect((await cached.get("k1"))?.revokedAt).toBe("2026-11-02T00:00:00.000Z");
    expect(counts.get).toBe(2);
  });
});
