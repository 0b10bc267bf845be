/**
 * Work the embedded runtime does in the background (what a scheduled Lambda does on AWS): on
 * a timer and on demand, one run at a time, a demand during a run making one more run.
 */

import type { JobDefinition } from "../jobs/jobs.ts";
import { logger } from "../logging/logger.ts";
import { drain } from "./drain.ts";

export interface BackgroundJob {
  /**
   * Runs soon; returns when a run begun after the call is over (once stopped, when the run
   * under way is).
   */
  trigger(): Promise<void>;
  /** Stops the timer and waits for a run in progress; starts no other. */
  stop(): Promise<void>;
}

export const backgroundJob = (
  name: string,
  work: () => Promise<unknown>,
  intervalMs: number,
): BackgroundJob => {
  let wanted = false;
  let stopped = false;
  const run = drain(
    () => wanted && !stopped,
    async () => {
      wanted = false;
      await work().catch((error: unknown) =>
        logger.error("background job failed", { job: name, error }),
      );
    },
  );
  const trigger = () => {
    wanted = true;
    return run();
  };
  const timer = setInterval(() => void trigger(), intervalMs);
  timer.unref();
  return {
    trigger,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await run();
    },
  };
};

/**
 * A row of the job table (src/jobs/jobs.ts) as a background job: on its row's interval (or the
 * configured one), and once at start when its row says so.
 */
export const startJob = (
  job: JobDefinition,
  work: () => Promise<unknown>,
  everyMs: number = job.embedded.everyMs,
): BackgroundJob => {
  const started = backgroundJob(job.id, work, everyMs);
  if (job.embedded.atStart) void started.trigger();
  return started;
};
