/**
 * Work the embedded runtime does in the background (what a scheduled Lambda does on AWS): on
 * a timer and on demand, one run at a time, a demand during a run making one more run.
 */
export interface BackgroundJob {
  /** Runs soon; returns when that run is over. */
  trigger(): Promise<void>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export const backgroundJob = (
  name: string,
  work: () => Promise<unknown>,
  intervalMs: number,
): BackgroundJob => {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const run = (): Promise<void> => {
    if (stopped) return running ?? Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = work()
      .then(() => undefined)
      .catch((error: unknown) =>
        console.error(JSON.stringify({ level: "error", job: name, error: String(error) })),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          void run();
        }
      });
    return running;
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return {
    trigger: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      again = false;
      await running;
    },
  };
};
