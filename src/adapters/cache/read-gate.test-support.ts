/** Shared by the cache tests (not used at run time). */

/**
 * Holds the reads of a fake store until released, so a test can make a write land while a
 * read is under way.
 */
export const readGate = () => {
  let pause: Promise<void> | undefined;
  return {
    /** Awaited by the fake store's reads. */
    passed: async () => {
      await pause;
    },
    /** Holds reads from now on; the returned function lets them through. */
    hold: () => {
      let release = () => {};
      pause = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        pause = undefined;
        release();
      };
    },
  };
};
