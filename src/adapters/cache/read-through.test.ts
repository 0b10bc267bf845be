import { describe, expect, it } from "vitest";
import { cachedValue } from "./cached-value.ts";
import { readThrough } from "./read-through.ts";

/** A store of numbered values by key, counting its reads; `fail` makes the next read fail. */
const counting = () => {
  const reads: string[] = [];
  let version = 0;
  let failing = 0;
  const load = async (key: string) => {
    reads.push(key);
    if (failing > 0) {
      failing -= 1;
      throw new Error("the store is down");
    }
    return `${key}@${version}`;
  };
  return {
    load,
    reads,
    change: () => {
      version += 1;
    },
    fail: (times = 1) => {
      failing = times;
    },
  };
};

describe("values read through memory", () => {
  it("reads a key once per time-to-live, to the millisecond", async () => {
    let now = 0;
    const store = counting();
    const cache = readThrough(store.load, 1_000, { now: () => now });
    expect(await cache.get("a")).toBe("a@0");
    store.change();
    now = 999;
    expect(await cache.get("a")).toBe("a@0");
    now = 1_000;
    expect(await cache.get("a")).toBe("a@1");
    expect(store.reads).toEqual(["a", "a"]);
  });

  it("shares one read among the gets that ask while it runs", async () => {
    const store = counting();
    const cache = readThrough(store.load, 1_000);
    const both = await Promise.all([cache.get("a"), cache.get("a"), cache.get("b")]);
    expect(both).toEqual(["a@0", "a@0", "b@0"]);
    expect(store.reads).toEqual(["a", "b"]);
  });

  it("remembers no failed read, and lets a failed one forget no later entry", async () => {
    let now = 0;
    const store = counting();
    const cache = readThrough(store.load, 1_000, { now: () => now });
    store.fail();
    await expect(cache.get("a")).rejects.toThrow("the store is down");
    expect(await cache.get("a")).toBe("a@0");
    expect(store.reads).toEqual(["a", "a"]);

    // A read that fails after a later one took its place leaves the later one.
    now = 5_000;
    store.fail();
    const failing = cache.get("b");
    cache.forget("b");
    const later = cache.get("b");
    await expect(failing).rejects.toThrow();
    await later;
    expect(await cache.get("b")).toBe("b@0");
    expect(store.reads).toEqual(["a", "a", "b", "b"]);
  });

  it("forgets a key at once, and every key when the revision moves", async () => {
    const store = counting();
    let revision = "r1";
    const cache = readThrough(store.load, 60_000, { revision: () => revision });
    await cache.get("a");
    await cache.get("b");
    store.change();
    cache.forget("a");
    expect(await cache.get("a")).toBe("a@1");
    expect(await cache.get("b")).toBe("b@0");
    revision = "r2";
    expect(await cache.get("b")).toBe("b@1");
  });

  it("keeps the most recently used keys only, past its bound", async () => {
    const store = counting();
    const cache = readThrough(store.load, 60_000, { maxEntries: 2 });
    await cache.get("a");
    await cache.get("b");
    await cache.get("a");
    await cache.get("c");
    expect(store.reads).toEqual(["a", "b", "c"]);
    await cache.get("a");
    await cache.get("b");
    expect(store.reads).toEqual(["a", "b", "c", "b"]);
  });

  it("keeps 100,000 keys unless told otherwise", async () => {
    const store = counting();
    const cache = readThrough(store.load, 60_000);
    for (let key = 0; key <= 100_000; key++) await cache.get(String(key));
    await cache.get("1");
    expect(store.reads).toHaveLength(100_001);
    await cache.get("0");
    expect(store.reads).toHaveLength(100_002);
  });
});

describe("one value read through memory", () => {
  it("is read once per time-to-live, again after a failure, and at once when the revision moves", async () => {
    let now = 0;
    let revision = "r1";
    let reads = 0;
    let failing = true;
    const value = cachedValue(
      async () => {
        reads += 1;
        if (failing) throw new Error("down");
        return reads;
      },
      1_000,
      { now: () => now, revision: () => revision },
    );
    await expect(value()).rejects.toThrow("down");
    failing = false;
    expect(await value()).toBe(2);
    now = 999;
    expect(await value()).toBe(2);
    revision = "r2";
    expect(await value()).toBe(3);
    now = 1_999;
    expect(await value()).toBe(4);
  });
});
