/**
 * Deleting an install's data (the SDKs' deleteUserData). A request is a tombstone from the
 * moment it is stored: exports leave the install out at once. The purge then removes the
 * install, its customer-user mapping and its rows in the lake, and marks the request done.
 * On a runtime whose runs stop at a timeout, a pass over an app's lake that outlasts a run is
 * saved where it stopped, and the next run goes on from there.
 */

import { createHash } from "node:crypto";
import { NotFoundError } from "../domain/errors.ts";
import type { AttributionStore } from "../ports/attributions.ts";
import {
  type DeletionRequest,
  type DeletionStore,
  PASS_INSTALLS_AT_MOST,
  type SavedPass,
  type TombstoneOptions,
} from "../ports/deletions.ts";
import type { CustomerUserMap, InstallStore } from "../ports/installs.ts";
import type { LakePurger } from "../ports/lake.ts";
import type { DeliveryLog, OutboxStore } from "../ports/postbacks.ts";
import type { TouchStore } from "../ports/touches.ts";

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

/**
 * The id of an install's request number `n` (from 0): the same for every call that makes it, so
 * that two calls at once (an SDK's retry beside its first try, two app servers) store one request
 * between them. A UUID (version 8, RFC 9562) of a SHA-256 of the app, the install and `n`.
 */
