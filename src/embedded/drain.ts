/**
 * One runner of `step` at a time while `hasWork` says so. A call during a run waits for it and
 * then runs again if work is left, so nothing queued just as a run ends is left behind, and a
 * caller's promise settles only once a run that began after its call is over.
 */
export const drain = (hasWork: () => boolean, step: () => Promise<void>) => {
  let running: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    while (running) await running.catch(() => undefined);
    if (!hasWork()) return;
    running = (async () => {
      while (hasWork()) await step();
    })().finally(() => {
      running = undefined;
    });
    await running;
  };
  return run;
};
