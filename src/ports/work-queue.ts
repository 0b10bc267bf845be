/**
 * A durable queue of work for a background worker: SQS with a dead-letter queue on AWS, a
 * queue in the data folder on the embedded runtime. Delivery is at least once (a message may
 * come twice, after a crash or a lost acknowledgement), so every worker is idempotent.
 */
export interface WorkQueue<T> {
  /** Resolves once every message is stored durably; rejects if any was not. */
  send(messages: readonly T[], options?: { readonly delaySeconds?: number }): Promise<void>;
}

/** A message as a worker gets it. */
export interface WorkMessage<T> {
  /** The queue's id of the message, stable across its deliveries. */
  readonly id: string;
  readonly body: T;
  /** 1 on the first delivery, then one more on each. */
  readonly attempt: number;
}

/**
 * A worker's work on one message. It resolves when the message is done (it is then deleted)
 * and throws to have it delivered again later, until the worker's `maxAttempts`; past that it
 * goes to the dead-letter queue.
 */
export type WorkHandler<T> = (message: WorkMessage<T>) => Promise<void>;
