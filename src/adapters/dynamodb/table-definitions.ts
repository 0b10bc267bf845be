/** The service's DynamoDB tables, defined once: their keys, indexes, expiry and lifetime. */
import { setTimeout as sleep } from "node:timers/promises";
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
} from "@aws-sdk/client-dynamodb";
import type { HandlerRef } from "../../functions/handler-ref.ts";

export interface IndexDefinition {
  readonly partitionKey: string;
  readonly sortKey?: string;
}

export interface TableDefinition {
  readonly partitionKey: string;
  /** Global secondary indexes, by name; each projects every attribute. */
  readonly indexes?: Readonly<Record<string, IndexDefinition>>;
  /** Epoch-seconds attribute that DynamoDB's TTL reaps on AWS. */
  readonly ttlAttribute?: string;
  /**
   * Whether the table outlives its stack on AWS: `retain` for what the service cannot make
   * again (apps, keys, installs, deletion requests), `destroy` for caches.
   */
  readonly removal: "retain" | "destroy";
  /** What it holds, for the stack's output of its name. */
  readonly holds: string;
  /**
   * Its store's factory (`(doc, tableName) => store`), which a Lambda entry imports for a
   * function that uses the table.
   */
  readonly store: HandlerRef;
}

/**
 * One entry per table, keyed by the id code uses for it. The CDK stack (lib/dynamodb-tables.ts) and the
 * embedded runtime create their tables from these entries, and the stores read indexes by
 * their names here, so a new table is an entry here and its store.
 */
