/** The scheduled attribution sweep on AWS: unfinished attributions queued again. */
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { attributionSweepJob } from "../src/attribution/sweep-job.ts";
import { lambdaJob } from "../src/aws/lambda-job.ts";
import { sqsQueues } from "../src/aws/sqs-queues.ts";

export const handler = await lambdaJob(attributionSweepJob, {
  tables: { attributions: createAttributionStore },
  queues: sqsQueues,
});
