/**
 * Deleting an install's data (the SDKs' deleteUserData). A request is a tombstone from the
 * moment it is stored: exports leave the install out at once. The purge then removes the
 * install, its customer-user mapping and its rows in the lake, and marks the request done.
 */

import { randomUUID } from "node:crypto";
import { NotFoundError } from "../domain/errors.ts";
import type { AttributionStore } from "../ports/attributions.ts";
import type { DeletionRequest, DeletionStore } from "../ports/deletions.ts";
import type { CustomerUserMap, InstallStore } from "../ports/installs.ts";
import type { LakePurger } from "../ports/lake.ts";
import type { DeliveryLog, OutboxStore } from "../ports/postbacks.ts";

export interface DeletionAnswer {
  request_id: string;
  service_id: string;
  status: DeletionRequest["status"];
  requested_at: string;
  completed_at: string | null;
}

const answer = (request: DeletionRequest): DeletionAnswer => ({
  request_id: request.requestId,
  service_id: request.serviceId,
  status: request.status,
  requested_at: request.requestedAt,
  completed_at: request.completedAt,
});

export const requestDeletion = async (
  appId: string,
  serviceId: string,
  deletions: DeletionStore,
  now = new Date(),
): Promise<DeletionAnswer> => {
  // A repeat (an SDK retry) answers the request already made, so retries cannot pile up.
  const existing = (await deletions.listByInstall(appId, serviceId)).find(
    (d) => d.status !== "completed",
  );
  if (existing) {
    // The first call may have failed after storing it, before its tombstone was added: exports
    // must see it now, whether or not the purge has taken the request up.
    await deletions.markTombstone(existing);
    return answer(existing);
  }
  const request: DeletionRequest = {
    requestId: randomUUID(),
    appId,
    serviceId,
    status: "pending",
    requestedAt: now.toISOString(),
    completedAt: null,
  };
  await deletions.create(request);
  return answer(request);
};

/** A request of the caller's app; another app's is as unknown as a missing one. */
export const deletionStatus = async (
  appId: string,
  requestId: string,
  deletions: DeletionStore,
): Promise<DeletionAnswer> => {
  const request = await deletions.get(requestId);
  if (!request || request.appId !== appId) {
    throw new NotFoundError(`No deletion request ${requestId} for this app.`);
  }
  return answer(request);
};

export interface PurgeDeps {
  readonly deletions: DeletionStore;
  readonly installs: InstallStore;
  readonly customerUsers: CustomerUserMap;
  /** The install's attribution: its result, and while pending what matching needed. */
  readonly attributions: Pick<AttributionStore, "delete">;
  /** Its postbacks' and webhooks' sends, and their attempts' records (URLs may hold its ids). */
  readonly outbox: Pick<OutboxStore, "purgeInstall">;
  readonly deliveryLog: Pick<DeliveryLog, "purgeInstall">;
  readonly lake: LakePurger;
  /** Delivers whatever the streams hold, so no row of the install arrives after its purge. */
  readonly flush: () => Promise<void>;
  /**
   * Requests younger than this (ms) are left for a later run. For a runtime whose `flush`
   * cannot force its streams out (Firehose on AWS), so rows sent before the request have
   * landed in the lake before its files are rewritten. Unset: every open request is taken.
   */
  readonly minAgeMs?: number;
  readonly now?: () => Date;
}

/** Completes every open request, oldest first; a failed one stays open and is tried again. */
export const purgeOpenRequests = async (deps: PurgeDeps): Promise<number> => {
  const now = deps.now ?? (() => new Date());
  const { minAgeMs } = deps;
  const listed = await deps.deletions.listOpen();
  const open =
    minAgeMs === undefined
      ? listed
      : listed.filter((r) => now().getTime() - Date.parse(r.requestedAt) >= minAgeMs);
  if (open.length > 0) await deps.flush();
  let completed = 0;
  const failures: { requestId: string; error: unknown }[] = [];
  for (const request of open) {
    // One request that keeps failing must not hold back the others: it stays open, the rest
    // go on, and the run reports the failures at its end.
    try {
      await deps.deletions.setStatus(request.requestId, "in_progress", now().toISOString());
      await deps.installs.delete(request.appId, request.serviceId);
      await deps.customerUsers.deleteInstall(request.appId, request.serviceId);
      await deps.attributions.delete(request.appId, request.serviceId);
      await deps.outbox.purgeInstall(request.appId, request.serviceId);
      await deps.deliveryLog.purgeInstall(request.appId, request.serviceId);
      // Its tombstone was added when the request was made: snapshots from this version on are
      // clean of it.
      const { version } = await deps.deletions.tombstones(request.appId);
      await deps.lake.purgeInstall(request.appId, request.serviceId, version);
      // The tombstones hold open requests only: exports find this one by app from now on. Before
      // the status, so a request whose tombstone stays (the call failed) is tried again.
      await deps.deletions.clearTombstone(request);
      await deps.deletions.setStatus(request.requestId, "completed", now().toISOString());
      completed += 1;
    } catch (error) {
      failures.push({ requestId: request.requestId, error });
    }
  }
  if (failures.length > 0) {
    // Each cause in the message too: a log line of the error shows the message alone.
    const causes = failures.map(
      ({ requestId, error }) =>
        `${requestId}: ${error instanceof Error ? error.message : String(error)}`,
    );
    throw new AggregateError(
      failures.map((failure) => failure.error),
      `${failures.length} of ${open.length} deletions failed (${causes.join("; ")})`,
    );
  }
  return completed;
};
