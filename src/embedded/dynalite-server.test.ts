/**
 * dynalite reads every Query and Scan through a LevelDB iterator. Each must be closed once its
 * request is answered: an open iterator keeps LevelDB's memtable and table files of its moment,
 * so a store that leaves them open grows in memory and on disk with every Query while the
 * service runs. The store runs in this thread here, so that its iterators can be counted
 * through abstract-level's resource hooks (every iterator attaches itself to its database while
 * open, and detaches when closed).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
} from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitUntilActive } from "../adapters/dynamodb/table-definitions.ts";
import { fromDynalite, startDynalite } from "./dynalite-server.mjs";
import {
  connectDynamoDb,
  type DynamoConnection,
  LOCAL_DYNAMODB_TOKEN_HEADER,
} from "./local-dynamodb.ts";

interface ResourceHooks {
  attachResource(resource: object): void;
  detachResource(resource: object): void;
}

/** The LevelDB class dynalite opens its store with, as dynalite's folder resolves it. */
const { Level } = fromDynalite()("level") as {
  Level: { prototype: ResourceHooks };
};

const TABLE = "iterators";
const ITEMS = 30;

describe("the embedded DynamoDB's queries and scans", () => {
  let dir: string;
  let server: { close: () => Promise<void> };
  let address = "";
  let dynamo: DynamoConnection;
  /** Iterators dynalite's database holds open now, and how many it has opened in all. */
  const open = new Set<object>();
  let opened = 0;

  beforeAll(async () => {
    const { attachResource, detachResource } = Level.prototype;
    Level.prototype.attachResource = function (resource) {
      open.add(resource);
      opened++;
      attachResource.call(this, resource);
    };
    Level.prototype.detachResource = function (resource) {
      open.delete(resource);
      detachResource.call(this, resource);
    };
    dir = await mkdtemp(join(tmpdir(), "dynalite-iterators-"));
    const token = randomBytes(16).toString("hex");
    const started = await startDynalite(dir, 0, { header: LOCAL_DYNAMODB_TOKEN_HEADER, token });
    server = started;
    address = started.address;
    dynamo = connectDynamoDb(`http://127.0.0.1:${started.port}`, token);
    await dynamo.client.send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [
          { AttributeName: "pk", AttributeType: "S" },
          { AttributeName: "sk", AttributeType: "N" },
          { AttributeName: "group", AttributeType: "S" },
        ],
        KeySchema: [
          { AttributeName: "pk", KeyType: "HASH" },
          { AttributeName: "sk", KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: "by-group",
            KeySchema: [
              { AttributeName: "group", KeyType: "HASH" },
              { AttributeName: "sk", KeyType: "RANGE" },
            ],
            Projection: { ProjectionType: "KEYS_ONLY" },
          },
        ],
      }),
    );
    // CREATING for a moment, in which a write would find no table.
    await waitUntilActive(dynamo.client, TABLE);
    for (let start = 0; start < ITEMS; start += 25) {
      const requests = Array.from({ length: Math.min(25, ITEMS - start) }, (_, i) => ({
        PutRequest: {
          Item: { pk: { S: "a" }, sk: { N: String(start + i) }, group: { S: "g" } },
        },
      }));
      await dynamo.client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } }));
    }
  });

  afterAll(async () => {
    await server?.close();
    // The hooks set here shadow abstract-level's, which the prototype's chain still holds.
    delete (Level.prototype as Partial<ResourceHooks>).attachResource;
    delete (Level.prototype as Partial<ResourceHooks>).detachResource;
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * Waits for the iterators to close: they close as their stream ends, just after the answer,
   * on libuv's threads. Those may be busy with other tests' files: the bound is far above it.
   */
  const openAfterwards = async () => {
    for (let i = 0; i < 1_000 && open.size > 0; i++) await sleep(10);
    return open.size;
  };

  it("listens on loopback alone: its port is open to this machine only", () => {
    expect(address).toBe("127.0.0.1");
  });

  const key = { ":pk": { S: "a" } };
  const query = (input: Omit<QueryCommandInput, "TableName">) =>
    dynamo.client.send(new QueryCommand({ TableName: TABLE, ...input }));
  it.each([
    {
      what: "a Query that stops at its Limit",
      run: () =>
        query({
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: key,
          Limit: 5,
        }),
      count: 5,
    },
    {
      what: "a Query read to its end",
      run: () =>
        query({
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: key,
        }),
      count: ITEMS,
    },
    {
      what: "a Query that finds nothing",
      run: () =>
        query({
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": { S: "none" } },
        }),
      count: 0,
    },
    {
      what: "a Query of an index that stops at its Limit",
      run: () =>
        query({
          IndexName: "by-group",
          KeyConditionExpression: "#group = :group",
          ExpressionAttributeNames: { "#group": "group" },
          ExpressionAttributeValues: { ":group": { S: "g" } },
          Limit: 4,
        }),
      count: 4,
    },
    {
      what: "a Scan that stops at its Limit",
      run: () => dynamo.client.send(new ScanCommand({ TableName: TABLE, Limit: 7 })),
      count: 7,
    },
  ])("close their iterators once answered: $what", async ({ run, count }) => {
    const before = opened;
    for (let i = 0; i < 3; i++) {
      const answer = await run();
      expect(answer.Count).toBe(count);
    }
    // Iterators were opened (the count sees them) and none of them stays open.
    expect(opened).toBeGreaterThan(before);
    expect(await openAfterwards()).toBe(0);
  });
});
