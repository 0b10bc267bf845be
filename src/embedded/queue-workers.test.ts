import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { openFileQueue } from "../adapters/local-queue/file-queue.ts";
import { defineWorker } from "../workers/worker.ts";
import { startQueueWorkers } from "./queue-workers.ts";

const sizing = {
  maxAttempts: 3,
  retryAfterSeconds: 1,
  batchSize: 2,
  maxConcurrency: 2,
  memoryMb: 256,
  timeoutSeconds: 5,
};
const counting = defineWorker({
  id: "counting",
  description: "Counts.",
  message: z.object({ n: z.number() }),
  ...sizing,
});
const naming = defineWorker({
  id: "naming",
  description: "Names.",
  message: z.object({ name: z.string() }),
  ...sizing,
});

describe("startQueueWorkers", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "queue-workers-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("gives each worker of the table its own queue and handler", async () => {
    const numbers: number[] = [];
    const names: string[] = [];
    const workers = await startQueueWorkers({
      dir,
      workers: [counting, naming],
      handlers: {
        counting: async (message) => void numbers.push(message.body.n),
        naming: async (message) => void names.push(message.body.name),
      },
    });
    await workers.queue("counting").send([{ n: 1 }, { n: 2 }]);
    await workers.queue("naming").send([{ name: "a" }]);
    await workers.idle();
    expect(numbers.sort()).toEqual([1, 2]);
    expect(names).toEqual(["a"]);
    await workers.stop();
  });

  it("keeps what was sent while no consumer ran, and hands it over at the next start", async () => {
    const first = await startQueueWorkers({
      dir,
      workers: [counting],
      handlers: { counting: () => new Promise<void>(() => undefined) },
    });
    await first.stop();
    // Sent by another owner of the folder while no worker runs.
    const queue = await openFileQueue({
      dir: join(dir, "counting"),
      parse: (body) => counting.message.parse(body),
      maxAttempts: counting.maxAttempts,
    });
    await queue.send([{ n: 5 }]);
    await queue.close();

    const seen: number[] = [];
    const second = await startQueueWorkers({
      dir,
      workers: [counting],
      handlers: { counting: async (message) => void seen.push(message.body.n) },
    });
    await second.idle();
    expect(seen).toEqual([5]);
    await second.stop();
  });
});
