/**
 * Key schemas of the service's DynamoDB tables, defined once: the CDK stack and the embedded
 * runtime both create their tables from this list.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
} from "@aws-sdk/client-dynamodb";

export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
}

export interface TableDefinition {
  readonly partitionKey: string;
  readonly indexes?: readonly IndexDefinition[];
  /** Epoch-seconds attribute that DynamoDB's TTL reaps on AWS. */
  readonly ttlAttribute?: string;
}

export const TABLE_DEFINITIONS = {
  apps: { partitionKey: "appId" },
  keys: { partitionKey: "keyId", indexes: [{ name: "byApp", partitionKey: "appId" }] },
  snapshots: {
    partitionKey: "snapshotKey",
    // The purge job finds an app's snapshots through it. Not added to an embedded data
    // directory created before it (dynalite cannot add an index); the embedded runtime
    // purges its snapshot files directly and never queries it.
    indexes: [{ name: "byApp", partitionKey: "appId" }],
    ttlAttribute: "expiresTtl",
  },
  installs: { partitionKey: "installKey" },
  customerUsers: {
    partitionKey: "customerUserKey",
    indexes: [{ name: "byInstall", partitionKey: "installKey" }],
  },
  deletions: {
    partitionKey: "requestId",
    indexes: [
      { name: "byApp", partitionKey: "appId" },
      // Sparse: only open requests carry `openStatus`, so the purge job reads just those.
      { name: "open", partitionKey: "openStatus" },
      // One install's requests: a first open, an event for an unknown install and a repeated
      // request each look up one install, which must not cost a read of the app's every
      // request. Not added to an embedded data directory created before it (dynalite cannot
      // add an index); the embedded runtime answers these lookups from its by-app cache.
      { name: "byInstall", partitionKey: "appId", sortKey: "serviceId" },
    ],
  },
} as const satisfies Record<string, TableDefinition>;

/**
 * How the key of an app's tombstones item in the deletions table begins (`app#<app id>`):
 * never a request id, which is a UUID. The store keeps it; IAM grants name it.
 */
export const TOMBSTONES_PREFIX = "app#";

export type TableId = keyof typeof TABLE_DEFINITIONS;
export type TableNames = Record<TableId, string>;

/** Creates each table that does not exist yet (the embedded runtime; CDK does it on AWS). */
export const ensureTables = async (client: DynamoDBClient, names: TableNames): Promise<void> => {
  for (const [id, definition] of Object.entries(TABLE_DEFINITIONS) as [
    TableId,
    TableDefinition,
  ][]) {
    const keys = [
      definition.partitionKey,
      ...(definition.indexes ?? []).flatMap((i) => [
        i.partitionKey,
        ...(i.sortKey ? [i.sortKey] : []),
      ]),
    ];
    try {
      await client.send(
        new CreateTableCommand({
          TableName: names[id],
          BillingMode: "PAY_PER_REQUEST",
          AttributeDefinitions: [...new Set(keys)].map((name) => ({
            AttributeName: name,
            AttributeType: "S",
          })),
          KeySchema: [{ AttributeName: definition.partitionKey, KeyType: "HASH" }],
          GlobalSecondaryIndexes: definition.indexes?.map((index) => ({
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: "HASH" },
              ...(index.sortKey
                ? [{ AttributeName: index.sortKey, KeyType: "RANGE" as const }]
                : []),
            ],
            Projection: { ProjectionType: "ALL" },
          })),
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
    }
    await waitUntilActive(client, names[id]);
  }
};

/**
 * Resolves once the table can be used. A new table is CREATING at first: on the embedded
 * server (dynalite) for a moment, in which a request to it would fail as if it did not exist.
 */
export const waitUntilActive = async (client: DynamoDBClient, table: string): Promise<void> => {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.TableStatus === "ACTIVE") return;
    await sleep(10);
  }
  throw new Error(`DynamoDB table ${table} is still not active`);
};
