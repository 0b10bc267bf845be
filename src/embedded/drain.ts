/**
 * One runner of `step` at a time while `hasWork` says so. A call settles once a step begun after
 * it is over, or at once when `hasWork` says there is nothing to do. Work that keeps coming is
 * taken on by the run under way and never holds back a call made before it: under steady work a
 * run may not end for long, and a caller waits one or two steps, not for a quiet moment. So a
 * step is what one call needs done: everything queued when it began.
 *
 * A step that throws rejects the calls it was to serve and ends the run; a call made during that
 * step starts the next.
 */
export const drain = (hasWork: () => boolean, step: () => Promise<void>) => {
  interface Waiter {
    /** The first step that serves it: the count of steps begun before the call. */
    readonly from: number;
    readonly resolve: () => void;
    readonly reject: (error: unknown) => void;
  }
  let running = false;
  let begun = 0;
  let waiters: Waiter[] = [];

  /** Settles the calls the steps up to `last` served, with the error of one that failed. */
  const settle = (last: number, failure?: { readonly error: unknown }) => {
    const left: Waiter[] = [];
    for (const waiter of waiters) {
      if (waiter.from > last) left.push(waiter);
      else if (failure) waiter.reject(failure.error);
      else waiter.resolve();
    }
    waiters = left;
  };

  const run = async (): Promise<void> => {
    running = true;
    try {
      while (hasWork()) {
        const index = begun++;
        try {
          await step();
        } catch (error) {
          settle(index, { error });
          return;
        }
        settle(index);
      }
      settle(Number.POSITIVE_INFINITY);
    } finally {
      running = false;
      // Only calls made during a step that failed are left: a run of their own.
      if (waiters.length > 0) void run();
    }
  };

  return (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      waiters.push({ from: begun, resolve, reject });
      if (!running) void run();
    });
};
