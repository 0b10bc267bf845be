/**
 * Work under way, for a step that must come after all of it that has begun: the purge, after
 * the requests and jobs that found an install not deleted and have yet to write for it. Work
 * begun after the call is not waited for, so steady traffic never holds the step back.
 */
export const createInFlight = () => {
  const running = new Set<Promise<unknown>>();
  return {
    /** `work`'s own promise, counted until it settles. */
    track<T>(work: Promise<T>): Promise<T> {
      running.add(work);
      const done = () => running.delete(work);
      work.then(done, done);
      return work;
    },
    /** Settles once everything tracked before the call has, however it ended. */
    async settled(): Promise<void> {
      await Promise.allSettled([...running]);
    },
  };
};

export type InFlight = ReturnType<typeof createInFlight>;
