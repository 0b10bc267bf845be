/**
 * The work queue's contract (src/ports/work-queue.ts), one suite for both adapters behind the
 * port: the folder queue with the embedded runtime's consumer, and SQS with the Lambda handler
 * its event source feeds. Each adapter's test file calls `describeWorkQueueContract` with a
 * factory of its own side; the `it`s are the same.
 *
 * What a factory's `drain` stands for is what the runtime does between `send` and the worker:
 * on the embedded runtime the consumer (src/embedded/queue-consumer.ts), on AWS Lambda's event
 * source, which receives a batch, calls the function, deletes what it did not report failed,
 * and leaves the rest to come again when their visibility timeout runs out. Here the retry
 * delay is nil, so a test never waits for a clock.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { WorkHandler, WorkMessage, WorkQueue } from "../../ports/work-queue.ts";
import type { WorkerDefinition } from "../../workers/worker.ts";

export const contractMessage = z.object({ n: z.number().int(), text: z.string() });
export type ContractMessage = z.infer<typeof contractMessage>;

/** The worker every side is built for: three attempts, retried at once. */
export const CONTRACT_WORKER: WorkerDefinition<ContractMessage> = {
  id: "contract",
  description: "The work queue contract's worker.",
  message: contractMessage,
  maxAttempts: 3,
  retryAfterSeconds: 0,
  batchSize: 10,
  maxConcurrency: 2,
  concurrency: 4,
  memoryMb: 128,
  timeoutSeconds: 10,
};

export interface WorkQueueUnderTest<T> {
  readonly queue: WorkQueue<T>;
  /**
   * Hands messages to `handle` as the runtime does, failed ones again at once, until none is
   * left to deliver (each is done or dead).
   */
  drain(handle: WorkHandler<T>): Promise<void>;
  /** The bodies in the dead-letter queue, as sent. */
  dead(): Promise<unknown[]>;
  close(): Promise<void>;
}

export type WorkQueueFactory = (
  worker: WorkerDefinition<ContractMessage>,
) => Promise<WorkQueueUnderTest<ContractMessage>>;

const message = (n: number): ContractMessage => ({ n, text: `message ${n}: é ✓ "quoted"` });

/** Records every delivery, and fails those `fails` says to. */
const recorder = (fails: (delivery: WorkMessage<ContractMessage>) => boolean = () => false) => {
  const deliveries: WorkMessage<ContractMessage>[] = [];
  const handle: WorkHandler<ContractMessage> = async (delivery) => {
    deliveries.push(delivery);
    if (fails(delivery))
      throw new Error(`refused ${delivery.body.n} on attempt ${delivery.attempt}`);
  };
  const of = (n: number) => deliveries.filter((delivery) => delivery.body.n === n);
  return { deliveries, handle, of };
};

const byN = (a: { n: number }, b: { n: number }) => a.n - b.n;

export const describeWorkQueueContract = (name: string, factory: WorkQueueFactory): void => {
  describe(`work queue contract: ${name}`, () => {
    const withQueue = async (
      test: (side: WorkQueueUnderTest<ContractMessage>) => Promise<void>,
    ) => {
      const side = await factory(CONTRACT_WORKER);
      try {
        await test(side);
      } finally {
        await side.close();
      }
    };

    it("delivers each message sent once, on its first attempt, with its body as sent", () =>
      withQueue(async (side) => {
        // More than one SQS batch (10), sent in two calls.
        const sent = Array.from({ length: 23 }, (_, n) => message(n));
        await side.queue.send(sent.slice(0, 15));
        await side.queue.send(sent.slice(15));
        const { deliveries, handle } = recorder();
        await side.drain(handle);
        expect(deliveries.map((d) => d.body).sort(byN)).toEqual(sent);
        expect(deliveries.every((d) => d.attempt === 1)).toBe(true);
        expect(new Set(deliveries.map((d) => d.id)).size).toBe(sent.length);
        expect(await side.dead()).toEqual([]);
      }));

    it("resolves a send of nothing, and then has nothing to deliver", () =>
      withQueue(async (side) => {
        await side.queue.send([]);
        const { deliveries, handle } = recorder();
        await side.drain(handle);
        expect(deliveries).toEqual([]);
      }));

    it("delivers a failed message again, as the same message on its next attempt", () =>
      withQueue(async (side) => {
        await side.queue.send([message(1), message(2), message(3)]);
        const { deliveries, handle, of } = recorder((d) => d.body.n === 2 && d.attempt === 1);
        await side.drain(handle);
        expect(of(2).map((d) => d.attempt)).toEqual([1, 2]);
        expect(new Set(of(2).map((d) => d.id)).size).toBe(1);
        expect(of(2)[1]?.body).toEqual(message(2));
        expect(of(1).length + of(3).length).toBe(2);
        expect(deliveries).toHaveLength(4);
        expect(await side.dead()).toEqual([]);
      }));

    it("moves a message that fails every attempt to the dead-letter queue after its last", () =>
      withQueue(async (side) => {
        await side.queue.send([message(1), message(2)]);
        const { handle, of } = recorder((d) => d.body.n === 1);
        await side.drain(handle);
        expect(of(1).map((d) => d.attempt)).toEqual([1, 2, 3]);
        expect(of(2).map((d) => d.attempt)).toEqual([1]);
        expect(await side.dead()).toEqual([message(1)]);
        // Dead is dead: nothing comes again.
        const again = recorder();
        await side.drain(again.handle);
        expect(again.deliveries).toEqual([]);
      }));

    it("never hands the worker a body that does not parse with its schema; it ends dead", () =>
      withQueue(async (side) => {
        const bad = { n: "one", text: 1 };
        await side.queue.send([bad as unknown as ContractMessage, message(2)]);
        const { deliveries, handle } = recorder();
        await side.drain(handle);
        expect(deliveries.map((d) => d.body)).toEqual([message(2)]);
        expect(await side.dead()).toEqual([bad]);
      }));
  });
};
