/**
 * Many readers at once, or one writer alone. Turns are taken in order of asking, so a writer
 * waits only for the readers before it, and readers that ask after it wait for it.
 */
export interface ReadWriteLock {
  read<T>(work: () => Promise<T>): Promise<T>;
  write<T>(work: () => Promise<T>): Promise<T>;
  /**
   * The write side at once if no one holds the lock or waits for it, else nothing (undefined):
   * for work that can wait for another time rather than hold up the readers behind it.
   */
  writeIfFree<T>(work: () => Promise<T>): Promise<T | undefined>;
}

export const createReadWriteLock = (): ReadWriteLock => {
  let readers = 0;
  let writing = false;
  const waiting: { readonly write: boolean; readonly start: () => void }[] = [];
  const startWaiting = () => {
    for (let first = waiting[0]; first && !writing; first = waiting[0]) {
      if (first.write && readers > 0) return;
      waiting.shift();
      if (first.write) writing = true;
      else readers += 1;
      first.start();
    }
  };
  const holding =
    (write: boolean) =>
    async <T>(work: () => Promise<T>): Promise<T> => {
      await new Promise<void>((start) => {
        waiting.push({ write, start });
        startWaiting();
      });
      try {
        return await work();
      } finally {
        if (write) writing = false;
        else readers -= 1;
        startWaiting();
      }
    };
  const write = holding(true);
  return {
    read: holding(false),
    write,
    writeIfFree: async (work) =>
      readers === 0 && !writing && waiting.length === 0 ? write(work) : undefined,
  };
};
