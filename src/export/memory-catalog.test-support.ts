/** A snapshot catalog in memory, keyed as the DynamoDB one is, for tests of what uses one. */
import type { AppSnapshots, SnapshotCatalog, SnapshotRef } from "../ports/lake.ts";

export const memoryCatalog = (): SnapshotCatalog & AppSnapshots => {
  const latest = new Map<string, SnapshotRef>();
  const byId = new Map<string, SnapshotRef>();
  const windowOf = (appId: string, since: number) => `${appId}#${since}`;
  return {
    latest: async (appId, since) => latest.get(windowOf(appId, since)),
    byId: async (appId, since, snapshotId) => byId.get(`${windowOf(appId, since)}#${snapshotId}`),
    put: async (ref) => {
      byId.set(`${windowOf(ref.appId, ref.since)}#${ref.snapshotId}`, ref);
      const newest = latest.get(windowOf(ref.appId, ref.since));
      if (!newest || newest.createdAt <= ref.createdAt)
        latest.set(windowOf(ref.appId, ref.since), ref);
    },
    listByApp: async (appId) => [...byId.values()].filter((ref) => ref.appId === appId),
    delete: async (ref) => {
      byId.delete(`${windowOf(ref.appId, ref.since)}#${ref.snapshotId}`);
      if (latest.get(windowOf(ref.appId, ref.since))?.snapshotId === ref.snapshotId) {
        latest.delete(windowOf(ref.appId, ref.since));
      }
    },
  };
};
