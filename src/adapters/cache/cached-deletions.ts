/**
 * An app's deletion requests held in memory, for the embedded runtime: its one process is the
 * only writer (the API creates requests, the purge moves them on), and every export page and
 * first open reads the app's tombstones.
 */
import type { DeletionRequest, DeletionStore } from "../../ports/deletions.ts";

export const cachedDeletionStore = (store: DeletionStore): DeletionStore => {
  const byApp = new Map<string, DeletionRequest[]>();
  // Bumped after every write, so a read that overlapped one is not remembered.
  let writes = 0;
  return {
    ...store,
    async listByApp(appId) {
      const cached = byApp.get(appId);
      if (cached) return [...cached];
      const before = writes;
      const requests = await store.listByApp(appId);
      if (writes === before) byApp.set(appId, requests);
      return [...requests];
    },
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
