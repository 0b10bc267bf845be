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
    // Every send the queue is asked for, seen as it is asked.
    vi.spyOn(queue, "send");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /**
   * Whether a send is held: whether it has not reached the queue once every step it may take
   * without a write has run. A send let go reaches the queue with no I/O between (only its
   * turn's promise), so this tells held from not without waiting on the clock.
   */
  const held = async (n: number) => {
    await new Promise((resolve) => setImmediate(resolve));
    const sent = vi
      .mocked(queue.send)
      .mock.calls.flatMap(([messages]) => messages.map((message) => message.n));
    return !sent.includes(n);
  };
  /** A send let go settles once its synced write is done. */
  const settles = async (promise: Promise<unknown>) => {
    await promise;
    return true;
  };

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
    expect(await held(3)).toBe(true);
    const [first, second] = await queue.take(2);
    if (!first || !second) throw new Error("two messages were due");
    await queue.ack(first.id);
    expect(await settles(third)).toBe(true);
    expect(await held(4)).toBe(true);
    await queue.fail(second.id, new Error("later"), 60);
    expect(await settles(fourth)).toBe(true);
    expect(queue.depth().ready).toBe(3);
  });

  it("keeps holding a send while a settled message leaves the backlog still full", async () => {
    await queue.send([{ n: 1 }, { n: 2 }, { n: 3 }]);
    // A limit no test waits out: only a settled message lets the send go.
    const producer = withBackpressure(queue, 2, 600_000);
    const waiting = producer.send([{ n: 4 }]);
    expect(await held(4)).toBe(true);
    const settleOne = async () => {
      const [message] = await queue.take(1);
      if (!message) throw new Error("a message was due");
      await queue.ack(message.id);
    };
    await settleOne();
    // Two due: as full as the limit.
    expect(await held(4)).toBe(true);
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
    expect(await held(3)).toBe(true);
    expect(await held(4)).toBe(true);
    for (const due of await queue.take(2)) await queue.ack(due.id);
    expect(await settles(second)).toBe(true);
    expect(await held(4)).toBe(true);
    for (const due of await queue.take(2)) await queue.ack(due.id);
    expect(await settles(newcomer)).toBe(true);
  });

  it("never holds a send longer than its limit, nor one sent for later", async () => {
    // Only the limit's timer is faked: the queue's own writes go on as ever, and no clock is read.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      // A send for later is not held, even with the backlog full: no timer need pass for it.
      const patient = withBackpressure(queue, 1, 5_000);
      await patient.send([{ n: 1 }]);
      await patient.send([{ n: 2 }], { delaySeconds: 30 });
      expect(queue.depth().ready).toBe(2);
      const producer = withBackpressure(queue, 1, 100);
      let gone = false;
      const sent = producer.send([{ n: 3 }]).then(() => {
        gone = true;
      });
      // Not a moment before its limit: the send has not reached the queue.
      await vi.advanceTimersByTimeAsync(99);
      expect(await held(3)).toBe(true);
      expect(gone).toBe(false);
      // Its limit passed, it goes though the backlog is still full.
      await vi.advanceTimersByTimeAsync(1);
      expect(await held(3)).toBe(false);
      await sent;
      expect(queue.depth().ready).toBe(3);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
