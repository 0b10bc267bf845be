import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

  /** Whether a promise has settled after the queued I/O and timers of this tick ran. */
  const settledSoon = async (promise: Promise<unknown>) => {
    let done = false;
    void promise.then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    return done;
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
    expect(await settledSoon(third)).toBe(false);
    const [first, second] = await queue.take(2);
    if (!first || !second) throw new Error("two messages were due");
    await queue.ack(first.id);
    expect(await settledSoon(third)).toBe(true);
    expect(await settledSoon(fourth)).toBe(false);
    await queue.fail(second.id, new Error("later"), 60);
    expect(await settledSoon(fourth)).toBe(true);
    expect(queue.depth().ready).toBe(3);
  });

  it("never holds a send longer than its limit, nor one sent for later", async () => {
    const producer = withBackpressure(queue, 1, 100);
    await producer.send([{ n: 1 }]);
    expect(await settledSoon(producer.send([{ n: 2 }], { delaySeconds: 30 }))).toBe(true);
    const started = Date.now();
    await producer.send([{ n: 3 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(queue.depth().ready).toBe(3);
  });
});