export const deletionRequestId = (appId: string, serviceId: string, n: number): string => {
  const hex = createHash("sha256").update(`${appId}\n${serviceId}\n${n}`).digest("hex");
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/**
 * The installs a deletion request was made for, as an export's snapshot leaves them out
 * (src/export/export-page.ts) and the reports and the delivery log hide them: the app's
 * tombstones, which hold the newest requests at once, and every request its list holds,
 * completed ones too.
 */
export const deletedInstalls = async (
  deletions: Pick<DeletionStore, "tombstones" | "listByApp">,
  appId: string,
): Promise<string[]> => {
  const [tombstones, requests] = await Promise.all([
    deletions.tombstones(appId),
    deletions.listByApp(appId),
  ]);
  return [
    ...new Set([...tombstones.serviceIds, ...requests.map((request) => request.serviceId)]),
  ].sort();
};

/** More requests than any install makes: a store that keeps answering "taken" is broken. */
const MAX_REQUESTS_PER_INSTALL = 1_000;

export const requestDeletion = async (
  appId: string,
  serviceId: string,
  deps: { deletions: DeletionStore; installs: Pick<InstallStore, "get"> },
  now = new Date(),
): Promise<DeletionAnswer> => {
  const { deletions } = deps;
  const made = await deletions.listByInstall(appId, serviceId);
  // Exports' earlier snapshots are withdrawn only for an install that has data: the request of
  // an id the app never stored (anyone with the app's public key may make one) leaves them be.
  // An install stored after this read had sent nothing before it: its events wait for it.
  const tombstone = { moveVersion: (await deps.installs.get(appId, serviceId)) !== undefined };
  // A repeat (an SDK retry) answers the request already made, so retries cannot pile up. The
  // list may be behind (an index): the request as stored now says whether it is still open.
  const listed = made.find((d) => d.status !== "completed");
  const existing = listed && (await deletions.get(listed.requestId));
  if (existing && existing.status !== "completed") return repeated(existing, deletions, tombstone);
  // The install's next number, unless a call made it meanwhile (or the list was behind, as an
  // index can be): then that request is the answer while it is open, and the next number is
  // tried once it is completed.
  for (let n = made.length; n < made.length + MAX_REQUESTS_PER_INSTALL; n++) {
    const request: DeletionRequest = {
      requestId: deletionRequestId(appId, serviceId, n),
      appId,
      serviceId,
      status: "pending",
      requestedAt: now.toISOString(),
      completedAt: null,
    };
    if (await deletions.create(request, tombstone)) return answer(request);
    const stored = await deletions.get(request.requestId);
    if (stored && stored.status !== "completed") return repeated(stored, deletions, tombstone);
  }
  throw new Error(`No deletion request could be stored for install ${serviceId}.`);
};

/**
 * A request already made, answered again. The call that made it may have failed after storing
 * it, before its tombstone was added: exports must see it now. Marked already, it changes
 * nothing. One the purge has taken up it marked then (see purgeApp), and may have taken out
 * since, on its way to completing it: marked again, it would withdraw exports' snapshots a
 * second time and stay behind the completed request.
 */
const repeated = async (
  request: DeletionRequest,
  deletions: DeletionStore,
  tombstone: TombstoneOptions,
): Promise<DeletionAnswer> => {
  if (request.status === "pending") await deletions.markTombstone(request, tombstone);
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
  readonly attributions: Pick<AttributionStore, "get" | "delete">;
  /** Its claim on the click it was credited to. */
  readonly claims: Pick<TouchStore, "releaseClaim">;
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
  /**
   * How long (ms) the run may still take up another app, or another file of an app's lake; at 0
   * or less, the apps not begun are left open for a later run, and an app's pass under way is
   * saved where it stopped, for the next run to go on with. For a runtime that stops a run at
   * a timeout (Lambda), where an app's files may be more than one run can read. Unset: no
   * limit, and a pass always completes.
   */
  readonly remainingMs?: () => number;
  readonly now?: () => Date;
}

export interface PurgeOutcome {
  readonly completed: number;
  /**
   * Requests old enough that the run left for a later one with no failure: those of the apps it
   * had no time for, those of a pass it stopped for time, and those waiting for their app's
   * pass under way to end.
   */
  readonly deferred: number;
}

/**
 * The open requests by app, in the order the run takes the apps: first the apps none of whose
 * requests a run has taken up before, by their oldest request; then those a run took up and did
 * not complete (a failure, or a pass stopped for time, saved to go on with), by their oldest
 * too. So an app whose pass keeps failing or outlasts a run does not hold back the other apps'
 * requests.
 */
const appsInTurn = (requests: readonly DeletionRequest[]): DeletionRequest[][] => {
  const byApp = new Map<string, DeletionRequest[]>();
  const oldestFirst = [...requests].sort(
    (a, b) => Date.parse(a.requestedAt) - Date.parse(b.requestedAt),
  );
  for (const request of oldestFirst) {
    const app = byApp.get(request.appId);
    if (app) app.push(request);
    else byApp.set(request.appId, [request]);
  }
  const triedBefore = (app: readonly DeletionRequest[]) =>
    app.some((request) => request.status === "in_progress") ? 1 : 0;
  // A stable sort: each group stays by its oldest request.
  return [...byApp.values()].sort((a, b) => triedBefore(a) - triedBefore(b));
};

interface Failure {
  readonly requestId: string;
  readonly error: unknown;
}

interface AppOutcome {
  readonly completed: number;
  /** Requests the app's pass took up. */
  readonly taken: number;
  /** Requests left for a later run, not failed (see PurgeOutcome). */
  readonly deferred: number;
}

/**
 * The requests of the app's next pass: the oldest, up to the pass's bound of installs (several
 * requests of one install, which a repeat after a completion may make, go together).
 */
const firstInstalls = (requests: readonly DeletionRequest[]): DeletionRequest[] => {
  const installs = new Set<string>();
  return requests.filter((request) => {
    if (installs.size >= PASS_INSTALLS_AT_MOST && !installs.has(request.serviceId)) return false;
    installs.add(request.serviceId);
    return true;
  });
};

/**
 * The requests of the app's pass, and where its lake pass goes on from: a saved pass's, whose
 * installs it purges (the app's other requests wait for a later pass, so its requests complete
 * together when it ends); else a new one over the oldest. A saved pass none of whose requests is
 * still open has nothing left to purge for, and is dropped.
 */
const passOf = async (
  deps: PurgeDeps,
  appId: string,
  requests: readonly DeletionRequest[],
): Promise<{ requests: DeletionRequest[]; saved?: SavedPass }> => {
  // Only a run that can stop saves a pass: where none can, none is looked for.
  const saved = deps.remainingMs ? await deps.deletions.savedPass(appId) : undefined;
  if (saved) {
    const covered = new Set(saved.serviceIds);
    const inPass = requests.filter((request) => covered.has(request.serviceId));
    if (inPass.length > 0) return { requests: inPass, saved };
    await deps.deletions.clearPass(appId);
  }
  return { requests: firstInstalls(requests) };
};

/**
 * Completes one app's requests: each install's stores one by one, then its lake in one pass for
 * them all (reading the app's files is the bulk of the work, whatever the number of installs).
 * A request that fails stays open; a lake pass that fails leaves all of its requests open. A
 * pass stopped for time is saved with its installs, and its requests stay in progress; the
 * next run goes on with it (see passOf), taking each request's stores again (each step is
 * idempotent), and completes them once the pass ends.
 */
const purgeApp = async (
  deps: PurgeDeps,
  appId: string,
  requests: readonly DeletionRequest[],
  failures: Failure[],
  now: () => Date,
): Promise<AppOutcome> => {
  let pass: Awaited<ReturnType<typeof passOf>>;
  try {
    pass = await passOf(deps, appId, requests);
  } catch (error) {
    for (const request of requests) failures.push({ requestId: request.requestId, error });
    return { completed: 0, taken: requests.length, deferred: 0 };
  }
  const { saved } = pass;
  const taken = pass.requests.length;
  const waiting = requests.length - taken;
  const ready: DeletionRequest[] = [];
  /**
   * The installs whose rows the lake may hold. A request still pending whose install is not
   * stored names one the app never had (or whose earlier request purged it): no row of it can be
   * in the lake, since every row's request found its install stored, and one taken in after the
   * request is refused. It needs no pass over the app's files, which anyone with the app's
   * public key could otherwise make a run read again and again. A request a run took up before
   * is always passed: that run may have deleted its install and stopped before the lake.
   */
  const inLake = new Set<string>();
  for (const request of pass.requests) {
    try {
      const pending = request.status === "pending";
      const stored =
        !pending || (await deps.installs.get(request.appId, request.serviceId)) !== undefined;
      if (stored) inLake.add(request.serviceId);
      // Marked when it was made, unless that call failed after storing it: marked here, before
      // it is taken up, exports leave the install out from now on whatever happened then, and
      // no later repeat of the request need mark it.
      if (pending) await deps.deletions.markTombstone(request, { moveVersion: stored });
      await deps.deletions.setStatus(request.requestId, "in_progress", now().toISOString());
      await deps.installs.delete(request.appId, request.serviceId);
      // Leaves a mark of the install under each id it used (no id in clear), so that a server's
      // events for its user stay ignored after the purge, as they were before it.
      await deps.customerUsers.deleteInstall(request.appId, request.serviceId);
      // The claim first, while the attribution still names its click: after it, a later
      // install of the device from the same click is a new one, as the install is gone.
      const attribution = await deps.attributions.get(request.appId, request.serviceId);
      if (attribution?.state === "resolved") {
        const { clickId, touchTime } = attribution.result;
        if (clickId !== null && touchTime !== null) {
          await deps.claims.releaseClaim({
            appId: request.appId,
            clickId,
            serviceId: request.serviceId,
            touchTime,
          });
        }
      }
      await deps.attributions.delete(request.appId, request.serviceId);
      await deps.outbox.purgeInstall(request.appId, request.serviceId);
      await deps.deliveryLog.purgeInstall(request.appId, request.serviceId);
      ready.push(request);
    } catch (error) {
      failures.push({ requestId: request.requestId, error });
    }
  }
  if (ready.length === 0) return { completed: 0, taken, deferred: waiting };
  const { remainingMs } = deps;
  try {
    // Each request's tombstone was added when it was made: snapshots from this version on are
    // clean of them all.
    const { version } = await deps.deletions.tombstones(appId);
    // A saved pass goes on with its own installs, which its position is of; a request among
    // them whose stores failed this run stays open, as any other.
    const serviceIds = saved
      ? [...saved.serviceIds]
      : [...new Set(ready.map((request) => request.serviceId))].filter((id) => inLake.has(id));
    const { stoppedAt } =
      serviceIds.length === 0
        ? { stoppedAt: undefined }
        : await deps.lake.purgeInstalls(
            appId,
            serviceIds,
            version,
            remainingMs ? { from: saved?.position, goOn: () => remainingMs() > 0 } : undefined,
          );
    if (stoppedAt !== undefined) {
      // Out of time, not failed: the requests stay in progress for the next run.
      await deps.deletions.savePass(appId, { serviceIds, position: stoppedAt });
      return { completed: 0, taken, deferred: waiting + ready.length };
    }
    // Forgotten before its requests are completed: should completing one fail, the request is
    // taken up again by a new pass, not by this one (which would go on from its end).
    if (saved) await deps.deletions.clearPass(appId);
  } catch (error) {
    for (const request of ready) failures.push({ requestId: request.requestId, error });
    return { completed: 0, taken, deferred: waiting };
  }
  let completed = 0;
  for (const request of ready) {
    try {
      // The tombstones hold open requests only: exports find this one by app from now on.
      // Before the status, so a request whose tombstone stays (the call failed) is tried again.
      await deps.deletions.clearTombstone(request);
      await deps.deletions.setStatus(request.requestId, "completed", now().toISOString());
      completed += 1;
    } catch (error) {
      failures.push({ requestId: request.requestId, error });
    }
  }
  return { completed, taken, deferred: waiting };
};

/**
 * Completes the open requests, an app at a time (see appsInTurn), while the run has time: a
 * failed request stays open and is tried again, and so do those of the apps left out of time;
 * an app's pass stopped for time goes on at a later run from where it stopped. The first app is
 * always taken, and its pass gets one file on at least, so each run gets on.
 */
export const purgeOpenRequests = async (deps: PurgeDeps): Promise<PurgeOutcome> => {
  const now = deps.now ?? (() => new Date());
  const { minAgeMs, remainingMs } = deps;
  const listed = await deps.deletions.listOpen();
  const open =
    minAgeMs === undefined
      ? listed
      : listed.filter((r) => now().getTime() - Date.parse(r.requestedAt) >= minAgeMs);
  if (open.length > 0) await deps.flush();
  let completed = 0;
  let taken = 0;
  let deferred = 0;
  // One request that keeps failing must not hold back the others: it stays open, the rest go
  // on, and the run reports the failures at its end.
  const failures: Failure[] = [];
  for (const requests of appsInTurn(open)) {
    const appId = requests[0]?.appId;
    if (appId === undefined) continue;
    if (taken > 0 && remainingMs !== undefined && remainingMs() <= 0) {
      deferred += requests.length;
      continue;
    }
    const outcome = await purgeApp(deps, appId, requests, failures, now);
    taken += outcome.taken;
    completed += outcome.completed;
    deferred += outcome.deferred;
  }
  if (failures.length > 0) {
    // Each cause in the message too: a log line of the error shows the message alone.
    const causes = failures.map(
      ({ requestId, error }) =>
        `${requestId}: ${error instanceof Error ? error.message : String(error)}`,
    );
    const left = deferred > 0 ? `; ${deferred} left for the next run` : "";
    throw new AggregateError(
      failures.map((failure) => failure.error),
      `${failures.length} of ${taken} deletions failed (${causes.join("; ")})${left}`,
    );
  }
  return { completed, deferred };
};
