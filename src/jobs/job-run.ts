/** What a scheduled job's composition builds: its run, and how a run's outcome is logged on AWS. */
export interface JobRun<T> {
  /** `invocation` on AWS, where a run is stopped at its function's timeout; none embedded. */
  readonly run: (invocation?: JobInvocation) => Promise<T>;
  /** The log line of a run's outcome on AWS, where each run is its own invocation. */
  readonly report?: (outcome: T) => void;
}

/** The Lambda invocation a run is, for a job that must stop taking work before its timeout. */
export interface JobInvocation {
  /** Milliseconds until the function's timeout stops the run. */
  readonly remainingMs: () => number;
}
