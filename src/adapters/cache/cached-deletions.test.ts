import { describe, expect, it } from "vitest";
import type { DeletionRequest, DeletionStore } from "../../ports/deletions.ts";
import { cachedDeletionStore } from "./cached-deletions.ts";
import { readGate } from "./read-gate.test-support.ts";

const request = (requestId: string, appId = "a"): DeletionRequest => ({
  requestId,
  appId,
  serviceId: `s-${requestId}`,
  status: "pending",
  requestedAt: "2026-11-01T00:00:00.000Z",
  completedAt: null,
});

const countingStore = () => {
  const requests = new Map<string, DeletionRequest>();
  const tombstones = new Map<string, { ids: Set<string>; version: number }>();
  const counts = { listByApp: 0, tombstones: 0 };
  const gate = readGate();
  // As the store does: a new request moves the version on, a completed one does not.
  const change = (r: DeletionRequest, add: boolean) => {
    const found = tombstones.get(r.appId) ?? { ids: new Set<string>(), version: 0 };
    if (add) found.ids.add(r.serviceId);
    else found.ids.delete(r.serviceId);
    tombstones.set(r.appId, { ids: found.ids, version: found.version + (add ? 1 : 0) });
  };
  const store: DeletionStore = {
    create: async (r) => {
      if (requests.has(r.requestId)) return false;
      requests.set(r.requestId, r);
      change(r, true);
      return true;
    },
    markTombstone: async (r) => change(r, true),
    clearTombstone: async (r) => change(r, false),
    tombstones: async (appId) => {
      counts.tombstones += 1;
      const found = tombstones.get(appId);
      const answer = { serviceIds: [...(found?.ids ?? [])], version: found?.version ?? 0 };
      await gate.passed();
      return answer;
    },
    get: async (id) => requests.get(id),
    listByApp: async (appId) => {
      counts.listByApp += 1;
      const found = [...requests.values()].filter((r) => r.appId === appId);
      await gate.passed();
      return found;
    },
    // Answered from the by-app list: the store's own query is never asked.
    listByInstall: async () => {
      throw new Error("no byInstall index");
    },
    listOpen: async () => [...requests.values()].filter((r) => r.status !== "completed"),
    setStatus: async (id, status, at) => {
      const r = requests.get(id);
      if (r) requests.set(id, { ...r, status, completedAt: status === "completed" ? at : null });
    },
    savedPass: async () => undefined,
    savePass: async () => undefined,
    clearPass: async () => undefined,
  };
  return { store, counts, hold: gate.hold };
};

describe("cached deletion store", () => {
  it("reads an app's requests once until one is created or moves on", async () => {
    const { store, counts } = countingStore();
    const cached = cachedDeletionStore(store);
    expect(await cached.listByApp("a")).toEqual([]);
    expect(await cached.listByApp("a")).toEqual([]);
    expect(counts.listByApp).toBe(1);
    await cached.create(request("r1"));
    expect((await cached.listByApp("a")).map((r) => r.requestId)).toEqual(["r1"]);
    await cached.setStatus("r1", "completed", "2026-11-01T00:01:00.000Z");
    expect((await cached.listByApp("a"))[0]?.status).toBe("completed");
    expect(counts.listByApp).toBe(3);
  });

  it("hands each caller a list of its own, which the cache does not share", async () => {
    const { store } = countingStore();
    const cached = cachedDeletionStore(store);
    await cached.create(request("r1"));
    (await cached.listByApp("a")).pop();
    (await cached.listByInstall("a", "s-r1")).pop();
    expect(await cached.listByApp("a")).toHaveLength(1);
    expect(await cached.listByInstall("a", "s-r1")).toHaveLength(1);
  });

  it("keeps no list read while a request was being created", async () => {
    const { store, hold } = countingStore();
    const cached = cachedDeletionStore(store);
    const release = hold();
    const stale = cached.listByApp("a");
    await cached.create(request("r1"));
    release();
    expect(await stale).toEqual([]);
    expect((await cached.listByApp("a")).map((r) => r.requestId)).toEqual(["r1"]);
  });

  it("answers one install's requests from the app's list, without the by-install index", async () => {
    const { store, counts } = countingStore();
    const cached = cachedDeletionStore(store);
    await cached.create(request("r1"));
    await cached.create(request("r2"));
    await cached.create(request("r3", "b"));
    expect((await cached.listByInstall("a", "s-r2")).map((r) => r.requestId)).toEqual(["r2"]);
    expect(await cached.listByInstall("a", "s-r3")).toEqual([]);
    expect(await cached.listByInstall("a", "s-r1")).toHaveLength(1);
    expect(counts.listByApp).toBe(1);
    // What is written after a read is seen by the next one.
    await cached.create({ ...request("r4"), serviceId: "s-r2" });
    expect((await cached.listByInstall("a", "s-r2")).map((r) => r.requestId)).toEqual(["r2", "r4"]);
    await cached.setStatus("r2", "completed", "2026-11-01T00:01:00.000Z");
    expect((await cached.listByInstall("a", "s-r2"))[0]?.status).toBe("completed");
  });

  it("reads an app's tombstones once until a request changes them", async () => {
    const { store, counts } = countingStore();
    const cached = cachedDeletionStore(store);
    expect(await cached.tombstones("a")).toEqual({ serviceIds: [], version: 0 });
    await cached.create(request("r1"));
    await cached.create(request("r2", "b"));
    expect(await cached.tombstones("a")).toEqual({ serviceIds: ["s-r1"], version: 1 });
    expect(await cached.tombstones("a")).toEqual({ serviceIds: ["s-r1"], version: 1 });
    expect(counts.tombstones).toBe(2);
    await cached.markTombstone(request("r1"));
    expect(await cached.tombstones("a")).toEqual({ serviceIds: ["s-r1"], version: 2 });
    await cached.clearTombstone(request("r1"));
    expect(await cached.tombstones("a")).toEqual({ serviceIds: [], version: 2 });
    expect(counts.tombstones).toBe(4);
  });

  it("keeps no tombstones read while a request was being created", async () => {
    const { store, hold } = countingStore();
    const cached = cachedDeletionStore(store);
    const release = hold();
    const stale = cached.tombstones("a");
    await cached.create(request("r1"));
    release();
    expect(await stale).toEqual({ serviceIds: [], version: 0 });
    expect(await cached.tombstones("a")).toEqual({ serviceIds: ["s-r1"], version: 1 });
  });
});