export const TABLE_DEFINITIONS = {
  apps: {
    store: "adapters/dynamodb/stores.ts#createAppStore",
    partitionKey: "appId",
    removal: "retain",
    holds: "apps",
  },
  keys: {
    store: "adapters/dynamodb/stores.ts#createKeyStore",
    partitionKey: "keyId",
    indexes: { byApp: { partitionKey: "appId" } },
    removal: "retain",
    holds: "API keys",
  },
  snapshots: {
    store: "adapters/dynamodb/stores.ts#createSnapshotCatalog",
    partitionKey: "snapshotKey",
    // The purge job finds an app's snapshots through it.
    indexes: { byApp: { partitionKey: "appId" } },
    ttlAttribute: "expiresTtl",
    removal: "destroy",
    holds: "export snapshots",
  },
  installs: {
    store: "adapters/dynamodb/installs.ts#createInstallStore",
    partitionKey: "installKey",
    // An iOS app's installs of one IDFV (`<app>#<idfv>`): a new one of a device seen before is
    // a reinstall. Sparse (only installs with an IDFV), and the sort key is unique per install.
    indexes: { byIdfv: { partitionKey: "idfvKey", sortKey: "installKey" } },
    removal: "retain",
    holds: "installs",
  },
  customerUsers: {
    store: "adapters/dynamodb/installs.ts#createCustomerUserMap",
    partitionKey: "customerUserKey",
    // A mapping and an install's use of an id both name the install; a use names its id too
    // (`<app>#<customer user id>`), so an id's other installs are one query. Sparse: only uses.
    indexes: {
      byInstall: { partitionKey: "installKey" },
      byUser: { partitionKey: "userKey" },
    },
    removal: "retain",
    holds: "customer user ids and their installs",
  },
  deletions: {
    store: "adapters/dynamodb/deletions.ts#createDeletionStore",
    partitionKey: "requestId",
    indexes: {
      byApp: { partitionKey: "appId" },
      // Sparse: only open requests carry `openStatus`, so the purge job reads just those.
      open: { partitionKey: "openStatus" },
      // One install's requests: a first open, an event for an unknown install and a repeated
      // request each look up one install, which must not cost a read of the app's every request.
      byInstall: { partitionKey: "appId", sortKey: "serviceId" },
    },
    // Deletion requests are what keeps deleted data out of exports: they outlive the stack.
    removal: "retain",
    holds: "deletion requests",
  },
  links: {
    store: "adapters/dynamodb/links.ts#createLinkStore",
    partitionKey: "deeplinkId",
    // An app's links, newest first: the sort key is `<created at>#<deeplink id>`.
    indexes: { byApp: { partitionKey: "appId", sortKey: "createdKey" } },
    removal: "retain",
    holds: "links",
  },
  attributions: {
    store: "adapters/dynamodb/attributions.ts#createAttributionStore",
    partitionKey: "attributionKey",
    // Sparse: only attributions not yet finished carry `openMarker`, so the sweeper reads just
    // those; the sort key, unique per install, keeps every one of them in the index.
    indexes: { open: { partitionKey: "openMarker", sortKey: "attributionKey" } },
    removal: "retain",
    holds: "installs' attributions",
  },
  touches: {
    store: "adapters/dynamodb/touches.ts#createTouchStore",
    partitionKey: "clickId",
    // The matcher's lookups, each a window of one app's touches newest first. The sort key
    // (`<touch time>#<click id>`) is unique per touch: an index keyed by a value many touches
    // share (one IP behind a carrier NAT) must still hold every one of them.
    indexes: {
      byMaid: { partitionKey: "maidKey", sortKey: "touchKey" },
      byIp: { partitionKey: "ipKey", sortKey: "touchKey" },
    },
    ttlAttribute: "expiresTtl",
    // Touches expire within 30 days, but until then matching cannot do without them.
    removal: "retain",
    holds: "clicks and impressions until they expire",
  },
  users: {
    store: "adapters/dynamodb/users.ts#createUserStore",
    partitionKey: "email",
    removal: "retain",
    holds: "dashboard users and the apps each may see",
  },
  sessions: {
    store: "adapters/dynamodb/users.ts#createSessionStore",
    partitionKey: "sessionKey",
    ttlAttribute: "expiresTtl",
    // A lost session is a sign-in again.
    removal: "destroy",
    holds: "dashboard sessions",
  },
  postbackConfigs: {
    store: "adapters/dynamodb/postbacks.ts#createPostbackConfigStore",
    // `<app id>#partner#<id>`, `<app id>#webhook#<id>`, and `<app id>#settings`.
    partitionKey: "configKey",
    // An app's configurations and settings; the sort key is unique per item.
    indexes: { byApp: { partitionKey: "appId", sortKey: "configKey" } },
    // The owner's configurations and the secrets they were given: not made again.
    removal: "retain",
    holds: "apps' postback and webhook configurations",
  },
  outbox: {
    store: "adapters/dynamodb/postbacks.ts#createOutboxStore",
    // One row per send (src/postbacks/rules.ts's sendIdOf), added only where none is.
    partitionKey: "sendId",
    // An install's sends (`<app id>#<service id>`), which its deletion request purges.
    indexes: { byInstall: { partitionKey: "installKey" } },
    ttlAttribute: "expiresTtl",
    // What was sent: without it a repeated install or event would be sent again.
    removal: "retain",
    holds: "postbacks and webhooks, one row per send, until they expire",
  },
  deliveryLog: {
    store: "adapters/dynamodb/postbacks.ts#createDeliveryLog",
    // `<send id>#<attempt>` for an attempt, `count#<app id>#<day>#<configuration id>` for a
    // day's counts.
    partitionKey: "logKey",
    // An app's attempts newest first (the sort key, `<time>#<send id>#<attempt>`, is unique per
    // attempt) and its days' counts (`count#<day>#<configuration id>`, after every time).
    indexes: {
      byApp: { partitionKey: "appId", sortKey: "logSort" },
      // An install's attempts (`<app id>#<service id>`; counts have none), which its deletion
      // request purges: their URLs may hold its device ids and address.
      byInstall: { partitionKey: "installKey" },
    },
    ttlAttribute: "expiresTtl",
    removal: "destroy",
    holds: "every postback and webhook attempt, for 30 days",
  },
  applePostbacks: {
    store: "adapters/dynamodb/apple-postbacks.ts#createApplePostbackStore",
    // `<framework>#<transaction id>`: a device's retry of the same postback is refused.
    partitionKey: "postbackKey",
    // An app's postbacks by when they came (`-` for those of no app); and, by the App Store id
    // they name, those of no app that Apple's production key verified (only these have
    // `unclaimedKey`), which count for the app whose settings have the id later.
    indexes: {
      byApp: { partitionKey: "appKey", sortKey: "receivedKey" },
      unclaimed: { partitionKey: "unclaimedKey", sortKey: "receivedKey" },
    },
    // Unverified ones only: the public endpoints take anyone's body.
    ttlAttribute: "expiresTtl",
    // Apple's only word on most iOS installs: not made again.
    removal: "retain",
    holds: "SKAdNetwork and AdAttributionKit postbacks (unverified ones for 30 days)",
  },
  costs: {
    store: "adapters/dynamodb/costs.ts#createCostStore",
    // `<app id>#<day and keys>`: a row sent again for the same keys is written over.
    partitionKey: "costKey",
    // An app's rows by day.
    indexes: { byApp: { partitionKey: "appId", sortKey: "daySort" } },
    // What campaigns cost, as the owner reported it: not made again.
    removal: "retain",
    holds: "campaigns' cost per day",
  },
} as const satisfies Record<string, TableDefinition>;

