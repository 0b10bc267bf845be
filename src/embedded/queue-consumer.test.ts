import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { type FileQueue, openFileQueue } from "../adapters/local-queue/file-queue.ts";
import { logger } from "../logging/logger.ts";
import { consumeQueue, type QueueConsumer } from "./queue-consumer.ts";

const job = z.object({ n: z.number() });
type Job = z.infer<typeof job>;

describe("consumeQueue", () => {
  let dir: string;
  let queue: FileQueue<Job>;
  let consumer: QueueConsumer | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "queue-consumer-"));
    queue = await openFileQueue({ dir, parse: (body) => job.parse(body), maxAttempts: 3 });
  });
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  it("handles every message sent, at most `concurrency` at once, and deletes each", async () => {
    const handled: number[] = [];
    let running = 0;
    let most = 0;
    // The first messages are held until the consumer has as many in hand as it may: that it
    // takes three at once is waited for, not left to chance.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    consumer = consumeQueue(
      queue,
      async (message) => {
        running++;
        most = Math.max(most, running);
        await gate;
        handled.push(message.body.n);
        running--;
      },
      { name: "test", concurrency: 3, retryAfterSeconds: 1 },
    );
    await queue.send(Array.from({ length: 30 }, (_, n) => ({ n })));
    await vi.waitFor(() => expect(queue.depth()).toEqual({ ready: 27, taken: 3 }), {
      timeout: 10_000,
    });
    expect(running).toBe(3);
    open();
    await consumer.idle();
    expect(handled.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(most).toBe(3);
    expect(queue.depth()).toEqual({ ready: 0, taken: 0 });
  });

  it("tries a failing message again after the delay, and buries it after its last attempt", async () => {
    const warned = vi.spyOn(logger, "warn").mockImplementation(() => undefined);
    const buried = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    const attempts: number[] = [];
    consumer = consumeQueue(
      queue,
      async (message) => {
        attempts.push(message.attempt);
        if (message.body.n === 1) throw new Error("always fails");
      },
      { name: "test", concurrency: 1, retryAfterSeconds: 0.01 },
    );
    await queue.send([{ n: 1 }]);
    // Three attempts and a burial, each a synced write: seconds on a loaded machine. The burial
    // is told once the message is in the dead-letter folder, so it is what is waited for.
    await vi.waitFor(
      () =>
        expect(buried).toHaveBeenCalledWith(
          "message moved to the dead-letter folder",
          expect.objectContaining({ worker: "test", attempt: 3 }),
        ),
      { timeout: 10_000 },
    );
    expect(await queue.dead()).toHaveLength(1);
    expect(attempts).toEqual([1, 2, 3]);
    expect(warned).toHaveBeenCalledTimes(2);
  });

  it("waits its retry delay before trying a failed message again", async () => {
    vi.spyOn(logger, "warn").mockImplementation(() => undefined);
    const attempts: number[] = [];
    consumer = consumeQueue(
      queue,
      async (message) => {
        attempts.push(message.attempt);
        throw new Error("store down");
      },
      { name: "test", concurrency: 1, retryAfterSeconds: 60 },
    );
    await queue.send([{ n: 1 }]);
    await vi.waitFor(() => expect(attempts).toEqual([1]), { timeout: 10_000 });
    // Put back for a minute, not handed out again meanwhile.
    await vi.waitFor(() => expect(queue.depth()).toEqual({ ready: 1, taken: 0 }), {
      timeout: 10_000,
    });
    await consumer.idle();
    expect(queue.nextVisibleIn()).toBeGreaterThan(50_000);
    expect(attempts).toEqual([1]);
  });

  it("takes no message once stopped, and is idle then, the rest left in the queue", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handled: number[] = [];
    const running = consumeQueue(
      queue,
      async (message) => {
        await held;
        handled.push(message.body.n);
      },
      { name: "test", concurrency: 1, retryAfterSeconds: 1 },
    );
    await queue.send(Array.from({ length: 5 }, (_, n) => ({ n })));
    await vi.waitFor(() => expect(queue.depth()).toEqual({ ready: 4, taken: 1 }), {
      timeout: 10_000,
    });
    // A take after the stop is seen as it is asked for: no wait for one to be handled.
    const took = vi.spyOn(queue, "take");
    const stopping = running.stop();
    release();
    await stopping;
    // The stop waited for the message in hand: handled and deleted before it resolved.
    expect(handled).toEqual([0]);
    expect(queue.depth().taken).toBe(0);
    // The settled message's turn asked for no other.
    expect(took).not.toHaveBeenCalled();
    expect(handled).toEqual([0]);
    expect(queue.depth()).toEqual({ ready: 4, taken: 0 });
    await running.idle();
  });

  it("picks up the messages that were waiting when it started", async () => {
    await queue.send([{ n: 1 }, { n: 2 }]);
    const handled: number[] = [];
    consumer = consumeQueue(queue, async (m) => void handled.push(m.body.n), {
      name: "test",
      concurrency: 1,
      retryAfterSeconds: 1,
    });
    await vi.waitFor(() => expect(handled).toEqual([1, 2]), { timeout: 10_000 });
  });
});
