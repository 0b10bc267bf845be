/** The SQS queues of the workers a function's row sends to. */
import { createSqsWorkQueue } from "../adapters/sqs/work-queue.ts";
import type { AllAdapters } from "../functions/adapters.ts";
import { queueUrlName } from "../functions/env.ts";
import { sqs } from "./clients.ts";
import { type Provider, variable } from "./provider.ts";

export const sqsQueues: Provider = (env, uses) => {
  const queues = Object.fromEntries(
    Object.keys(uses.queues ?? {}).map((worker) => [
      worker,
      createSqsWorkQueue(sqs, variable(env, queueUrlName(worker))),
    ]),
  );
  return { queues: queues as unknown as AllAdapters["queues"] };
};
