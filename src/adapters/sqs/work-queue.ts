/**
 * The work queue on AWS: an SQS queue (its dead-letter queue is the queue's redrive policy,
 * lib/queue-workers.ts). Messages go in batches of ten, SendMessageBatch's limit; an entry SQS
 * refused is sent once more, and a second refusal fails the call (the caller retries whole:
 * workers are idempotent, so a message that went twice is harmless).
 */
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { WorkQueue } from "../../ports/work-queue.ts";

const BATCH = 10;

export const createSqsWorkQueue = <T>(sqs: SQSClient, queueUrl: string): WorkQueue<T> => {
  const sendBatch = async (entries: SendMessageBatchRequestEntry[], retried = false) => {
    const { Failed = [] } = await sqs.send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
    );
    if (Failed.length === 0) return;
    const failedIds = new Set(Failed.map((failure) => failure.Id));
    if (retried || Failed.some((failure) => failure.SenderFault)) {
      const first = Failed[0];
      throw new Error(
        `SQS refused ${Failed.length} of ${entries.length} messages: ${first?.Code} ${first?.Message ?? ""}`,
      );
    }
    await sendBatch(
      entries.filter((entry) => failedIds.has(entry.Id)),
      true,
    );
  };
  return {
    async send(messages, options) {
      const entries = messages.map(
        (message, index): SendMessageBatchRequestEntry => ({
          Id: String(index),
          MessageBody: JSON.stringify(message),
          DelaySeconds: options?.delaySeconds,
        }),
      );
      const batches = [];
      for (let start = 0; start < entries.length; start += BATCH) {
        batches.push(sendBatch(entries.slice(start, start + BATCH)));
      }
      await Promise.all(batches);
    },
  };
};
