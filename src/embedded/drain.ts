/**
 * One runner of `step` at a time while `hasWork` says so. A call during a run waits for it and
 * then runs again if work is left, so nothing queued just as a run ends is left behind: a
 * caller's promise settles once a step begun after its call is over, or once `hasWork` says
 * there is nothing to do. While work keeps coming, the call that started the run waits on.
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
