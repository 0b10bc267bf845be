/**
 * Apps read through a short-lived in-memory cache, for the ingestion path: every event batch
 * needs its app (enabled, keys), and apps change rarely. A change (switching an app off, or
 * sealing on) reaches ingestion within `ttlMs`; SDKs themselves only re-read the remote
 * configuration every hour. Where the writer can say so (the embedded runtime's CLI moves
 * `revision` on), a change empties the cache at once.
 */
import type { AppStore } from "../../ports/apps.ts";
import { type ReadThroughOptions, readThrough } from "./read-through.ts";

export const cachedAppStore = (
  store: AppStore,
  ttlMs: number,
  options: ReadThroughOptions = {},
): AppStore => {
  const apps = readThrough((appId: string) => store.get(appId), ttlMs, options);
  return {
    ...store,
    get: (appId) => apps.get(appId),
    // Past the cache: a change is applied to the app as stored, never to a copy kept here.
    async update(appId, change) {
      const updated = await store.update(appId, change);
      apps.forget(appId);
      return updated;
    },
  };
};
