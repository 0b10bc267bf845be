/**
 * The embedded runtime's side of a queue-driven worker: what Lambda's SQS event source does on
 * AWS. It hands the worker each visible message of its folder queue, up to `concurrency` at
 * once, deletes the message when the worker is done and puts it back for later (or in the
 * dead-letter folder, after its last attempt) when the worker throws. It wakes on each send
 * and on a timer for messages that become visible later, so it never polls an empty queue.
 */
import type { FileQueue } from "../adapters/local-queue/file-queue.ts";
import { logger } from "../logging/logger.ts";
import type { WorkHandler, WorkMessage } from "../ports/work-queue.ts";

export interface QueueConsumer {
  /** Resolves once no message is being handled and none is visible. */
  idle(): Promise<void>;
  /** Takes no new message and waits for those being handled. */
  stop(): Promise<void>;
}

export const consumeQueue = <T>(
  queue: FileQueue<T>,
  handle: WorkHandler<T>,
  options: {
    readonly name: string;
    readonly concurrency: number;
    readonly retryAfterSeconds: number;
  },
): QueueConsumer => {
  const running = new Set<Promise<void>>();
  let stopped = false;
  let pumping = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let idleWaiters: Array<() => void> = [];

  const isIdle = () => !pumping && running.size === 0 && (queue.nextVisibleIn() ?? 1) > 0;
  const settleIdle = () => {
    if (!isIdle() && !stopped) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const work = async (message: WorkMessage<T>) => {
    try {
      await handle(message);
    } catch (error) {
      const outcome = await queue.fail(message.id, error, options.retryAfterSeconds);
      const keys = { worker: options.name, messageId: message.id, attempt: message.attempt, error };
      if (outcome === "dead") logger.error("message moved to the dead-letter folder", keys);
      else logger.warn("message failed, to be tried again", keys);
      return;
    }
    await queue.ack(message.id);
  };

  /** Starts work on visible messages while there is room; then sleeps until the next one. */
  const pump = async (): Promise<void> => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        while (!stopped && running.size < options.concurrency) {
          const [message] = await queue.take(1);
          if (!message) break;
          const task: Promise<void> = work(message)
            .catch((error: unknown) =>
              logger.error("queue bookkeeping failed", { worker: options.name, error }),
            )
            .finally(() => {
              running.delete(task);
              void pump();
            });
          running.add(task);
        }
      } while (again && !stopped);
    } catch (error) {
      logger.error("queue read failed", { worker: options.name, error });
    } finally {
      pumping = false;
    }
    clearTimeout(timer);
    const wait = queue.nextVisibleIn();
    if (!stopped && wait !== undefined && running.size < options.concurrency) {
      timer = setTimeout(() => void pump(), Math.max(wait, 5));
      timer.unref();
    }
    settleIdle();
  };

  queue.onSend(() => void pump());
  void pump();

  return {
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      }),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(running);
      settleIdle();
    },
  };
};
