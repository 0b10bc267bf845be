/**
 * Apps read through a short-lived in-memory cache, for the ingestion path: every event batch
 * needs its app (enabled, keys), and apps change rarely. A change (switching an app off, or
 * sealing on) reaches ingestion within `ttlMs`; SDKs themselves only re-read the remote
 * configuration every hour. Where the writer can say so (the embedded runtime's CLI moves
 * `revision` on), a change empties the cache at once.
 */
import type { App, AppStore } from "../../ports/apps.ts";
import { followRevision } from "./revision.ts";

export const cachedAppStore = (
  store: AppStore,
  ttlMs: number,
  options: { now?: () => number; revision?: () => string } = {},
): AppStore => {
  const { now = Date.now, revision = () => "" } = options;
  const entries = new Map<string, { app: Promise<App | undefined>; expiresAt: number }>();
  const follow = followRevision(revision, () => entries.clear());
  return {
    ...store,
    get(appId) {
      follow();
      const cached = entries.get(appId);
      if (cached && cached.expiresAt > now()) return cached.app;
      const app = store.get(appId);
      entries.set(appId, { app, expiresAt: now() + ttlMs });
      // A failed read is not remembered.
      app.catch(() => entries.delete(appId));
      return app;
    },
    // Past the cache: a change is applied to the app as stored, never to a copy kept here.
    async update(appId, change) {
      const updated = await store.update(appId, change);
      entries.delete(appId);
      return updated;
    },
  };
};
