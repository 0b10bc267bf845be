import { describe, expect, it } from "vitest";
import { storedInstall } from "../../../test/support/installs.ts";
import type { Install, InstallStore } from "../../ports/installs.ts";
import { cachedInstallStore } from "./cached-installs.ts";
import { readGate } from "./read-gate.test-support.ts";

const install = (serviceId: string): Install => storedInstall("com.a", serviceId);

const memoryStore = () => {
  const stored = new Map<string, Install>();
  const reads = { count: 0 };
  const gate = readGate();
  // Holds the deletions and consent changes, as the store's own turn for the install does
  // while it reads before it writes.
  const writes = readGate();
  const store: InstallStore = {
    async putIfAbsent(i) {
      const existing = stored.get(i.serviceId);
      if (existing) {
        await gate.passed();
        return { install: existing, created: false };
      }
      stored.set(i.serviceId, i);
      return { install: i, created: true };
    },
    async get(_appId, serviceId) {
      reads.count += 1;
      const found = stored.get(serviceId);
      await gate.passed();
      return found;
    },
    async update(_appId, serviceId, { consent }) {
      await writes.passed();
      const found = stored.get(serviceId);
      if (!found) return undefined;
      const updated = { ...found, consent: consent ?? found.consent };
      stored.set(serviceId, updated);
      return updated;
    },
    async delete(_appId, serviceId) {
      await writes.passed();
      stored.delete(serviceId);
    },
  };
  return { store, reads, gate, writes };
};

