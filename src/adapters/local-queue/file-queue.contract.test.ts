/** The work queue contract (../contracts/work-queue.test-support.ts) over the folder queue. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consumeQueue } from "../../embedded/queue-consumer.ts";
import { describeWorkQueueContract } from "../contracts/work-queue.test-support.ts";
import { openFileQueue } from "./file-queue.ts";

describeWorkQueueContract("folder queue and the embedded consumer", async (worker) => {
  const dir = await mkdtemp(join(tmpdir(), "queue-contract-"));
  const queue = await openFileQueue({
    dir,
    parse: (body) => worker.message.parse(body),
    maxAttempts: worker.maxAttempts,
  });
  return {
    queue,
    async drain(handle) {
      const consumer = consumeQueue(queue, handle, {
        name: worker.id,
        concurrency: worker.concurrency ?? worker.batchSize,
        retryAfterSeconds: worker.retryAfterSeconds,
      });
      await consumer.idle();
      await consumer.stop();
    },
    dead: async () => (await queue.dead()).map((message) => message.body),
    close: () => rm(dir, { recursive: true, force: true }),
  };
});
