/** The scheduled attribution sweep on AWS: unfinished attributions queued again. */
import middy from "@middy/core";
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createSqsWorkQueue } from "../src/adapters/sqs/work-queue.ts";
import { sweepAttributions } from "../src/attribution/sweep.ts";
import { functionEnv } from "../src/functions/env.ts";
import { jobOf } from "../src/jobs/jobs.ts";
import { logger } from "../src/logging/logger.ts";
import { dynamoDocument, sqs } from "./clients.ts";
import { logged } from "./logged.ts";

const env = functionEnv(jobOf("attribution-sweep").aws);

const deps = {
  attributions: createAttributionStore(dynamoDocument, env.ATTRIBUTIONS_TABLE),
  queue: createSqsWorkQueue(sqs, env.ATTRIBUTION_QUEUE_URL),
};

export const handler = logged(
  middy().handler(async (): Promise<{ queued: number }> => {
    const queued = await sweepAttributions(deps);
    if (queued > 0) logger.info("attributions queued again", { queued });
    return { queued };
  }),
);