describe("cached install store", () => {
  it("reads an existing install once, and never caches a missing one", async () => {
    const { store, reads } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    expect(await cached.get("com.a", "s1")).toBeUndefined();
    await store.putIfAbsent(install("s1"));
    expect(await cached.get("com.a", "s1")).toEqual(install("s1"));
    expect(await cached.get("com.a", "s1")).toEqual(install("s1"));
    expect(reads.count).toBe(2);
  });

  it("forgets an install it deletes", async () => {
    const { store } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    await cached.putIfAbsent(install("s1"));
    await cached.delete("com.a", "s1");
    expect(await cached.get("com.a", "s1")).toBeUndefined();
  });

  it("does not keep what a read found when a deletion overlapped it", async () => {
    const { store, gate } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    await store.putIfAbsent(install("s1"));
    const release = gate.hold();
    // The read finds the install, then the purge deletes it before the read returns.
    const read = cached.get("com.a", "s1");
    await cached.delete("com.a", "s1");
    release();
    expect(await read).toEqual(install("s1"));
    expect(await cached.get("com.a", "s1")).toBeUndefined();
  });

  it("does not keep what a read found while a deletion was under way", async () => {
    const { store, writes } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    await store.putIfAbsent(install("s1"));
    const release = writes.hold();
    // The purge has begun; a read made meanwhile finds the install not yet gone, and returns
    // before the purge does.
    const deleting = cached.delete("com.a", "s1");
    expect(await cached.get("com.a", "s1")).toEqual(install("s1"));
    expect(await cached.putIfAbsent(install("s1"))).toMatchObject({ created: false });
    release();
    await deleting;
    expect(await cached.get("com.a", "s1")).toBeUndefined();
  });

  it("does not keep what a read begun before a deletion found, returned while it was under way", async () => {
    const { store, gate, writes } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    await store.putIfAbsent(install("s1"));
    const releaseRead = gate.hold();
    const read = cached.get("com.a", "s1");
    const releaseDeletion = writes.hold();
    const deleting = cached.delete("com.a", "s1");
    releaseRead();
    expect(await read).toEqual(install("s1"));
    releaseDeletion();
    await deleting;
    expect(await cached.get("com.a", "s1")).toBeUndefined();
  });

  it("keeps neither of two overlapping consent changes, nor a read made during the second", async () => {
    const stored = new Map<string, Install>([["s1", install("s1")]]);
    const turns: (() => void)[] = [];
    let reads = 0;
    const store: InstallStore = {
      putIfAbsent: async (i) => ({ install: stored.get(i.serviceId) ?? i, created: false }),
      get: async (_appId, serviceId) => {
        reads += 1;
        return stored.get(serviceId);
      },
      // Each change waits for its own turn, then writes.
      update: async (_appId, serviceId, { consent }) => {
        await new Promise<void>((resolve) => turns.push(resolve));
        const before = stored.get(serviceId) ?? install(serviceId);
        const updated = { ...before, consent: consent ?? before.consent };
        stored.set(serviceId, updated);
        return updated;
      },
      delete: async () => undefined,
    };
    const cached = cachedInstallStore(store, 10);
    const given = { ...withdrawn, adUserData: true, updatedAt: "2026-11-02T09:00:00.000Z" };
    const first = cached.update("com.a", "s1", { consent: given });
    const second = cached.update("com.a", "s1", { consent: withdrawn });
    // The second change's write lands first, then the first's: the store holds the first's.
    turns[1]?.();
    await second;
    turns[0]?.();
    await first;
    expect((await cached.get("com.a", "s1"))?.consent).toEqual(given);
    expect(reads).toBe(1);

    // A change under way after another ended: a read meanwhile is not kept.
    const third = cached.update("com.a", "s1", { consent: withdrawn });
    const fourth = cached.update("com.a", "s1", { consent: given });
    turns[2]?.();
    await third;
    await cached.get("com.a", "s1");
    turns[3]?.();
    await fourth;
    expect((await cached.get("com.a", "s1"))?.consent).toEqual(given);
    expect(reads).toBe(3);
  });

  it("answers an install's new consent, not the one it kept", async () => {
    const { store, reads } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    await cached.putIfAbsent(install("s1"));
    const consent = {
      gdprApplies: true,
      adUserData: false,
      adPersonalization: null,
      tcfString: null,
      updatedAt: "2026-11-02T10:00:00.000Z",
    };
    expect((await cached.update("com.a", "s1", { consent: consent }))?.consent).toEqual(consent);
    expect((await cached.get("com.a", "s1"))?.consent).toEqual(consent);
    expect(reads.count).toBe(0);
    expect(await cached.update("com.a", "unknown", { consent: consent })).toBeUndefined();
  });

  /** A consent withdrawn after the install was read. */
  const withdrawn = {
    gdprApplies: true,
    adUserData: false,
    adPersonalization: false,
    tcfString: null,
    updatedAt: "2026-11-02T10:00:00.000Z",
  };

  it("does not keep what a read found when a consent change overlapped it", async () => {
    const { store, gate } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    await store.putIfAbsent(install("s1"));
    const release = gate.hold();
    // The read finds the install's consent as it was, then the withdrawal is stored before
    // the read returns.
    const read = cached.get("com.a", "s1");
    await cached.update("com.a", "s1", { consent: withdrawn });
    release();
    expect((await read)?.consent).toEqual(install("s1").consent);
    expect((await cached.get("com.a", "s1"))?.consent).toEqual(withdrawn);
  });

  it("does not keep what a read found while a consent change was under way", async () => {
    const { store, writes } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    await store.putIfAbsent(install("s1"));
    const release = writes.hold();
    const changing = cached.update("com.a", "s1", { consent: withdrawn });
    expect((await cached.get("com.a", "s1"))?.consent).toEqual(install("s1").consent);
    release();
    await changing;
    expect((await cached.get("com.a", "s1"))?.consent).toEqual(withdrawn);
  });

  it("does not keep the install a repeated first open found when a consent change overlapped it", async () => {
    const { store, gate } = memoryStore();
    const cached = cachedInstallStore(store, 10);
    await store.putIfAbsent(install("s1"));
    const release = gate.hold();
    // An SDK's retry of its first open finds the install as it was; the withdrawal lands first.
    const retried = cached.putIfAbsent(install("s1"));
    await cached.update("com.a", "s1", { consent: withdrawn });
    release();
    expect((await retried).created).toBe(false);
    expect((await cached.get("com.a", "s1"))?.consent).toEqual(withdrawn);
  });

  it("drops the oldest entries beyond its size", async () => {
    const { store, reads } = memoryStore();
    const cached = cachedInstallStore(store, 2);
    for (const id of ["s1", "s2", "s3"]) await cached.putIfAbsent(install(id));
    await cached.get("com.a", "s3");
    await cached.get("com.a", "s2");
    expect(reads.count).toBe(0);
    await cached.get("com.a", "s1");
    expect(reads.count).toBe(1);
  });
});
