/**
 * The embedded DynamoDB answers only its own clients: any process on the machine can find its
 * loopback port, and any web page open in a browser can send to it, so a request without the
 * token made at its start, or one from a browser (an `Origin` header), is refused before the
 * store reads it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectDynamoDb,
  type DynamoConnection,
  LOCAL_DYNAMODB_TOKEN_HEADER,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
} from "./local-dynamodb.ts";

/** A DynamoDB request as any HTTP client can write one: its service accepts any signature. */
const send = (
  endpoint: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request(endpoint, { method: options.method ?? "POST", headers: options.headers });
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
      req.on("error", reject);
      req.end(options.body);
    },
  );

const scanHeaders = {
  "content-type": "application/x-amz-json-1.0",
  "x-amz-target": "DynamoDB_20120810.Scan",
  "x-amz-date": "20260101T000000Z",
  authorization:
    "AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0",
};
const scanUsers = JSON.stringify({ TableName: LOCAL_TABLE_NAMES.users });

const refused = (answer: { status: number; headers: Record<string, unknown>; body: string }) => {
  expect(answer.status).toBe(403);
  expect(answer.body).not.toContain("Items");
  for (const name of Object.keys(answer.headers)) expect(name).not.toMatch(/^access-control-/);
};

describe.each([
  { where: "in this thread", thread: false },
  { where: "in its own thread", thread: true },
])("the embedded DynamoDB $where", ({ thread }) => {
  let dir: string;
  let dynamo: DynamoConnection;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "local-dynamodb-"));
    dynamo = await startLocalDynamoDb(join(dir, "dynamodb"), { thread });
  });
  afterAll(async () => {
    await dynamo?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers its own clients, and another client given its endpoint and token", async () => {
    const tables = await dynamo.client.send(new ListTablesCommand({}));
    expect(tables.TableNames).toContain(LOCAL_TABLE_NAMES.users);
    const other = connectDynamoDb(dynamo.endpoint, dynamo.token);
    try {
      const again = await other.client.send(new ListTablesCommand({}));
      expect(again.TableNames).toEqual(tables.TableNames);
    } finally {
      await other.close();
    }
  });

  it("refuses a request without the token, or with another one", async () => {
    refused(await send(dynamo.endpoint, { headers: scanHeaders, body: scanUsers }));
    refused(await send(dynamo.endpoint, { method: "GET" }));
    const wrong = connectDynamoDb(dynamo.endpoint, `${dynamo.token}x`);
    try {
      await expect(wrong.client.send(new ListTablesCommand({}))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
    } finally {
      await wrong.close();
    }
  });

  it("refuses a browser's request (an Origin header), its preflight too, even with the token", async () => {
    const origin = "https://pages.example";
    const token = { ...scanHeaders, [LOCAL_DYNAMODB_TOKEN_HEADER]: dynamo.token };
    refused(await send(dynamo.endpoint, { headers: { ...token, origin }, body: scanUsers }));
    refused(
      await send(dynamo.endpoint, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type,x-amz-target,authorization",
        },
      }),
    );
    // The same request without the Origin is the store's own.
    const own = await send(dynamo.endpoint, { headers: token, body: scanUsers });
    expect(own.status).toBe(200);
  });
});
