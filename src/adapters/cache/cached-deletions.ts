/**
 * An app's deletion requests and tombstones held in memory, for the embedded runtime: its one
 * process is the only writer (the API creates requests, the purge moves them on), and every
 * export page reads the app's tombstones. One install's requests are answered from the by-app
 * list, which is held anyway: ingestion asks that of every batch, so each list is grouped by
 * install once.
 */
import type { DeletionRequest, DeletionStore, Tombstones } from "../../ports/deletions.ts";

export const cachedDeletionStore = (store: DeletionStore): DeletionStore => {
  const byApp = new Map<string, readonly DeletionRequest[]>();
  const tombstonesByApp = new Map<string, Tombstones>();
  // Bumped after every write, so a read that overlapped one is not remembered.
  let writes = 0;
  /** `read` of the store, remembered in `cache` unless a write overlapped it. */
  const remembered =
    <T>(cache: Map<string, T>, read: (appId: string) => Promise<T>) =>
    async (appId: string): Promise<T> => {
      const cached = cache.get(appId);
      if (cached) return cached;
      const before = writes;
      const value = await read(appId);
      if (writes === before) cache.set(appId, value);
      return value;
    };
  const listByApp = remembered(byApp, (appId) => store.listByApp(appId));
  // Keyed by the remembered list itself: a new list (after a write) is grouped anew.
  const grouped = new WeakMap<readonly DeletionRequest[], Map<string, DeletionRequest[]>>();
  const byInstallOf = (requests: readonly DeletionRequest[]) => {
    let groups = grouped.get(requests);
    if (!groups) {
      groups = new Map();
      for (const request of requests) {
        const group = groups.get(request.serviceId);
        if (group) group.push(request);
        else groups.set(request.serviceId, [request]);
      }
      grouped.set(requests, groups);
    }
    return groups;
  };
  /** Runs a write, then forgets what it may have changed. */
  const writing = async <T>(appId: string | undefined, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } finally {
      writes += 1;
      if (appId === undefined) {
        byApp.clear();
        tombstonesByApp.clear();
      } else {
        byApp.delete(appId);
        tombstonesByApp.delete(appId);
      }
    }
  };
  return {
    ...store,
    listByApp: async (appId) => [...(await listByApp(appId))],
    tombstones: remembered(tombstonesByApp, (appId) => store.tombstones(appId)),
    listByInstall: async (appId, serviceId) => [
      ...(byInstallOf(await listByApp(appId)).get(serviceId) ?? []),
    ],
    create: (request, options) => writing(request.appId, () => store.create(request, options)),
    markTombstone: (request, options) =>
      writing(request.appId, () => store.markTombstone(request, options)),
    clearTombstone: (request) => writing(request.appId, () => store.clearTombstone(request)),
    setStatus: (requestId, status, at) =>
      writing(undefined, () => store.setStatus(requestId, status, at)),
  };
};
