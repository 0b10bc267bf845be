/** What a scheduled job's composition builds: its run, and how a run's outcome is logged on AWS. */
export interface JobRun<T> {
  readonly run: () => Promise<T>;
  /** The log line of a run's outcome on AWS, where each run is its own invocation. */
  readonly report?: (outcome: T) => void;
}
