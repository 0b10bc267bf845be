/**
 * What a queue-driven worker is, as data: the table in ./workers.ts lists them, and both
 * runtimes build theirs from it: on AWS an SQS queue, its dead-letter queue with an alarm, and
 * its function fed by the queue (lib/queue-workers.ts); on the embedded runtime a queue
 * in the data folder and an in-process consumer (src/embedded/queue-workers.ts).
 */
import type * as z from "zod";
import type { HandlerRef } from "../functions/handler-ref.ts";
import type { Uses } from "../functions/uses.ts";

export interface WorkerDefinition<T = unknown, Id extends string = string> {
  /** Names the queue and the function. */
  readonly id: Id;
  /**
   * Its composition, which both runtimes build the message handler from. Required of the rows
   * of the worker table.
   */
  readonly handler?: HandlerRef;
  readonly description: string;
  /** Each message body is parsed with it; one that does not parse goes the way of a failure. */
  readonly message: z.ZodType<T>;
  /** Deliveries of a message before it goes to the dead-letter queue (SQS maxReceiveCount). */
  readonly maxAttempts: number;
  /**
   * How long after a failed delivery the message comes again. On AWS it is the queue's
   * visibility timeout, which is also kept at least six times the function's timeout, as AWS
   * advises for a function fed by a queue.
   */
  readonly retryAfterSeconds: number;
  /** Messages a function takes at once on AWS: the SQS batch size (1 to 10). */
  readonly batchSize: number;
  /**
   * Messages handled at once on the embedded runtime, where one process does the work that on
   * AWS as many functions as the backlog needs do; unset, the batch size.
   */
  readonly concurrency?: number;
  /**
   * Embedded runtime only: a producer's send waits while this many messages are due or being
   * handled, so the one process never takes in work faster than it does it and a burst waits
   * at the door, not in the queue. On AWS functions scale with the backlog instead. Unset, no
   * wait.
   */
  readonly maxBacklog?: number;
  /**
   * AWS only: how many of its functions SQS runs at once at most (2 to 1,000), so that a burst
   * of one app's work leaves Lambda's concurrency to the API and the link host; the rest waits
   * in the queue, whose oldest message's age alarms (docs/aws.md#alarms).
   */
  readonly maxConcurrency: number;
  /** Lambda sizing on AWS. */
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  /**
   * What its function uses on AWS (src/functions/uses.ts): its environment and grants are
   * derived from it. Required of the rows of the worker table.
   */
  readonly uses?: Uses;
}

/**
 * A definition with its id, message type and uses kept, so the wiring tables and the
 * function's environment can be typed by them.
 */
export const defineWorker = <
  T,
  const Id extends string,
  const U extends Uses | undefined,
  const H extends HandlerRef | undefined = undefined,
>(
  definition: Omit<WorkerDefinition<T, Id>, "uses" | "handler"> & {
    readonly uses?: U;
    readonly handler?: H;
  },
): Omit<WorkerDefinition<T, Id>, "uses" | "handler"> & { readonly uses: U; readonly handler: H } =>
  definition as Omit<WorkerDefinition<T, Id>, "uses" | "handler"> & {
    readonly uses: U;
    readonly handler: H;
  };

/** The queue's visibility timeout on AWS: the retry delay, never under 6 × the timeout. */
export const visibilityTimeoutSeconds = (worker: WorkerDefinition): number =>
  Math.max(worker.retryAfterSeconds, 6 * worker.timeoutSeconds);

/** The message type of a worker definition. */
export type MessageOf<W> = W extends WorkerDefinition<infer T, string> ? T : never;
