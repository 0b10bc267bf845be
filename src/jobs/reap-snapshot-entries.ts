/**
 * Forgets export snapshot entries a day past their lifetime. DynamoDB's TTL does it on AWS; the
 * embedded runtime's store has no TTL, so without this job every export ever made would keep
 * its two entries in the snapshots table. A page that names a reaped snapshot is refused as one
 * naming an unknown snapshot, as on AWS once the TTL has passed.
 */
import type { AppStore } from "../ports/apps.ts";
import { type AppSnapshots, SNAPSHOT_ENTRY_GRACE_MS } from "../ports/lake.ts";

export interface ReapSnapshotEntriesDeps {
  readonly apps: Pick<AppStore, "list">;
  readonly snapshots: AppSnapshots;
  readonly now?: () => Date;
}

/** Deletes the entries of every app's snapshots expired before the grace; returns how many. */
export const reapSnapshotEntries = async (deps: ReapSnapshotEntriesDeps): Promise<number> => {
  const cutoff = (deps.now?.() ?? new Date()).getTime() - SNAPSHOT_ENTRY_GRACE_MS;
  let reaped = 0;
  for (const app of await deps.apps.list()) {
    for (const ref of await deps.snapshots.listByApp(app.appId)) {
      if (ref.expiresAt >= cutoff) continue;
      await deps.snapshots.delete(ref);
      reaped += 1;
    }
  }
  return reaped;
};
