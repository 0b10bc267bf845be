/**
 * The job table (src/jobs/jobs.ts) on the embedded runtime: each row's work as a background job
 * on its row's interval. A job that runs on AWS runs its row's composition here too, unless
 * `workOf` gives it a way of its own; the others are what AWS does by itself (a table's TTL, a
 * bucket's lifecycle rule), done here by hand.
 */
import { sweepAttributions } from "../attribution/sweep.ts";
import type { AllAdapters, Runtime } from "../functions/adapters.ts";
import { loadComposition } from "../functions/compositions.ts";
import type { JobRun } from "../jobs/job-run.ts";
import { JOBS, type JobDefinition, type JobId, jobOf } from "../jobs/jobs.ts";
import { reapSnapshotEntries } from "../jobs/reap-snapshot-entries.ts";
import { type BackgroundJob, startJob } from "./background-job.ts";

export interface EmbeddedJobDeps {
  readonly adapters: AllAdapters;
  readonly runtime: Runtime;
  /** Removes export snapshot files older than the given date (the query engine's). */
  readonly pruneSnapshots: () => Promise<unknown>;
  /** Merges the lake's small files (the lake's compactor). */
  readonly compactLake: () => Promise<unknown>;
  /** The exchange rates' refresh from the ECB feed, or null when the feed is off. */
  readonly refreshRates: (() => Promise<unknown>) | null;
  /** Intervals the configuration sets instead of the row's. */
  readonly everyMs?: { readonly [K in JobId]?: number };
}

/** The jobs that name no composition: AWS does them by itself. */
type ComposedJobId = Extract<(typeof JOBS)[number], { readonly handler: string }>["id"];
type Work = (() => Promise<unknown>) | null;

/**
 * The work of each job that has a way of its own on this runtime (every job AWS does by
 * itself, and the few whose composition needs what only this runtime has); null for a job
 * switched off by the configuration.
 */
const workOf = (
  deps: EmbeddedJobDeps,
): { readonly [K in Exclude<JobId, ComposedJobId>]: Work } & {
  readonly [K in ComposedJobId]?: Work;
} => {
  const { adapters } = deps;
  const { tables } = adapters;
  // At start, everything unfinished from before it (what a crash left); then every
  // SWEEP_AGE_MS, what is that old and unfinished. The queue redelivers the jobs it had
  // taken; the sweep finds those it never got.
  const startedAt = new Date();
  let firstSweep = true;
  return {
    "fx-rates": deps.refreshRates,
    "attribution-sweep": () => {
      const before = firstSweep ? startedAt : undefined;
      firstSweep = false;
      return sweepAttributions(
        { attributions: tables.attributions, queue: adapters.queues.attribute },
        before,
      );
    },
    // Touches expire after the longest click window.
    "reap-touches": () => tables.touches.reap(new Date()),
    // Sends and attempts past their lifetime (OUTBOX_DAYS, DELIVERY_LOG_DAYS), and Apple's
    // unverified postbacks past theirs (UNVERIFIED_POSTBACK_DAYS).
    "reap-postbacks": async () => {
      await tables.outbox.reap(new Date());
      await tables.deliveryLog.reap(new Date());
      await tables.applePostbacks.reap(new Date());
    },
    "prune-snapshots": deps.pruneSnapshots,
    "compact-lake": deps.compactLake,
    "reap-sessions": () => tables.sessions.reap(new Date()),
    "reap-snapshot-entries": () =>
      reapSnapshotEntries({ apps: tables.apps, snapshots: tables.snapshots }),
  };
};

export interface EmbeddedJobs {
  /** Runs a job now (a deletion request starts a purge at once). */
  trigger(id: JobId): void;
  stop(): Promise<void>;
}

export const startEmbeddedJobs = async (deps: EmbeddedJobDeps): Promise<EmbeddedJobs> => {
  const own: Partial<Record<JobId, Work>> = workOf(deps);
  const started = new Map<JobId, BackgroundJob>();
  for (const job of JOBS as readonly JobDefinition<JobId>[]) {
    const run =
      job.id in own
        ? own[job.id]
        : job.handler
          ? (await loadComposition<JobRun<unknown>>({ id: job.id, handler: job.handler })).compose(
              deps.adapters,
              deps.runtime,
            ).run
          : null;
    if (run) started.set(job.id, startJob(jobOf(job.id), run, deps.everyMs?.[job.id]));
  }
  return {
    trigger: (id) => void started.get(id)?.trigger(),
    async stop() {
      await Promise.all([...started.values()].map((job) => job.stop()));
    },
  };
};
