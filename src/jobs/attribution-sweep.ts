/** The attribution sweep's composition (its work: src/attribution/sweep.ts). */
import { SWEEP_AGE_MS, sweepAttributions } from "../attribution/sweep.ts";
import { composition } from "../functions/adapters.ts";
import { logger } from "../logging/logger.ts";
import { visibilityTimeoutSeconds } from "../workers/worker.ts";
import { ATTRIBUTION_WORKER } from "../workers/workers.ts";
import type { JobRun } from "./job-run.ts";
import { jobOf } from "./jobs.ts";

const SWEEP = /* @__PURE__ */ jobOf("attribution-sweep");

/**
 * How old an unfinished attribution is before the sweep on AWS queues it again. SQS tries a
 * failed job again once its message shows again, a visibility timeout later, so a job's
 * attempts take minutes there, not the seconds they take embedded: the sweep waits them out, so
 * that what it first queues again is what the queue lost or gave up on, not a job whose first
 * attempts are under way (nor a backlog's, which alarms well before this). One that keeps
 * failing past it is queued again at each sweep, as embedded.
 */
export const AWS_SWEEP_AGE_MS =
  ATTRIBUTION_WORKER.maxAttempts * visibilityTimeoutSeconds(ATTRIBUTION_WORKER) * 1000 +
  SWEEP_AGE_MS;

export const attributionSweepJob = /* @__PURE__ */ composition(
  { id: SWEEP.id, uses: SWEEP.aws.uses },
  ({ tables, queues }): JobRun<number> => ({
    run: () =>
      sweepAttributions(
        { attributions: tables.attributions, queue: queues.attribute },
        new Date(Date.now() - AWS_SWEEP_AGE_MS),
      ),
    report: (queued) => {
      if (queued > 0) logger.info("attributions queued again", { queued });
    },
  }),
);
