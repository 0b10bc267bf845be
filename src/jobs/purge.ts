/** The purge job's composition (its work: src/deletion/deletions.ts). */
import { type PurgeOutcome, purgeOpenRequests } from "../deletion/deletions.ts";
import { composition } from "../functions/adapters.ts";
import { logger } from "../logging/logger.ts";
import type { JobRun } from "./job-run.ts";
import { jobOf } from "./jobs.ts";

const PURGE = /* @__PURE__ */ jobOf("purge");

/**
 * The time before the function's timeout after which no further app is taken up and an app's
 * pass over its files takes up no further file: what the files under way (16 at most, two of
 * them whole rewrites) and the saving of where the pass stopped may take. The next run goes on
 * with the pass from there, after the apps none has taken up (src/deletion/deletions.ts).
 */
const PURGE_TIME_MARGIN_MS = 2 * 60_000;

/**
 * The purge job on both runtimes. Firehose cannot be flushed: it delivers a file when its
 * buffer fills or its buffering interval ends, so on AWS a request is purged only once it is
 * older than the minimum request age (the buffering interval plus a delivery margin) and a
 * younger one waits for a later run; the embedded streams are flushed first instead. On AWS a
 * run also stops taking up apps, and an app's pass stops taking up files, once the invocation
 * is near its timeout: the apps' requests are left open for the next run, which goes on with
 * the pass where it stopped.
 */
export const purgeJob = /* @__PURE__ */ composition(
  { id: PURGE.id, uses: PURGE.aws.uses },
  ({ tables, lakePurger, flushLake, settings }, runtime): JobRun<PurgeOutcome> => ({
    run: (invocation) =>
      purgeOpenRequests({
        deletions: tables.deletions,
        installs: tables.installs,
        customerUsers: tables.customerUsers,
        attributions: tables.attributions,
        claims: tables.touches,
        outbox: tables.outbox,
        deliveryLog: tables.deliveryLog,
        lake: lakePurger,
        flush: flushLake,
        ...(runtime.kind === "aws" ? { minAgeMs: settings.minRequestAgeMs } : {}),
        ...(invocation
          ? { remainingMs: () => invocation.remainingMs() - PURGE_TIME_MARGIN_MS }
          : {}),
      }),
    report: ({ completed, deferred }) => logger.info("purge deletions", { completed, deferred }),
  }),
);
