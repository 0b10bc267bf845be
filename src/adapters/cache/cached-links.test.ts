import { describe, expect, it } from "vitest";
import { testLink } from "../../links/link.test-support.ts";
import type { Link, LinkChange, LinkStore } from "../../ports/links.ts";
import { cachedLinkStore } from "./cached-links.ts";

const link = testLink({
  deeplinkId: "AAAAAAAAAAA",
  appId: "a",
  url: "http://127.0.0.1:8788/AAAAAAAAAAA",
  mediaSource: "x",
});

const counting = () => {
  let current: Link | undefined = link;
  const store = {
    reads: 0,
    create: async () => true,
    get: async () => {
      store.reads++;
      return current;
    },
    listByApp: async () => ({ links: [], next: null }),
    update: async (_app: string, _id: string, change: LinkChange) => {
      current = current && { ...current, ...change };
      return current;
    },
  } satisfies LinkStore & { reads: number };
  return store;
};

describe("cachedLinkStore", () => {
  it("reads a link once per ttl, unknown ids included", async () => {
    let now = 0;
    const store = counting();
    const cached = cachedLinkStore(store, 1_000, { now: () => now });
    await cached.get("AAAAAAAAAAA");
    await cached.get("AAAAAAAAAAA");
    await cached.get("BBBBBBBBBBB");
    await cached.get("BBBBBBBBBBB");
    expect(store.reads).toBe(2);
    now = 1_001;
    await cached.get("AAAAAAAAAAA");
    expect(store.reads).toBe(3);
  });

  it("forgets a link changed through it at once", async () => {
    const store = counting();
    const cached = cachedLinkStore(store, 60_000, { now: () => 0 });
    expect((await cached.get("AAAAAAAAAAA"))?.disabled).toBe(false);
    await cached.update("a", "AAAAAAAAAAA", { disabled: true });
    expect((await cached.get("AAAAAAAAAAA"))?.disabled).toBe(true);
  });

  it("reads every link again once the revision moves (a change made by another process)", async () => {
    const store = counting();
    let revision = "1";
    const cached = cachedLinkStore(store, 60_000, { now: () => 0, revision: () => revision });
    expect((await cached.get("AAAAAAAAAAA"))?.disabled).toBe(false);
    await store.update("a", "AAAAAAAAAAA", { disabled: true });
    expect((await cached.get("AAAAAAAAAAA"))?.disabled).toBe(false);
    revision = "2";
    expect((await cached.get("AAAAAAAAAAA"))?.disabled).toBe(true);
    expect(store.reads).toBe(2);
  });
});
