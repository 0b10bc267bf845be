import type { Context, SQSEvent, SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { WorkMessage } from "../../ports/work-queue.ts";
import { defineWorker } from "../../workers/worker.ts";
import { createSqsWorkerHandler } from "./worker-handler.ts";

const worker = defineWorker({
  id: "test",
  description: "A worker of tests.",
  message: z.object({ n: z.number() }),
  maxAttempts: 3,
  retryAfterSeconds: 30,
  batchSize: 10,
  maxConcurrency: 2,
  memoryMb: 256,
  timeoutSeconds: 5,
});

const record = (messageId: string, body: string, receiveCount = 1): SQSRecord => ({
  messageId,
  receiptHandle: `handle-${messageId}`,
  body,
  attributes: {
    ApproximateReceiveCount: String(receiveCount),
    SentTimestamp: "1700000000000",
    SenderId: "sender",
    ApproximateFirstReceiveTimestamp: "1700000000000",
  },
  messageAttributes: {},
  md5OfBody: "",
  eventSource: "aws:sqs",
  eventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:test",
  awsRegion: "eu-west-1",
});

const context = { functionName: "test", awsRequestId: "r" } as Context;

describe("createSqsWorkerHandler", () => {
  it("hands each parsed body to the worker and reports only the failed records", async () => {
    const seen: WorkMessage<{ n: number }>[] = [];
    const handler = createSqsWorkerHandler(worker, async (message) => {
      seen.push(message);
      if (message.body.n === 2) throw new Error("store down");
    });
    const event: SQSEvent = {
      Records: [
        record("a", JSON.stringify({ n: 1 }), 2),
        record("b", JSON.stringify({ n: 2 })),
        record("c", JSON.stringify({ n: "not a number" })),
        record("d", "not json"),
      ],
    };
    const answer = await handler(event, context);
    expect(answer.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(["b", "c", "d"]);
    expect(seen).toEqual([
      { id: "a", body: { n: 1 }, attempt: 2 },
      { id: "b", body: { n: 2 }, attempt: 1 },
    ]);
  });

  it("fails the invocation when every record failed, so SQS retries the batch", async () => {
    const handler = createSqsWorkerHandler(worker, async () => {
      throw new Error("down");
    });
    await expect(handler({ Records: [record("a", '{"n":1}')] }, context)).rejects.toThrow();
  });
});
