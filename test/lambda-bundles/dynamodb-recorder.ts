/**
 * A recording proxy in front of a local DynamoDB: each request passed on as it came, and noted
 * with the access key that signed it, so that a test can hold what each function did to the
 * IAM policy its role has on AWS (each function signs with a key of its own).
 */
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Authorization } from "./iam-policy.ts";

/** One request: the key that signed it, the operation, and its body. */
export interface RecordedRequest {
  readonly accessKey: string;
  /** `GetItem`, from the `X-Amz-Target` header. */
  readonly operation: string;
  readonly body: Record<string, unknown>;
}

export interface DynamoRecorder {
  readonly endpoint: string;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "host"]);

const accessKeyOf = (request: IncomingMessage): string =>
  /Credential=([^/]+)\//.exec(String(request.headers.authorization ?? ""))?.[1] ?? "";

export const startDynamoRecorder = async (target: string): Promise<DynamoRecorder> => {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (request, response) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const operation = String(request.headers["x-amz-target"] ?? "").split(".")[1] ?? "";
      requests.push({
        accessKey: accessKeyOf(request),
        operation,
        body: body.length > 0 ? (JSON.parse(body.toString("utf8")) as Record<string, unknown>) : {},
      });
      const headers = Object.fromEntries(
        Object.entries(request.headers)
          .filter(([name]) => !HOP_BY_HOP.has(name))
          .map(([name, value]) => [name, String(value)]),
      );
      const answer = await fetch(`${target}${request.url ?? "/"}`, {
        method: request.method ?? "POST",
        headers,
        ...(body.length > 0 && { body }),
      });
      const passed = Buffer.from(await answer.arrayBuffer());
      response.writeHead(
        answer.status,
        Object.fromEntries(
          [...answer.headers].filter(
            ([name]) => !HOP_BY_HOP.has(name) && name !== "content-length",
          ),
        ),
      );
      response.end(passed);
    } catch (error) {
      response.writeHead(502).end(String(error));
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
};

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
export const authorizationsOf = (
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
