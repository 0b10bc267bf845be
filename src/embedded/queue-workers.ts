/**
 * The queue-driven workers of the embedded runtime, built from the worker table
 * (src/workers/workers.ts): for each row a folder queue under the data folder's `queues/` and
 * an in-process consumer that hands its messages to the row's handler. The runtime wires one
 * handler per row; producers send through `queue(id)`.
 */
import { join } from "node:path";
import { type FileQueue, openFileQueue } from "../adapters/local-queue/file-queue.ts";
import type { WorkHandler, WorkQueue } from "../ports/work-queue.ts";
import type { MessageOf, WorkerDefinition } from "../workers/worker.ts";
import { withBackpressure } from "./backpressure.ts";
import { consumeQueue, type QueueConsumer } from "./queue-consumer.ts";

export type WorkerHandlers<W extends WorkerDefinition> = {
  readonly [K in W["id"]]: WorkHandler<MessageOf<Extract<W, { id: K }>>>;
};

export interface QueueWorkers<W extends WorkerDefinition> {
  /** The queue a worker reads, for the producers that feed it. */
  queue<K extends W["id"]>(id: K): WorkQueue<MessageOf<Extract<W, { id: K }>>>;
  /** Resolves once every worker is idle: nothing being handled and nothing visible. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export const startQueueWorkers = async <W extends WorkerDefinition>(options: {
  readonly dir: string;
  readonly workers: readonly W[];
  readonly handlers: WorkerHandlers<W>;
}): Promise<QueueWorkers<W>> => {
  const queues = new Map<string, WorkQueue<unknown>>();
  const consumers: QueueConsumer[] = [];
  const opened: FileQueue<unknown>[] = [];
  for (const worker of options.workers) {
    const queue = await openFileQueue({
      dir: join(options.dir, worker.id),
      parse: (body) => worker.message.parse(body),
      maxAttempts: worker.maxAttempts,
    });
    opened.push(queue);
    queues.set(
      worker.id,
      worker.maxBacklog === undefined ? queue : withBackpressure(queue, worker.maxBacklog),
    );
    const id: W["id"] = worker.id;
    // The handlers are keyed by each row's id, so this one takes this row's messages, which
    // the queue has parsed with the row's schema; TypeScript cannot follow the pairing
    // through the loop.
    const handle = options.handlers[id] as WorkHandler<unknown>;
    consumers.push(
      consumeQueue(queue, handle, {
        name: worker.id,
        concurrency: worker.concurrency ?? worker.batchSize,
        retryAfterSeconds: worker.retryAfterSeconds,
      }),
    );
  }
  return {
    queue(id) {
      const queue = queues.get(id);
      if (!queue) throw new Error(`No queue-driven worker ${id}`);
      return queue;
    },
    async idle() {
      await Promise.all(consumers.map((consumer) => consumer.idle()));
    },
    async stop() {
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await Promise.all(opened.map((queue) => queue.close()));
    },
  };
};
