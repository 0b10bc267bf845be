import { describe, expect, it } from "vitest";
import type { App, AppStore } from "../../ports/apps.ts";
import { cachedAppStore } from "./cached-apps.ts";

const app = (enabled: boolean): App => ({
  appId: "com.a",
  name: "A",
  platform: "ios",
  enabled,
  createdAt: "t",
});

const countingStore = () => {
  let current = app(true);
  const counts = { get: 0 };
  const store: AppStore = {
    create: async () => undefined,
    list: async () => [current],
    get: async () => {
      counts.get += 1;
      return current;
    },
    update: async (_appId, change) => {
      current = await change(current);
      return current;
    },
  };
  const change = (next: App) => {
    current = next;
  };
  return { store, counts, change };
};

describe("cached app store", () => {
  it("reads an app once per time-to-live, then again", async () => {
    let now = 0;
    const { store, counts, change } = countingStore();
    const cached = cachedAppStore(store, 1_000, { now: () => now });
    expect((await cached.get("com.a"))?.enabled).toBe(true);
    change(app(false));
    now = 999;
    expect((await cached.get("com.a"))?.enabled).toBe(true);
    expect(counts.get).toBe(1);
    now = 1_000;
    expect((await cached.get("com.a"))?.enabled).toBe(false);
    expect(counts.get).toBe(2);
  });

  it("changes the app as stored, not its copy, and then forgets the app", async () => {
    const { store, change } = countingStore();
    const cached = cachedAppStore(store, 60_000);
    await cached.get("com.a");
    change({ ...app(true), name: "Renamed elsewhere" });
    const updated = await cached.update("com.a", (stored) => ({ ...stored, enabled: false }));
    expect(updated).toMatchObject({ name: "Renamed elsewhere", enabled: false });
    expect(await cached.get("com.a")).toMatchObject({ name: "Renamed elsewhere", enabled: false });
  });

  it("reads again at once when the revision moves (a change made by another process)", async () => {
    const { store, counts, change } = countingStore();
    let revision = "r1";
    const cached = cachedAppStore(store, 60_000, { revision: () => revision });
    await cached.get("com.a");
    change(app(false));
    expect((await cached.get("com.a"))?.enabled).toBe(true);
    revision = "r2";
    expect((await cached.get("com.a"))?.enabled).toBe(false);
    expect(counts.get).toBe(2);
  });
});
