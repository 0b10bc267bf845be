/**
 * An app's postback and webhook configurations read through a short-lived in-memory cache, for
 * the paths that read them on every install and event batch (the triggers): most apps have
 * none, and configurations change rarely. A change made through this store empties its app's
 * entry at once; one made elsewhere reaches the cache within `ttlMs`, or at once where the
 * writer moves `revision` (the embedded runtime's CLI).
 */
import type { PostbackConfigStore } from "../../ports/postbacks.ts";
import { type ReadThroughOptions, readThrough } from "./read-through.ts";

export const cachedPostbackConfigs = (
  store: PostbackConfigStore,
  ttlMs: number,
  options: ReadThroughOptions = {},
): PostbackConfigStore => {
  const configs = readThrough((appId: string) => store.listByApp(appId), ttlMs, options);
  /** A change's outcome, once its app's entry is forgotten, however it ended. */
  const changed = async <T>(appId: string, change: Promise<T>): Promise<T> => {
    try {
      return await change;
    } finally {
      configs.forget(appId);
    }
  };
  return {
    ...store,
    listByApp: (appId) => configs.get(appId),
    putPartner: (config) => changed(config.appId, store.putPartner(config)),
    putWebhook: (config) => changed(config.appId, store.putWebhook(config)),
    delete: (appId, target, id) => changed(appId, store.delete(appId, target, id)),
    putSettings: (appId, settings) => changed(appId, store.putSettings(appId, settings)),
  };
};
