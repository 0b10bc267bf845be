import { describe, expect, it } from "vitest";
import {
  dynamoAuthorizationsOf as authorizationsOf,
  authorizationsOf as authorizationsOfRequest,
} from "./authorizations.ts";
import { isAllowedBy, type Statement } from "./iam-policy.ts";

const TABLE = "arn:aws:dynamodb:eu-west-1:123456789012:table/Touches";
const get = (leadingKeys: string[]) => ({
  action: "dynamodb:GetItem",
  resource: TABLE,
  leadingKeys,
});

describe("IAM's verdict on a request", () => {
  const claims: Statement = {
    Effect: "Allow",
    Action: ["dynamodb:GetItem"],
    Resource: [TABLE],
    Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["claim#*"] } },
  };

  it("allows only the actions and resources a statement names, actions in any case", () => {
    expect(isAllowedBy([claims], get(["claim#1"]))).toBe(true);
    expect(isAllowedBy([claims], { ...get(["claim#1"]), action: "DynamoDB:getitem" })).toBe(true);
    expect(isAllowedBy([claims], { ...get(["claim#1"]), action: "dynamodb:PutItem" })).toBe(false);
    expect(isAllowedBy([claims], { ...get(["claim#1"]), resource: `${TABLE}2` })).toBe(false);
    expect(isAllowedBy([claims], { ...get([]), resource: `${TABLE}/index/byIp` })).toBe(false);
    const indexes = { ...claims, Resource: [`${TABLE}/index/*`] };
    expect(isAllowedBy([indexes], { ...get([]), resource: `${TABLE}/index/byIp` })).toBe(true);
  });

  it("holds every partition key to the leading keys' patterns, and a request naming none passes", () => {
    expect(isAllowedBy([claims], get(["claim#1", "claim#2"]))).toBe(true);
    expect(isAllowedBy([claims], get(["claim#1", "touch#2"]))).toBe(false);
    expect(isAllowedBy([claims], get([]))).toBe(true);
  });

  it("a Deny wins over an Allow, and nothing is allowed by no statement", () => {
    expect(isAllowedBy([claims, { ...claims, Effect: "Deny" }], get(["claim#1"]))).toBe(false);
    expect(isAllowedBy([], get(["claim#1"]))).toBe(false);
  });

  it("refuses to guess at a condition it does not read", () => {
    const other = { ...claims, Condition: { IpAddress: { "aws:SourceIp": ["10.0.0.1"] } } };
    expect(() => isAllowedBy([other], get(["claim#1"]))).toThrow(/does not read/);
  });
});

describe("what IAM checks for a DynamoDB request", () => {
  const arn = (table: string) => `arn:t/${table}`;
  const keys = () => ({ partitionKey: "clickId", indexes: { byIp: "ipKey" } });
  const of = (operation: string, body: Record<string, unknown>) =>
    authorizationsOf({ accessKey: "k", service: "DynamoDB_20120810", operation, body }, arn, keys);

  it("names the item's partition key, or the index's fixed by a query", () => {
    expect(of("PutItem", { TableName: "T", Item: { clickId: { S: "claim#1" } } })).toEqual([
      { action: "dynamodb:PutItem", resource: "arn:t/T", leadingKeys: ["claim#1"] },
    ]);
    expect(
      of("Query", {
        TableName: "T",
        IndexName: "byIp",
        KeyConditionExpression: "#k = :k AND #t > :t",
        ExpressionAttributeNames: { "#k": "ipKey", "#t": "at" },
        ExpressionAttributeValues: { ":k": { S: "app#1.2.3.4" }, ":t": { N: "1" } },
      }),
    ).toEqual([
      { action: "dynamodb:Query", resource: "arn:t/T/index/byIp", leadingKeys: ["app#1.2.3.4"] },
    ]);
  });

  it("checks a transaction's items by their own actions, and a batch by each table's keys", () => {
    expect(
      of("TransactWriteItems", {
        TransactItems: [
          { Put: { TableName: "A", Item: { clickId: { S: "a" } } } },
          { ConditionCheck: { TableName: "B", Key: { clickId: { S: "b" } } } },
        ],
      }),
    ).toEqual([
      { action: "dynamodb:PutItem", resource: "arn:t/A", leadingKeys: ["a"] },
      { action: "dynamodb:ConditionCheckItem", resource: "arn:t/B", leadingKeys: ["b"] },
    ]);
    expect(
      of("BatchWriteItem", {
        RequestItems: {
          T: [
            { PutRequest: { Item: { clickId: { S: "seen#1" } } } },
            { DeleteRequest: { Key: { clickId: { S: "seen#2" } } } },
          ],
        },
      }),
    ).toEqual([
      { action: "dynamodb:BatchWriteItem", resource: "arn:t/T", leadingKeys: ["seen#1", "seen#2"] },
    ]);
  });
});

describe("what IAM checks of SQS, Firehose and KMS requests", () => {
  const local = {
    tableArnOf: (name: string) => `arn:t/${name}`,
    tableKeysOf: () => ({ partitionKey: "k", indexes: {} }),
    arnOf: (ref: string) => (ref.endsWith("/Queue") ? "arn:sqs/Queue" : undefined),
    soleKeyArn: () => "arn:kms/key",
  };
  const of = (service: string, operation: string, body: Record<string, unknown>) =>
    authorizationsOfRequest({ accessKey: "k", service, operation, body }, local);

  it("reads a batch as its one-message action, and a key's encryption context for its conditions", () => {
    expect(of("AmazonSQS", "SendMessageBatch", { QueueUrl: "http://127.0.0.1:1/1/Queue" })).toEqual(
      [{ action: "sqs:SendMessage", resource: "arn:sqs/Queue", leadingKeys: [] }],
    );
    const [decrypt] = of("TrentService", "Decrypt", { EncryptionContext: { purpose: "p" } });
    expect(decrypt).toMatchObject({
      action: "kms:Decrypt",
      resource: "arn:kms/key",
      conditionValues: { "kms:EncryptionContext:purpose": "p" },
    });
    const purpose = (value: string): Statement => ({
      Effect: "Allow",
      Action: ["kms:Decrypt"],
      Resource: ["arn:kms/key"],
      Condition: { StringEquals: { "kms:EncryptionContext:purpose": [value] } },
    });
    if (!decrypt) throw new Error("no authorization");
    expect(isAllowedBy([purpose("p")], decrypt)).toBe(true);
    expect(isAllowedBy([purpose("other")], decrypt)).toBe(false);
    // A context that names no purpose fails a condition on it.
    expect(isAllowedBy([purpose("p")], { ...decrypt, conditionValues: {} })).toBe(false);
    // A resource no made one answers to matches no statement.
    expect(
      of("Firehose_20150804", "PutRecordBatch", { DeliveryStreamName: "Gone" })[0]?.resource,
    ).toBe("(no local resource Gone)");
  });
});
