/** The attribution sweep's composition (its work: src/attribution/sweep.ts). */
import { sweepAttributions } from "../attribution/sweep.ts";
import { composition } from "../functions/adapters.ts";
import { logger } from "../logging/logger.ts";
import type { JobRun } from "./job-run.ts";
import { jobOf } from "./jobs.ts";

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
