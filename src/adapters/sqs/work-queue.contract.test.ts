/**
 * The work queue contract (../contracts/work-queue.test-support.ts) over SQS, as moto's server
 * answers its API (test/local-aws/moto.ts): messages sent by the SQS work queue, received in
 * batches and handed to the Lambda handler the worker's event source calls, the queue's
 * redrive policy moving a message to its dead-letter queue after `maxAttempts` receives.
 *
 * `drain` does what Lambda's SQS event source does with a batch: it calls the function,
 * deletes the messages it did not report failed (all of them when it throws) and leaves the
 * rest. Instead of waiting out their visibility timeout it makes them visible at once.
 */
import { randomUUID } from "node:crypto";
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse } from "aws-lambda";
import { afterAll, beforeAll, describe } from "vitest";
import {
  MOTO_REGION,
  type MotoServer,
  motoClientConfig,
  motoDisabled,
  reportNoMoto,
  sqsEventOf,
  startMoto,
} from "../../../test/local-aws/moto.ts";
import { describeWorkQueueContract } from "../contracts/work-queue.test-support.ts";
import { createSqsWorkQueue } from "./work-queue.ts";
import { createSqsWorkerHandler } from "./worker-handler.ts";

const CONTEXT = {
  functionName: "contract",
  awsRequestId: "contract",
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

reportNoMoto("the work queue contract over SQS (src/adapters/sqs/work-queue.contract.test.ts)");

describe.skipIf(motoDisabled)("SQS", () => {
  let moto: MotoServer;
  let sqs: SQSClient;

  beforeAll(async () => {
    moto = await startMoto();
    sqs = new SQSClient(motoClientConfig(moto));
  });
  afterAll(async () => {
    sqs?.destroy();
    await moto?.stop();
  });

  const receiveAll = async (queueUrl: string, max: number): Promise<Message[]> => {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: max,
        MessageSystemAttributeNames: ["All"],
        WaitTimeSeconds: 0,
      }),
    );
    return Messages;
  };

  describeWorkQueueContract("SQS and the worker's Lambda handler", async (worker) => {
    const name = `contract-${randomUUID()}`;
    const { QueueUrl: deadUrl = "" } = await sqs.send(
      new CreateQueueCommand({ QueueName: `${name}-dead` }),
    );
    const arnOf = async (url: string) =>
      (
        await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }),
        )
      ).Attributes?.QueueArn ?? "";
    const { QueueUrl: queueUrl = "" } = await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: "300",
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: await arnOf(deadUrl),
            maxReceiveCount: worker.maxAttempts,
          }),
        },
      }),
    );
    const queueArn = await arnOf(queueUrl);
    return {
      queue: createSqsWorkQueue(sqs, queueUrl),
      async drain(handle) {
        const lambda = createSqsWorkerHandler(worker, handle);
        for (;;) {
          const batch = await receiveAll(queueUrl, worker.batchSize);
          if (batch.length === 0) return;
          let failedIds: Set<string>;
          try {
            const answer = (await lambda(
              sqsEventOf(batch, queueArn, MOTO_REGION),
              CONTEXT,
            )) as SQSBatchResponse;
            failedIds = new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
          } catch {
            failedIds = new Set(batch.map((message) => message.MessageId ?? ""));
          }
          const done = batch.filter((message) => !failedIds.has(message.MessageId ?? ""));
          const failed = batch.filter((message) => failedIds.has(message.MessageId ?? ""));
          const entries = (messages: Message[]) =>
            messages.map((message, i) => ({
              Id: String(i),
              ReceiptHandle: message.ReceiptHandle ?? "",
            }));
          if (done.length > 0) {
            await sqs.send(
              new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries(done) }),
            );
          }
          if (failed.length > 0) {
            await sqs.send(
              new ChangeMessageVisibilityBatchCommand({
                QueueUrl: queueUrl,
                Entries: entries(failed).map((entry) => ({ ...entry, VisibilityTimeout: 0 })),
              }),
            );
          }
        }
      },
      async dead() {
        const bodies: unknown[] = [];
        for (;;) {
          const messages = await receiveAll(deadUrl, 10);
          if (messages.length === 0) return bodies;
          // Received, they stay hidden for the queue's visibility timeout (30 s): listed once.
          bodies.push(...messages.map((message) => JSON.parse(message.Body ?? "null")));
        }
      },
      async close() {
        await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
        await sqs.send(new DeleteQueueCommand({ QueueUrl: deadUrl }));
      },
    };
  });
});
