/** The attribution sweep as a scheduled job (its work: ./sweep.ts). */
import { composition } from "../functions/adapters.ts";
import type { JobRun } from "../jobs/job-run.ts";
import { jobOf } from "../jobs/jobs.ts";
import { logger } from "../logging/logger.ts";
import { sweepAttributions } from "./sweep.ts";

const SWEEP = /* @__PURE__ */ jobOf("attribution-sweep");

export const attributionSweepJob = /* @__PURE__ */ composition(
  { id: SWEEP.id, uses: SWEEP.aws.uses },
  ({ tables, queues }): JobRun<number> => ({
    run: () => sweepAttributions({ attributions: tables.attributions, queue: queues.attribute }),
    report: (queued) => {
      if (queued > 0) logger.info("attributions queued again", { queued });
    },
  }),
);
