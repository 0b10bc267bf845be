/**
 * Apps read through a short-lived in-memory cache, for the ingestion path: every event batch
 * needs its app (enabled, keys), and apps change rarely. A change (switching an app off, or
 * sealing on) reaches ingestion within `ttlMs`; SDKs themselves only re-read the remote
 * configuration every hour.
 */
import type { App, AppStore } from "../../ports/apps.ts";

export const cachedAppStore = (
  store: AppStore,
  ttlMs: number,
  now: () => number = Date.now,
): AppStore => {
  const entries = new Map<string, { app: Promise<App | undefined>; expiresAt: number }>();
  return {
    ...store,
    get(appId) {
      const cached = entries.get(appId);
      if (cached && cached.expiresAt > now()) return cached.app;
      const app = store.get(appId);
      entries.set(appId, { app, expiresAt: now() + ttlMs });
      // A failed read is not remembered.
      app.catch(() => entries.delete(appId));
      return app;
    },
    async save(app) {
      await store.save(app);
      entries.delete(app.appId);
    },
  };
};
