/**
 * Backpressure for a producer of the embedded runtime's queues: a send waits its turn while
 * the worker has `max` messages due or in hand, and one waiting send goes on each time the
 * worker settles a message. One process both takes in work and does it; without the wait a
 * burst of requests fills the queue faster than the worker empties it and every job waits
 * behind the burst, while with it the burst waits at the door and each job is done soon
 * after it is queued. A send never waits longer than `maxWaitMs`, so a stalled worker slows
 * its producers but never stops them; a delayed send (a retry for later) never waits.
 */
import type { FileQueue } from "../adapters/local-queue/file-queue.ts";
import type { WorkQueue } from "../ports/work-queue.ts";

export const BACKPRESSURE_MAX_WAIT_MS = 5_000;

export const withBackpressure = <T>(
  queue: FileQueue<T>,
  max: number,
  maxWaitMs = BACKPRESSURE_MAX_WAIT_MS,
): WorkQueue<T> => {
  const waiting: Array<() => void> = [];
  queue.onSettle(() => {
    if (queue.backlog() < max) waiting.shift()?.();
  });
  const turn = () =>
    waiting.length === 0 && queue.backlog() < max
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const go = () => {
            clearTimeout(timer);
            const at = waiting.indexOf(go);
            if (at >= 0) waiting.splice(at, 1);
            resolve();
          };
          const timer = setTimeout(go, maxWaitMs);
          waiting.push(go);
        });
  return {
    async send(messages, options) {
      if (!options?.delaySeconds) await turn();
      await queue.send(messages, options);
    },
  };
};
