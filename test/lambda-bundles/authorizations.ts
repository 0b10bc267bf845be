/**
 * What IAM checks for one recorded request (./recorder.ts), service by service: the action on
 * the resource it names, with the values its conditions read (a DynamoDB request's partition
 * keys, a KMS request's encryption context).
 */
import type { Authorization } from "./iam-policy.ts";
import type { RecordedRequest } from "./recorder.ts";

/** A table's partition key attribute, and each of its indexes' partition key attribute. */
export interface TableKeys {
  readonly partitionKey: string;
  readonly indexes: Readonly<Record<string, string>>;
}

type Item = Record<string, Record<string, unknown>>;

/** The string an attribute value holds (S or N), as `dynamodb:LeadingKeys` sees it. */
const scalarOf = (value: Record<string, unknown> | undefined): string | undefined => {
  const held = value?.S ?? value?.N;
  return typeof held === "string" ? held : undefined;
};

/** The value a key condition expression fixes its partition key attribute to. */
const partitionValueOf = (body: Record<string, unknown>, attribute: string): string[] => {
  const expression = String(body.KeyConditionExpression ?? "");
  const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (body.ExpressionAttributeValues ?? {}) as Item;
  for (const [, name, value] of expression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    if ((name?.startsWith("#") ? names[name] : name) === attribute) {
      const held = scalarOf(values[value ?? ""]);
      return held === undefined ? [] : [held];
    }
  }
  throw new Error(`No partition key (${attribute}) fixed in ${expression}`);
};

/**
 * What IAM checks for one DynamoDB request: the action on each table (or index) it touches,
 * with the partition key values it names. The authorizations of a transaction are its items'
 * own (PutItem, UpdateItem, DeleteItem, ConditionCheckItem, GetItem), as IAM evaluates them.
 */
export const dynamoAuthorizationsOf = (
  request: RecordedRequest,
  tableArn: (table: string) => string,
  keysOf: (table: string) => TableKeys,
): Authorization[] => {
  const { operation, body } = request;
  const table = String(body.TableName ?? "");
  const keyOf = (name: string, item: unknown): string[] => {
    const held = scalarOf((item as Item | undefined)?.[keysOf(name).partitionKey]);
    return held === undefined ? [] : [held];
  };
  const one = (action: string, name: string, leadingKeys: string[]): Authorization => ({
    action: `dynamodb:${action}`,
    resource: tableArn(name),
    leadingKeys,
  });
  switch (operation) {
    case "GetItem":
    case "DeleteItem":
    case "UpdateItem":
      return [one(operation, table, keyOf(table, body.Key))];
    case "PutItem":
      return [one(operation, table, keyOf(table, body.Item))];
    case "Query":
    case "Scan": {
      const index = typeof body.IndexName === "string" ? body.IndexName : undefined;
      const keys = keysOf(table);
      const partitionKey = index === undefined ? keys.partitionKey : keys.indexes[index];
      if (partitionKey === undefined) throw new Error(`${table} has no index ${index}`);
      return [
        {
          action: `dynamodb:${operation}`,
          resource: index === undefined ? tableArn(table) : `${tableArn(table)}/index/${index}`,
          leadingKeys: operation === "Query" ? partitionValueOf(body, partitionKey) : [],
        },
      ];
    }
    case "BatchGetItem":
      return Object.entries((body.RequestItems ?? {}) as Record<string, { Keys: unknown[] }>).map(
        ([name, { Keys }]) =>
          one(
            operation,
            name,
            Keys.flatMap((key) => keyOf(name, key)),
          ),
      );
    case "BatchWriteItem":
      return Object.entries(
        (body.RequestItems ?? {}) as Record<
          string,
          { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]
        >,
      ).map(([name, writes]) =>
        one(
          operation,
          name,
          writes.flatMap((w) => keyOf(name, w.PutRequest?.Item ?? w.DeleteRequest?.Key)),
        ),
      );
    case "TransactWriteItems":
    case "TransactGetItems": {
      const actions: Record<string, string> = {
        Put: "PutItem",
        Update: "UpdateItem",
        Delete: "DeleteItem",
        ConditionCheck: "ConditionCheckItem",
        Get: "GetItem",
      };
      return ((body.TransactItems ?? []) as Record<string, Record<string, unknown>>[]).flatMap(
        (item) =>
          Object.entries(item).map(([kind, part]) => {
            const name = String(part.TableName ?? "");
            const action = actions[kind];
            if (action === undefined) throw new Error(`A transaction item of kind ${kind}`);
            return one(action, name, keyOf(name, part.Item ?? part.Key));
          }),
      );
    }
    default:
      return table === "" ? [] : [one(operation, table, [])];
  }
};

/** The local resources a request names, by the ARNs the template's statements resolve to. */
export interface LocalResources {
  tableArnOf(name: string): string;
  tableKeysOf(name: string): TableKeys;
  /** The ARN of the made resource a reference is: a queue's URL or name, a stream's name, a key's id or ARN. */
  arnOf(ref: string): string | undefined;
  /** The one KMS key made: what a Decrypt that names no key decrypts with. */
  soleKeyArn(): string;
}

/** A reference no made resource answers to: an ARN no statement names. */
const unknownArn = (ref: string) => `(no local resource ${ref})`;

/**
 * What IAM checks for one request of the services the functions reach through the recorder:
 * DynamoDB (./authorizations.ts's tables), SQS and Firehose (the action on the queue or
 * stream), KMS (the action on the key, with the encryption context its conditions read, as
 * `kms:EncryptionContext:<key>`).
 */
export const authorizationsOf = (
  request: RecordedRequest,
  local: LocalResources,
): Authorization[] => {
  const { service, operation, body } = request;
  const arnOf = (ref: unknown) => local.arnOf(String(ref ?? "")) ?? unknownArn(String(ref));
  switch (service) {
    case "DynamoDB_20120810":
      return dynamoAuthorizationsOf(request, local.tableArnOf, local.tableKeysOf);
    case "AmazonSQS":
      return [
        {
          // A batch is authorized as its one-message action (SendMessageBatch as SendMessage).
          action: `sqs:${operation.replace(/Batch$/, "")}`,
          resource: arnOf(body.QueueUrl ?? body.QueueName),
          leadingKeys: [],
        },
      ];
    case "Firehose_20150804":
      return [
        {
          action: `firehose:${operation}`,
          resource: arnOf(body.DeliveryStreamName),
          leadingKeys: [],
        },
      ];
    case "TrentService": {
      const context = (body.EncryptionContext ?? {}) as Record<string, string>;
      return [
        {
          action: `kms:${operation}`,
          resource: body.KeyId === undefined ? local.soleKeyArn() : arnOf(body.KeyId),
          leadingKeys: [],
          conditionValues: Object.fromEntries(
            Object.entries(context).map(([key, value]) => [`kms:EncryptionContext:${key}`, value]),
          ),
        },
      ];
    }
    default:
      throw new Error(`No IAM reading of ${service}.${operation}`);
  }
};
