/**
 * The sweep: attributions a crash or a failure left unfinished (unresolved, or resolved with
 * their lake rows unwritten) are queued again once they are a few minutes old. On AWS a
 * scheduled Lambda, on the embedded runtime a background job.
 */
import type { AttributionStore } from "../ports/attributions.ts";
import type { WorkQueue } from "../ports/work-queue.ts";
import type { AttributionJob } from "../workers/attribution.ts";

/**
 * How old an unfinished attribution must be before it is queued again: longer than a job takes
 * with its retries under way, so a sweep rarely doubles one (a double is harmless).
 */
export const SWEEP_AGE_MS = 5 * 60_000;

export const sweepAttributions = async (
  deps: {
    readonly attributions: Pick<AttributionStore, "listOpen">;
    readonly queue: WorkQueue<AttributionJob>;
  },
  now = new Date(),
): Promise<number> => {
  const open = await deps.attributions.listOpen(new Date(now.getTime() - SWEEP_AGE_MS));
  if (open.length > 0) await deps.queue.send(open);
  return open.length;
};
