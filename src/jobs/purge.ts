/** The purge job's composition (its work: src/deletion/deletions.ts). */
import { purgeOpenRequests } from "../deletion/deletions.ts";
import { composition } from "../functions/adapters.ts";
import { logger } from "../logging/logger.ts";
import type { JobRun } from "./job-run.ts";
import { jobOf } from "./jobs.ts";

const PURGE = /* @__PURE__ */ jobOf("purge");

/**
 * The purge job on both runtimes. Firehose cannot be flushed: it delivers a file when its
 * buffer fills or its buffering interval ends, so on AWS a request is purged only once it is
 * older than the minimum request age (the buffering interval plus a delivery margin) and a
 * younger one waits for a later run; the embedded streams are flushed first instead.
 */
export const purgeJob = /* @__PURE__ */ composition(
  { id: PURGE.id, uses: PURGE.aws.uses },
  ({ tables, lakePurger, flushLake, settings }, runtime): JobRun<number> => ({
    run: () =>
      purgeOpenRequests({
        deletions: tables.deletions,
        installs: tables.installs,
        customerUsers: tables.customerUsers,
        attributions: tables.attributions,
        outbox: tables.outbox,
        deliveryLog: tables.deliveryLog,
        lake: lakePurger,
        flush: flushLake,
        ...(runtime.kind === "aws" ? { minAgeMs: settings.minRequestAgeMs } : {}),
      }),
    report: (completed) => logger.info("purge deletions", { completed }),
  }),
);
