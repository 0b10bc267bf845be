/**
 * The sweep: attributions a crash or a failure left unfinished (unresolved, or resolved with
 * their lake rows unwritten) are queued again once they are a few minutes old. On AWS a
 * scheduled Lambda, on the embedded runtime a background job.
 */
import type { AttributionStore } from "../ports/attributions.ts";
import type { WorkQueue } from "../ports/work-queue.ts";
import type { AttributionJob } from "../workers/attribution-worker.ts";

/**
 * How old an unfinished attribution must be before it is queued again: longer than a job takes
 * with its retries under way, so a sweep rarely doubles one (a double is harmless).
 */
export const SWEEP_AGE_MS = 5 * 60_000;

/**
 * Queues again the attributions requested before `before` and still unfinished: by default
 * those older than SWEEP_AGE_MS; at a start, all requested before it (a crash's leftovers).
 */
export const sweepAttributions = async (
  deps: {
    readonly attributions: Pick<AttributionStore, "listOpen">;
    readonly queue: WorkQueue<AttributionJob>;
  },
  before = new Date(Date.now() - SWEEP_AGE_MS),
): Promise<number> => {
  const open = await deps.attributions.listOpen(before);
  if (open.length > 0) await deps.queue.send(open);
  return open.length;
};
