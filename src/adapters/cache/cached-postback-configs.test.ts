import { describe, expect, it } from "vitest";
import {
  type AppPostbackConfigs,
  DEFAULT_POSTBACK_SETTINGS,
  type PostbackConfigStore,
  type StoredWebhookConfig,
} from "../../ports/postbacks.ts";
import { cachedPostbackConfigs } from "./cached-postback-configs.ts";

const webhook = (appId: string, id: string): StoredWebhookConfig => ({
  id,
  appId,
  url: "https://backend.example/hooks",
  sealedSecret: "kf1.x",
  previous: null,
  enabled: true,
  updatedAt: "2026-11-24T12:00:00.000Z",
});

/** A store in memory that counts its reads. */
const memoryStore = () => {
  const hooks = new Map<string, StoredWebhookConfig[]>();
  let reads = 0;
  const store: PostbackConfigStore = {
    async listByApp(appId): Promise<AppPostbackConfigs> {
      reads++;
      return {
        partners: [],
        webhooks: hooks.get(appId) ?? [],
        settings: DEFAULT_POSTBACK_SETTINGS,
      };
    },
    getPartner: async () => undefined,
    getWebhook: async () => undefined,
    putPartner: async () => {},
    async putWebhook(config) {
      hooks.set(config.appId, [...(hooks.get(config.appId) ?? []), config]);
    },
    delete: async () => false,
    putSettings: async () => {},
  };
  return { store, reads: () => reads };
};

describe("cached postback configurations", () => {
  it("reads an app's configurations once within the lifetime, then again", async () => {
    const { store, reads } = memoryStore();
    let clock = 0;
    const cached = cachedPostbackConfigs(store, 5_000, { now: () => clock });
    await cached.listByApp("a");
    await cached.listByApp("a");
    expect(reads()).toBe(1);
    clock = 5_001;
    await cached.listByApp("a");
    expect(reads()).toBe(2);
  });

  it("sees a change made through it at once, and one marked by the revision", async () => {
    const { store } = memoryStore();
    let revision = "1";
    const cached = cachedPostbackConfigs(store, 60_000, { revision: () => revision });
    expect((await cached.listByApp("a")).webhooks).toEqual([]);
    await cached.putWebhook(webhook("a", "one"));
    expect((await cached.listByApp("a")).webhooks).toEqual([webhook("a", "one")]);
    // Written elsewhere (another process): unseen until the revision moves.
    await store.putWebhook(webhook("a", "two"));
    expect((await cached.listByApp("a")).webhooks).toHaveLength(1);
    revision = "2";
    expect((await cached.listByApp("a")).webhooks).toHaveLength(2);
  });

  it("reads an app again after any change made through it, failed or not", async () => {
    const { store, reads } = memoryStore();
    const failing: PostbackConfigStore = {
      ...store,
      putSettings: async () => {
        throw new Error("the store is down");
      },
    };
    const cached = cachedPostbackConfigs(failing, 60_000);
    const changes: (() => Promise<unknown>)[] = [
      () => cached.putPartner({ appId: "a" } as Parameters<PostbackConfigStore["putPartner"]>[0]),
      () => cached.delete("a", "webhook", "one"),
      () => cached.putSettings("a", DEFAULT_POSTBACK_SETTINGS).catch(() => undefined),
    ];
    await cached.listByApp("a");
    for (const [index, change] of changes.entries()) {
      // Each change costs the next read one of the store: its entry was forgotten.
      await change();
      await cached.listByApp("a");
      expect(reads()).toBe(index + 2);
    }
  });
});
