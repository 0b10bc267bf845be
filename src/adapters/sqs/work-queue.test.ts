import { SendMessageBatchCommand, SQSClient } from "@aws-sdk/client-sqs";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { createSqsWorkQueue } from "./work-queue.ts";

const sqs = mockClient(SQSClient);
const URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/attribution";

describe("createSqsWorkQueue", () => {
  beforeEach(() => sqs.reset());

  it("sends messages as JSON in batches of ten, with the delay asked for", async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const queue = createSqsWorkQueue<{ n: number }>(new SQSClient({}), URL);
    await queue.send(
      Array.from({ length: 23 }, (_, n) => ({ n })),
      { delaySeconds: 30 },
    );
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
    expect(calls.map((input) => input.Entries?.length)).toEqual([10, 10, 3]);
    expect(calls.every((input) => input.QueueUrl === URL)).toBe(true);
    const bodies = calls
      .flatMap((input) => input.Entries ?? [])
      .map((e) => JSON.parse(e.MessageBody ?? ""));
    expect(bodies).toEqual(Array.from({ length: 23 }, (_, n) => ({ n })));
    expect(calls[0]?.Entries?.[0]?.DelaySeconds).toBe(30);
  });

  it("sends again only the entries SQS failed on its side, once", async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [{ Id: "1", SenderFault: false, Code: "InternalError" }] })
      .resolves({ Failed: [] });
    await createSqsWorkQueue(new SQSClient({}), URL).send([{ n: 0 }, { n: 1 }]);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
    expect(calls[1]?.Entries?.map((e) => e.MessageBody)).toEqual([JSON.stringify({ n: 1 })]);
  });

  it("fails when an entry is refused for the sender's fault or twice", async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Failed: [{ Id: "0", SenderFault: true, Code: "InvalidParameterValue", Message: "too big" }],
    });
    await expect(createSqsWorkQueue(new SQSClient({}), URL).send([{ n: 0 }])).rejects.toThrow(
      /refused 1 of 1 messages: InvalidParameterValue too big/,
    );
    sqs.reset();
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Failed: [{ Id: "0", SenderFault: false, Code: "InternalError" }] });
    await expect(createSqsWorkQueue(new SQSClient({}), URL).send([{ n: 0 }])).rejects.toThrow(
      /InternalError/,
    );
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(2);
  });
});
