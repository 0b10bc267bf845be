/**
 * A queue-driven worker on AWS: the Lambda handler an SQS event source calls. Each record's
 * body is parsed with the worker's schema and handed to the worker; Powertools' batch
 * processor answers the records that failed as `batchItemFailures` (the event source is set to
 * report them), so SQS delivers only those again, after the queue's visibility timeout, and
 * moves a message to the dead-letter queue once it has been received `maxAttempts` times.
 */
import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import middy from "@middy/core";
import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import type { WorkHandler } from "../../ports/work-queue.ts";
import type { WorkerDefinition } from "../../workers/worker.ts";

export const createSqsWorkerHandler = <T>(worker: WorkerDefinition<T>, handle: WorkHandler<T>) => {
  const processor = new BatchProcessor(EventType.SQS);
  const record = async (record: SQSRecord): Promise<void> => {
    await handle({
      id: record.messageId,
      body: worker.message.parse(JSON.parse(record.body)),
      attempt: Number(record.attributes.ApproximateReceiveCount),
    });
  };
  return middy<SQSEvent, SQSBatchResponse>().handler((event, context) =>
    processPartialResponse(event, record, processor, { context }),
  );
};