/**
 * How the key of an app's tombstones item in the deletions table begins (`app#<app id>`):
 * never a request id, which is a UUID. The store keeps it; IAM grants name it.
 */
export const TOMBSTONES_PREFIX = "app#";

/**
 * How the key of an app's saved purge pass in the deletions table begins (`pass#<app id>`):
 * never a request id either. The store keeps it; IAM grants name it.
 */
export const PURGE_PASS_PREFIX = "pass#";

/**
 * How the key of a click's claim in the touches table begins (`claim#<app>#<click id>`): never
 * a click id, which has no `#`. The store keeps it; IAM grants name it.
 */
export const CLAIM_KEY_PREFIX = "claim#";

/**
 * How the key of an address's sighting in the touches table begins (./sightings.ts): never a
 * click id either. The store keeps it; IAM grants name it.
 */
export const SIGHTING_KEY_PREFIX = "seen#";

/**
 * How the key of a purged customer user mapping's mark begins (./installs.ts): never a mapping's
 * key, whose app id starts with a letter or a digit. The store keeps it; IAM grants name it.
 */
export const PURGED_CUSTOMER_USER_PREFIX = "#purged#";

/** How the key of an install's use of a customer user id begins (./installs.ts), likewise. */
export const CUSTOMER_USER_USE_PREFIX = "#use#";

export type TableId = keyof typeof TABLE_DEFINITIONS;
export type TableNames = Record<TableId, string>;

/** The index names of a table. */
export type IndexName<T extends TableId> = (typeof TABLE_DEFINITIONS)[T] extends {
  indexes: infer I;
}
  ? keyof I & string
  : never;

export const TABLE_IDS = Object.keys(TABLE_DEFINITIONS) as TableId[];

/** One value per table, keyed by its id. */
export const perTable = <V>(make: (id: TableId, definition: TableDefinition) => V) => {
  const made = {} as Record<TableId, V>;
  for (const id of TABLE_IDS) made[id] = make(id, TABLE_DEFINITIONS[id]);
  return made;
};

type IndexesOf<T extends TableId> = (typeof TABLE_DEFINITIONS)[T] extends { indexes: infer I }
  ? I
  : never;

/** An index of a table, by its name, with its name and its keys as written in the entry. */
export const indexOf = <T extends TableId, const N extends IndexName<T>>(
  table: T,
  name: N,
): { readonly name: N } & IndexesOf<T>[N] => {
  const definition: TableDefinition = TABLE_DEFINITIONS[table];
  const index = definition.indexes?.[name];
  if (!index) throw new Error(`Table ${table} has no index ${name}`);
  // IndexName<T> is a key of this entry's indexes, so the value found is the entry's own.
  return { name, ...index } as { readonly name: N } & IndexesOf<T>[N];
};

/** A table's indexes as a list, each with its name. */
export const indexesOf = (definition: TableDefinition) =>
  Object.entries(definition.indexes ?? {}).map(([name, index]) => ({ name, ...index }));

/**
 * Creates each table that does not exist yet (the embedded runtime; CDK does it on AWS), and
 * refuses one made before an index it now has was defined: the embedded store cannot add an
 * index to a table, and a query of the missing one would fail each time it is asked.
 */
export const ensureTables = async (client: DynamoDBClient, names: TableNames): Promise<void> => {
  for (const id of TABLE_IDS) {
    const definition: TableDefinition = TABLE_DEFINITIONS[id];
    const indexes = indexesOf(definition);
    const keys = [
      definition.partitionKey,
      ...indexes.flatMap((i) => [i.partitionKey, ...(i.sortKey ? [i.sortKey] : [])]),
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
          GlobalSecondaryIndexes:
            indexes.length === 0
              ? undefined
              : indexes.map((index) => ({
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
      const { Table } = await client.send(new DescribeTableCommand({ TableName: names[id] }));
      const held = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
      const missing = indexes.filter((index) => !held.has(index.name)).map((index) => index.name);
      if (missing.length > 0) {
        throw new Error(
          `The table ${names[id]} was made by an earlier version, without its index ${missing.join(", ")}: start with a new data folder.`,
        );
      }
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
