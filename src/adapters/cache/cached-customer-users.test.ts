import { describe, expect, it } from "vitest";
import type { CustomerUserMap, CustomerUserUse } from "../../ports/installs.ts";
import { cachedCustomerUserMap } from "./cached-customer-users.ts";
import { readGate } from "./read-gate.test-support.ts";

// A store keeping each id's latest use by event time, and the other installs' latest uses, as
// the DynamoDB one does, counting writes.
const memoryStore = () => {
  const uses = new Map<string, CustomerUserUse>();
  const others = new Map<string, Map<string, string>>();
  const counts = { puts: 0, gets: 0 };
  const gate = readGate();
  const keepOther = (key: string, use: CustomerUserUse) => {
    const kept = others.get(key) ?? new Map<string, string>();
    if ((kept.get(use.serviceId) ?? "") <= use.seenAt) kept.set(use.serviceId, use.seenAt);
    others.set(key, kept);
  };
  const store: CustomerUserMap = {
    async put(appId, customerUserId, serviceId, seenAt) {
      counts.puts += 1;
      const key = `${appId}#${customerUserId}`;
      const stored = uses.get(key);
      if (!stored || stored.seenAt <= seenAt) {
        uses.set(key, { serviceId, seenAt });
        if (stored && stored.serviceId !== serviceId) keepOther(key, stored);
      } else if (stored.serviceId !== serviceId) {
        keepOther(key, { serviceId, seenAt });
      }
      return uses.get(key) ?? { serviceId, seenAt };
    },
    async otherInstalls(appId, customerUserId) {
      const kept = others.get(`${appId}#${customerUserId}`) ?? new Map<string, string>();
      return [...kept].sort((a, b) => (a[1] < b[1] ? 1 : -1)).map(([serviceId]) => serviceId);
    },
    async get(appId, customerUserId) {
      counts.gets += 1;
      const found = uses.get(`${appId}#${customerUserId}`)?.serviceId;
      await gate.passed();
      return found;
    },
    async deleteInstall(appId, serviceId) {
      for (const [key, use] of uses) {
        if (key.startsWith(`${appId}#`) && use.serviceId === serviceId) uses.delete(key);
      }
      for (const [key, kept] of others) if (key.startsWith(`${appId}#`)) kept.delete(serviceId);
    },
  };
  return { store, uses, counts, holdReads: gate.hold };
};

const at = (minute: number, second = 0) =>
  `2026-11-01T10:${String(minute).padStart(2, "0")}:${String(second).padStart(2, "0")}.000Z`;

