/**
 * An app's deletion requests held in memory, for the embedded runtime: its one process is the
 * only writer (the API creates requests, the purge moves them on), and every export page reads
 * the app's tombstones. One install's requests are answered from the same list, so a data
 * directory made before the by-install index existed never needs it.
 */
import type { DeletionRequest, DeletionStore } from "../../ports/deletions.ts";

export const cachedDeletionStore = (store: DeletionStore): DeletionStore => {
  const byApp = new Map<string, DeletionRequest[]>();
  // Bumped after every write, so a read that overlapped one is not remembered.
  let writes = 0;
  const listByApp = async (appId: string): Promise<readonly DeletionRequest[]> => {
    const cached = byApp.get(appId);
    if (cached) return cached;
    const before = writes;
    const requests = await store.listByApp(appId);
    if (writes === before) byApp.set(appId, requests);
    return requests;
  };
  return {
    ...store,
    listByApp: async (appId) => [...(await listByApp(appId))],
    async newestRequestAt(appId) {
      let newest: string | undefined;
      // ISO 8601 UTC times: their text orders as they do.
      for (const { requestedAt } of await listByApp(appId)) {
        if (newest === undefined || requestedAt > newest) newest = requestedAt;
      }
      return newest;
    },
    listByInstall: async (appId, serviceId) =>
      (await listByApp(appId)).filter((request) => request.serviceId === serviceId),
    async create(request) {
      try {
        await store.create(request);
      } finally {
        writes += 1;
        byApp.delete(request.appId);
      }
    },
    async setStatus(requestId, status, at) {
      try {
        await store.setStatus(requestId, status, at);
      } finally {
        writes += 1;
        byApp.clear();
      }
    },
  };
};
