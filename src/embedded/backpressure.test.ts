import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { type FileQueue, openFileQueue } from "../adapters/local-queue/file-queue.ts";
import { withBackpressure } from "./backpressure.ts";

const job = z.object({ n: z.number() });

describe("backpressure on a folder queue", () => {
  let dir: string;
  let queue: FileQueue<z.infer<typeof job>>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "backpressure-"));
    queue = await openFileQueue({ dir, parse: (body) => job.parse(body), maxAttempts: 3 });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /**
   * Whether a promise settles within `ms`: a short wait shows one held, a long one lets a
   * loaded machine's synced writes finish before one is taken for held.
   */
  const settledWithin = async (promise: Promise<unknown>, ms: number) => {
    let done = false;
    void promise.then(() => {
      done = true;
    });
    const deadline = Date.now() + ms;
    while (!done && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    return done;
  };
  const held = async (promise: Promise<unknown>) => !(await settledWithin(promise, 50));
  const settles = (promise: Promise<unknown>) => settledWithin(promise, 10_000);

  it("counts due and taken messages, not those sent for later", async () => {
    await queue.send([{ n: 1 }, { n: 2 }]);
    await queue.send([{ n: 3 }], { delaySeconds: 60 });
    expect(queue.backlog()).toBe(2);
    const [taken] = await queue.take(1);
    expect(queue.backlog()).toBe(2);
    if (taken) await queue.ack(taken.id);
    expect(queue.backlog()).toBe(1);
  });

  it("holds a send while the backlog is full, and lets one go per settled message, in turn", async () => {
    const producer = withBackpressure(queue, 2);
    await producer.send([{ n: 1 }]);
    await producer.send([{ n: 2 }]);
    const third = producer.send([{ n: 3 }]);
    const fourth = producer.send([{ n: 4 }]);
    expect(await held(third)).toBe(true);
    const [first, second] = await queue.take(2);
    if (!first || !second) throw new Error("two messages were due");
    await queue.ack(first.id);
    expect(await settles(third)).toBe(true);
    expect(await held(fourth)).toBe(true);
    await queue.fail(second.id, new Error("later"), 60);
    expect(await settles(fourth)).toBe(true);
    expect(queue.depth().ready).toBe(3);
  });

  it("keeps holding a send while a settled message leaves the backlog still full", async () => {
    await queue.send([{ n: 1 }, { n: 2 }, { n: 3 }]);
    // A limit no test waits out: only a settled message lets the send go.
    const producer = withBackpressure(queue, 2, 600_000);
    const waiting = producer.send([{ n: 4 }]);
    expect(await held(waiting)).toBe(true);
    const settleOne = async () => {
      const [message] = await queue.take(1);
      if (!message) throw new Error("a message was due");
      await queue.ack(message.id);
    };
    await settleOne();
    // Two due: as full as the limit.
    expect(await held(waiting)).toBe(true);
    await settleOne();
    expect(await settles(waiting)).toBe(true);
  });

  it("gives a freed place to a send still waiting, not to one its limit let go, and leaves no timer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const producer = withBackpressure(queue, 1, 1_000);
      await producer.send([{ n: 1 }]);
      const first = producer.send([{ n: 2 }]);
      // The first waiter's limit passes: it goes, over the backlog's bound.
      await vi.advanceTimersByTimeAsync(1_000);
      await first;
      let gone = false;
      const second = producer.send([{ n: 3 }]).then(() => {
        gone = true;
      });
      for (const message of await queue.take(2)) await queue.ack(message.id);
      // No timer is advanced from here: only the freed place can let the second go.
      const deadline = Date.now() + 10_000;
      while (!gone && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
      expect(gone).toBe(true);
      await second;
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps a new send behind those already waiting, though a place has just come free", async () => {
    // A limit no test waits out: only settled messages let the sends go.
    const producer = withBackpressure(queue, 1, 600_000);
    await producer.send([{ n: 1 }]);
    const first = producer.send([{ n: 2 }]);
    const second = producer.send([{ n: 3 }]);
    const [message] = await queue.take(1);
    if (!message) throw new Error("a message was due");
    await queue.ack(message.id);
    // The place went to the first waiter, which has not sent yet: a newcomer waits its turn
    // behind the second.
    const newcomer = producer.send([{ n: 4 }]);
    expect(await settles(first)).toBe(true);
    expect(await held(second)).toBe(true);
    expect(await held(newcomer)).toBe(true);
    for (const due of await queue.take(2)) await queue.ack(due.id);
    expect(await settles(second)).toBe(true);
    expect(await held(newcomer)).toBe(true);
    for (const due of await queue.take(2)) await queue.ack(due.id);
    expect(await settles(newcomer)).toBe(true);
  });

  it("never holds a send longer than its limit, nor one sent for later", async () => {
    // A send for later is not held, even with the backlog full: well before a long limit.
    const patient = withBackpressure(queue, 1, 5_000);
    await patient.send([{ n: 1 }]);
    expect(await settledWithin(patient.send([{ n: 2 }], { delaySeconds: 30 }), 2_500)).toBe(true);
    const producer = withBackpressure(queue, 1, 100);
    const started = Date.now();
    await producer.send([{ n: 3 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(queue.depth().ready).toBe(3);
  });
});