describe("cached customer-user map", () => {
  it("writes a signed-in install's uses once a minute, and knows the latest meanwhile", async () => {
    const { store, uses, counts } = memoryStore();
    const cached = cachedCustomerUserMap(store);
    await cached.put("com.a", "u1", "s1", at(0));
    await cached.put("com.a", "u1", "s1", at(0, 20));
    expect(await cached.put("com.a", "u1", "s1", at(0, 40))).toEqual({
      serviceId: "s1",
      seenAt: at(0, 40),
    });
    expect(counts.puts).toBe(1);
    expect(uses.get("com.a#u1")?.seenAt).toBe(at(0));
    await cached.put("com.a", "u1", "s1", at(1, 0));
    expect(counts.puts).toBe(2);
    expect(uses.get("com.a#u1")?.seenAt).toBe(at(1, 0));
  });

  it("writes another install's later use at once, and never an earlier one", async () => {
    const { store, uses, counts } = memoryStore();
    const cached = cachedCustomerUserMap(store);
    await cached.put("com.a", "u1", "s1", at(0));
    await cached.put("com.a", "u1", "s1", at(0, 30)); // in memory only
    await cached.put("com.a", "u1", "s2", at(0, 40));
    expect(uses.get("com.a#u1")).toEqual({ serviceId: "s2", seenAt: at(0, 40) });
    // Between the first install's latest use (known in memory only) and now: it cannot stand.
    await cached.put("com.a", "u1", "s1", at(0, 10));
    expect(uses.get("com.a#u1")?.serviceId).toBe("s2");
    expect(counts.puts).toBe(2);
    expect(await cached.get("com.a", "u1")).toBe("s2");
    expect(counts.gets).toBe(0);
  });

  it("keeps what the store says stands when it knew a later use", async () => {
    const { store, counts } = memoryStore();
    await store.put("com.a", "u1", "s2", at(5));
    const cached = cachedCustomerUserMap(store);
    expect(await cached.put("com.a", "u1", "s1", at(1))).toEqual({
      serviceId: "s2",
      seenAt: at(5),
    });
    expect(await cached.get("com.a", "u1")).toBe("s2");
    // Now known: another use earlier than the one that stands is not even written.
    const writes = counts.puts;
    await cached.put("com.a", "u1", "s1", at(2));
    expect(counts.puts).toBe(writes);
    expect(counts.gets).toBe(0);
  });

  it("reads a mapping once, and forgets every mapping when an install's are deleted", async () => {
    const { store, counts } = memoryStore();
    await store.put("com.a", "u1", "s1", at(0));
    const cached = cachedCustomerUserMap(store);
    expect(await cached.get("com.a", "u1")).toBe("s1");
    expect(await cached.get("com.a", "u1")).toBe("s1");
    expect(await cached.get("com.a", "nobody")).toBeUndefined();
    expect(counts.gets).toBe(2);
    await cached.deleteInstall("com.a", "s1");
    expect(await cached.get("com.a", "u1")).toBeUndefined();
  });

  it("keeps nothing read across a deletion of the install", async () => {
    const { store, holdReads } = memoryStore();
    await store.put("com.a", "u1", "s1", at(0));
    const cached = cachedCustomerUserMap(store);
    const release = holdReads();
    const reading = cached.get("com.a", "u1");
    await cached.deleteInstall("com.a", "s1");
    release();
    expect(await reading).toBe("s1"); // read before the deletion
    expect(await cached.get("com.a", "u1")).toBeUndefined();
  });

  it("keeps other ids' uses held in memory when another install is deleted", async () => {
    const { store, uses } = memoryStore();
    const cached = cachedCustomerUserMap(store);
    await cached.put("com.a", "u1", "s1", at(0));
    await cached.put("com.a", "u1", "s1", at(0, 50)); // in memory only
    await cached.deleteInstall("com.a", "s9");
    // Earlier than the held use: it cannot stand, though the store alone would take it.
    await cached.put("com.a", "u1", "s2", at(0, 20));
    expect(await cached.get("com.a", "u1")).toBe("s1");
    expect(uses.get("com.a#u1")?.serviceId).toBe("s1");
  });

  it("tells the store once of another install's use earlier than the latest, after that latest", async () => {
    const { store, uses, counts } = memoryStore();
    const cached = cachedCustomerUserMap(store);
    await cached.put("com.a", "u1", "phone", at(0));
    await cached.put("com.a", "u1", "phone", at(0, 50)); // in memory only
    // The tablet's events, dated before the phone's latest: the phone's latest is written
    // first, so the tablet's use cannot take the mapping over in the store.
    await cached.put("com.a", "u1", "tablet", at(0, 20));
    expect(uses.get("com.a#u1")).toEqual({ serviceId: "phone", seenAt: at(0, 50) });
    expect(await cached.otherInstalls("com.a", "u1")).toEqual(["tablet"]);
    expect(counts.puts).toBe(3);
    // Told once: its next uses, still earlier, stay in memory.
    await cached.put("com.a", "u1", "tablet", at(0, 30));
    expect(counts.puts).toBe(3);
    expect(await cached.get("com.a", "u1")).toBe("phone");
    // A later use of the tablet takes over, and the phone is one of the others (the tablet's
    // earlier use is still listed, after it).
    await cached.put("com.a", "u1", "tablet", at(2));
    expect(await cached.otherInstalls("com.a", "u1")).toEqual(["phone", "tablet"]);
    await cached.deleteInstall("com.a", "phone");
    expect(await cached.otherInstalls("com.a", "u1")).toEqual(["tablet"]);
  });

  it("asks the store itself for a purged mapping's mark, whatever it holds", async () => {
    const { store, counts } = memoryStore();
    const cached = cachedCustomerUserMap(store);
    await cached.put("com.a", "u1", "s1", at(0));
    await cached.get("com.a", "u1", { purged: true });
    expect(counts.gets).toBe(1);
  });

  it("forgets, of an install's deletion, that app's mappings alone", async () => {
    const { store, counts } = memoryStore();
    const cached = cachedCustomerUserMap(store);
    await cached.put("com.a", "u1", "tablet", at(0));
    await cached.put("com.b", "u1", "phone", at(0));
    await cached.put("com.b", "u1", "phone", at(0, 50)); // in memory only
    await cached.put("com.b", "u1", "tablet", at(0, 20)); // the store told once
    await cached.put("com.b", "u2", "tablet", at(0));
    await cached.deleteInstall("com.a", "tablet");
    expect(await cached.get("com.b", "u1")).toBe("phone");
    expect(await cached.get("com.b", "u2")).toBe("tablet");
    expect(counts.gets).toBe(0);
    // The tablet's use under the other app is still known to be told.
    const puts = counts.puts;
    await cached.put("com.b", "u1", "tablet", at(0, 30));
    expect(counts.puts).toBe(puts);
  });

  it("keeps no mapping read while an install's deletion runs", async () => {
    const { store } = memoryStore();
    let deleting: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      deleting = resolve;
    });
    const slow: CustomerUserMap = {
      ...store,
      deleteInstall: async (appId, serviceId) => {
        await held;
        await store.deleteInstall(appId, serviceId);
      },
    };
    await store.put("com.a", "u1", "s1", at(0));
    const cached = cachedCustomerUserMap(slow);
    const deletion = cached.deleteInstall("com.a", "s1");
    // Read while the store has yet to delete it: found, and not kept past the deletion.
    expect(await cached.get("com.a", "u1")).toBe("s1");
    deleting();
    await deletion;
    expect(await cached.get("com.a", "u1")).toBeUndefined();
  });

  it("writes the first use after a mapping was only read", async () => {
    const { store, uses } = memoryStore();
    await store.put("com.a", "u1", "s1", at(0));
    const cached = cachedCustomerUserMap(store);
    await cached.get("com.a", "u1");
    await cached.put("com.a", "u1", "s1", at(0, 10));
    expect(uses.get("com.a#u1")?.seenAt).toBe(at(0, 10));
  });
});
