/**
 * An app's postback and webhook configurations read through a short-lived in-memory cache, for
 * the paths that read them on every install and event batch (the triggers): most apps have
 * none, and configurations change rarely. A change made through this store empties its app's
 * entry at once; one made elsewhere reaches the cache within `ttlMs`, or at once where the
 * writer moves `revision` (the embedded runtime's CLI).
 */
import type { AppPostbackConfigs, PostbackConfigStore } from "../../ports/postbacks.ts";
import { followRevision } from "./revision.ts";

export const cachedPostbackConfigs = (
  store: PostbackConfigStore,
  ttlMs: number,
  options: { now?: () => number; revision?: () => string } = {},
): PostbackConfigStore => {
  const { now = Date.now, revision = () => "" } = options;
  const entries = new Map<string, { configs: Promise<AppPostbackConfigs>; expiresAt: number }>();
  const follow = followRevision(revision, () => entries.clear());
  const changed = async <T>(appId: string, change: Promise<T>): Promise<T> => {
    try {
      return await change;
    } finally {
      entries.delete(appId);
    }
  };
  return {
    ...store,
    listByApp(appId) {
      follow();
      const cached = entries.get(appId);
      if (cached && cached.expiresAt > now()) return cached.configs;
      const configs = store.listByApp(appId);
      entries.set(appId, { configs, expiresAt: now() + ttlMs });
      // A failed read is not remembered.
      configs.catch(() => entries.delete(appId));
      return configs;
    },
    putPartner: (config) => changed(config.appId, store.putPartner(config)),
    putWebhook: (config) => changed(config.appId, store.putWebhook(config)),
    delete: (appId, target, id) => changed(appId, store.delete(appId, target, id)),
    putSettings: (appId, settings) => changed(appId, store.putSettings(appId, settings)),
  };
};
