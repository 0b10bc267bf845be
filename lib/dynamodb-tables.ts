/**
 * The DynamoDB tables, one per entry of TABLE_DEFINITIONS (src/adapters/dynamodb/table-definitions.ts,
 * which the embedded runtime creates its tables from too), with the grants the functions need
 * (each word of a manifest row's table access, in TABLE_GRANTS below).
 * On demand (traffic is spiky: SDK launches and batch exports), point-in-time recovery on,
 * encrypted with the AWS managed key (auditable in CloudTrail, no key policy to maintain). What
 * the service cannot make again outlives the stack; caches go with it.
 */
import { RemovalPolicy } from "aws-cdk-lib";
import {
  AttributeType,
  BillingMode,
  StreamViewType,
  Table,
  TableEncryption,
} from "aws-cdk-lib/aws-dynamodb";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import {
  CLAIM_KEY_PREFIX,
  type IndexName,
  indexesOf,
  PURGE_PASS_PREFIX,
  PURGED_CUSTOMER_USER_PREFIX,
  perTable,
  SIGHTING_KEY_PREFIX,
  type TableDefinition,
  type TableId,
  TOMBSTONES_PREFIX,
} from "../src/adapters/dynamodb/table-definitions.ts";
import type { TableAccess, Uses } from "../src/functions/uses.ts";
import { TABLE_STREAM_WORKERS } from "../src/workers/table-stream-workers.ts";

/** The tables a table-stream worker reads: they keep a stream of their new items' images. */
const STREAMED: ReadonlySet<TableId> = new Set(TABLE_STREAM_WORKERS.map((worker) => worker.table));

import { pascal } from "./naming.ts";

const tableOf = (scope: Construct, id: TableId, definition: TableDefinition): Table => {
  const retain = definition.removal === "retain";
  const table = new Table(scope, pascal(id), {
    billingMode: BillingMode.PAY_PER_REQUEST,
    encryption: TableEncryption.AWS_MANAGED,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
    timeToLiveAttribute: definition.ttlAttribute,
    ...(STREAMED.has(id) ? { stream: StreamViewType.NEW_IMAGE } : {}),
    removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    deletionProtection: retain,
  });
  for (const index of indexesOf(definition)) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: index.sortKey ? { name: index.sortKey, type: AttributeType.STRING } : undefined,
    });
  }
  return table;
};

export class ServiceTables extends Construct {
  /** Every table, by its id in TABLE_DEFINITIONS. */
  readonly table: Readonly<Record<TableId, Table>>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = perTable((tableId, definition) => tableOf(this, tableId, definition));
  }

  /** The ARN of a table's index, by its name in TABLE_DEFINITIONS. */
  indexArn<T extends TableId>(table: T, index: IndexName<T>): string {
    return `${this.table[table].tableArn}/index/${index}`;
  }

  /**
   * The grants of what a function does with the tables (its manifest row's `tables`, whose
   * words TABLE_GRANTS spells out), in the row's order. The same actions on different tables
   * are one statement; each table's own statements stay apart, as TABLE_GRANTS writes them.
   */
  grant(role: IRole, access: Uses["tables"] = {}): void {
    const statements: {
      readonly owner: TableId;
      readonly key: string;
      readonly actions: readonly string[];
      readonly resources: string[];
      readonly keysStartWith: string | undefined;
    }[] = [];
    for (const [id, word] of Object.entries(access) as [TableId, string][]) {
      const pieces: readonly Piece[] =
        (TABLE_GRANTS[id] as Record<string, readonly Piece[]>)[word] ?? [];
      for (const piece of pieces) {
        const key = piece.actions.join(",");
        const { keysStartWith } = piece;
        const same =
          keysStartWith === undefined
            ? statements.find(
                (s) => s.key === key && s.owner !== id && s.keysStartWith === undefined,
              )
            : undefined;
        const resources = piece.on(this);
        if (same) same.resources.push(...resources);
        else statements.push({ owner: id, key, actions: piece.actions, resources, keysStartWith });
      }
    }
    for (const statement of statements) {
      role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: [...statement.actions],
          resources: statement.resources,
          conditions:
            statement.keysStartWith === undefined
              ? undefined
              : {
                  "ForAllValues:StringLike": {
                    "dynamodb:LeadingKeys": [`${statement.keysStartWith}*`],
                  },
                },
        }),
      );
    }
  }
}

/**
 * Some actions on some of the tables' ARNs; `keysStartWith` narrows it to the items whose key
 * begins so: the deletions table's tombstones items (`app#<app id>`) or saved purge passes
 * (`pass#<app id>`), never a request; the touches table's claims (`claim#…`) or address
 * sightings (`seen#…`), never a touch.
 */
interface Piece {
  readonly actions: readonly string[];
  readonly on: (tables: ServiceTables) => string[];
  readonly keysStartWith?: string;
}

const whole =
  (id: TableId) =>
  (tables: ServiceTables): string[] => [tables.table[id].tableArn];
const indexes =
  <T extends TableId>(id: T, ...names: IndexName<T>[]) =>
  (tables: ServiceTables): string[] =>
    names.map((name) => tables.indexArn(id, name));
const QUERY = ["dynamodb:Query"];

/**
 * What each word of a function's table access (src/functions/uses.ts) grants: one entry per
 * word, so a word added there fails to compile until it is granted here. No word grants a scan
 * but the listing of apps and the managing of the dashboard's people, and none a wildcard.
 */
const TABLE_GRANTS: {
  readonly [T in TableId]: { readonly [A in TableAccess[T]]: readonly Piece[] };
} = {
  apps: {
    get: [{ actions: ["dynamodb:GetItem"], on: whole("apps") }],
    // The authorizer: no index, no scan, no write: a leaked role cannot list keys or apps.
    lookup: [{ actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem"], on: whole("apps") }],
    // The `.well-known` files: every app's settings.
    list: [{ actions: ["dynamodb:Scan"], on: whole("apps") }],
    // The dashboard: an admin lists every app; a change replaces the app's item.
    manage: [
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], on: whole("apps") },
      { actions: ["dynamodb:Scan"], on: whole("apps") },
    ],
    // A tap: its link's app by id, and every app's link hosts, whose host it came on.
    tap: [
      { actions: ["dynamodb:GetItem"], on: whole("apps") },
      { actions: ["dynamodb:Scan"], on: whole("apps") },
    ],
    // One app's settings read and replaced by id: no scan.
    configure: [{ actions: ["dynamodb:GetItem", "dynamodb:PutItem"], on: whole("apps") }],
  },
  keys: {
    lookup: [{ actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem"], on: whole("keys") }],
    // The dashboard: an app's keys by the by-app index, a new one put, one revoked.
    manage: [
      { actions: QUERY, on: indexes("keys", "byApp") },
      {
        actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        on: whole("keys"),
      },
    ],
  },
  users: {
    read: [{ actions: ["dynamodb:GetItem"], on: whole("users") }],
    // A new app's maker may see it: the user's item read, and updated.
    grant: [{ actions: ["dynamodb:GetItem", "dynamodb:UpdateItem"], on: whole("users") }],
    // A disabled person's generation read, and set anew where it is not yet the one their
    // disabling gives (a conditional update of that attribute alone).
    renew: [{ actions: ["dynamodb:GetItem", "dynamodb:UpdateItem"], on: whole("users") }],
    // The People page: one made (a conditional put), its apps and generation updated, one
    // deleted, and every user listed (a scan of a table of a few people).
    manage: [
      {
        actions: [
          "dynamodb:GetItem",
          "dynamodb:PutItem",
          "dynamodb:UpdateItem",
          "dynamodb:DeleteItem",
        ],
        on: whole("users"),
      },
      { actions: ["dynamodb:Scan"], on: whole("users") },
    ],
  },
  sessions: {
    read: [{ actions: ["dynamodb:GetItem"], on: whole("sessions") }],
    readWrite: [
      {
        actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"],
        on: whole("sessions"),
      },
    ],
  },
  installs: {
    // Ingestion only adds, and looks up by key: a repeat keeps the first.
    create: [{ actions: ["dynamodb:GetItem", "dynamodb:PutItem"], on: whole("installs") }],
    // An install's consent replaced, only where the install exists (a condition on its key).
    consent: [{ actions: ["dynamodb:UpdateItem"], on: whole("installs") }],
    // The install, and the app's installs of one IDFV.
    match: [
      { actions: ["dynamodb:GetItem"], on: whole("installs") },
      { actions: QUERY, on: indexes("installs", "byIdfv") },
    ],
    // A postback's install: one by key.
    get: [{ actions: ["dynamodb:GetItem"], on: whole("installs") }],
    // Whether a request's install was ever stored (none: no lake pass), then its deletion.
    purge: [{ actions: ["dynamodb:GetItem", "dynamodb:DeleteItem"], on: whole("installs") }],
  },
  customerUsers: {
    // The SDKs' uses of ids, and a server's event's user: its latest install, or its others
    // when that one's data was deleted.
    create: [
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], on: whole("customerUsers") },
      { actions: QUERY, on: indexes("customerUsers", "byUser") },
    ],
    purge: [
      { actions: QUERY, on: indexes("customerUsers", "byInstall") },
      { actions: ["dynamodb:DeleteItem"], on: whole("customerUsers") },
      // The mark a purged mapping leaves, so a server's later event for the user is ignored.
      {
        actions: ["dynamodb:PutItem"],
        on: whole("customerUsers"),
        keysStartWith: PURGED_CUSTOMER_USER_PREFIX,
      },
    ],
  },
  deletions: {
    // One install's requests (ingestion takes nothing in for a deleted install).
    lookup: [{ actions: QUERY, on: indexes("deletions", "byInstall") }],
    // Find the install's open request (a repeat answers it) or put a new one (never
    // overwritten; one another call put first under the same id is read and answered), then
    // add its install to the app's tombstones; a full tombstones item is read, and the installs
    // the by-app index has long listed are taken out.
    request: [
      { actions: QUERY, on: indexes("deletions", "byInstall") },
      { actions: QUERY, on: indexes("deletions", "byApp") },
      { actions: ["dynamodb:PutItem", "dynamodb:GetItem"], on: whole("deletions") },
      {
        actions: ["dynamodb:UpdateItem", "dynamodb:GetItem"],
        on: whole("deletions"),
        keysStartWith: TOMBSTONES_PREFIX,
      },
    ],
    status: [{ actions: ["dynamodb:GetItem"], on: whole("deletions") }],
    // The export: the app's tombstones on every page, its requests for each new snapshot.
    tombstones: [
      { actions: ["dynamodb:GetItem"], on: whole("deletions"), keysStartWith: TOMBSTONES_PREFIX },
      { actions: QUERY, on: indexes("deletions", "byApp") },
    ],
    // The purge: open requests (the sparse `open` index), their status updated, the app's
    // tombstones read (their version: the snapshots made since leave the install out) and a
    // completed one's install taken out of them (a full item first making room by the app's
    // requests listed long enough: the `byApp` index); the app's pass that a run stopped read,
    // saved and forgotten once complete.
    purge: [
      { actions: QUERY, on: indexes("deletions", "open") },
      { actions: QUERY, on: indexes("deletions", "byApp") },
      { actions: ["dynamodb:UpdateItem"], on: whole("deletions") },
      { actions: ["dynamodb:GetItem"], on: whole("deletions"), keysStartWith: TOMBSTONES_PREFIX },
      {
        actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"],
        on: whole("deletions"),
        keysStartWith: PURGE_PASS_PREFIX,
      },
    ],
  },
  snapshots: {
    // By key; the by-app index is the purge's.
    readWrite: [
      {
        actions: [
          "dynamodb:GetItem",
          "dynamodb:PutItem",
          "dynamodb:UpdateItem",
          "dynamodb:DeleteItem",
          "dynamodb:ConditionCheckItem",
        ],
        on: whole("snapshots"),
      },
    ],
    // The purge finds the app's snapshots; their entries stay until they expire.
    purge: [{ actions: QUERY, on: indexes("snapshots", "byApp") }],
  },
  links: {
    get: [{ actions: ["dynamodb:GetItem"], on: whole("links") }],
    // Create (a conditional put), read, disable (an update), list the app's; no delete.
    manage: [
      {
        actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        on: whole("links"),
      },
      { actions: QUERY, on: indexes("links", "byApp") },
    ],
  },
  touches: {
    // One by one, conditionally for a network's id, or in batches, and delete what a failed
    // request put. No query: the matcher reads the indexes.
    record: [
      {
        actions: [
          "dynamodb:GetItem",
          "dynamodb:PutItem",
          "dynamodb:BatchWriteItem",
          "dynamodb:DeleteItem",
        ],
        on: whole("touches"),
      },
    ],
    // The link host's click: one PutItem, no delete and no batch (whose requests may delete),
    // for a function anyone on the internet calls.
    tap: [{ actions: ["dynamodb:PutItem"], on: whole("touches") }],
    // The installs an SDK's requests name, at their address (src/ingest/sightings.ts): batches
    // of sightings' items, never a touch or a claim.
    sight: [
      {
        actions: ["dynamodb:BatchWriteItem"],
        on: whole("touches"),
        keysStartWith: SIGHTING_KEY_PREFIX,
      },
    ],
    // By click id, by advertising id and by IP; and the winning click's claim for its install
    // (a conditional put of a claim's item, never of a touch), let go again (a conditional
    // delete or put) when the install's data was purged as it matched.
    match: [
      { actions: ["dynamodb:GetItem"], on: whole("touches") },
      { actions: QUERY, on: indexes("touches", "byMaid", "byIp") },
      {
        actions: ["dynamodb:PutItem", "dynamodb:DeleteItem"],
        on: whole("touches"),
        keysStartWith: CLAIM_KEY_PREFIX,
      },
    ],
    // A postback's winning touch, by its click id.
    get: [{ actions: ["dynamodb:GetItem"], on: whole("touches") }],
    // A deleted install's claim let go: read, then deleted or handed to the click's own device
    // noted beside it (a conditional delete or put of a claim's item, never a touch).
    purge: [
      {
        actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"],
        on: whole("touches"),
        keysStartWith: CLAIM_KEY_PREFIX,
      },
    ],
  },
  attributions: {
    // A new install's pending record (a conditional put), and one read: an event's postbacks
    // wait for its install's attribution.
    request: [{ actions: ["dynamodb:PutItem", "dynamodb:GetItem"], on: whole("attributions") }],
    // Read and resolve one (conditionally); no write but this.
    work: [{ actions: ["dynamodb:GetItem", "dynamodb:UpdateItem"], on: whole("attributions") }],
    get: [{ actions: ["dynamodb:GetItem"], on: whole("attributions") }],
    sweep: [{ actions: QUERY, on: indexes("attributions", "open") }],
    // The install's attribution read (the click whose claim goes with it), then deleted.
    purge: [{ actions: ["dynamodb:GetItem", "dynamodb:DeleteItem"], on: whole("attributions") }],
  },
  postbackConfigs: {
    // An app's configurations by the by-app index, one by key.
    read: [
      { actions: QUERY, on: indexes("postbackConfigs", "byApp") },
      { actions: ["dynamodb:GetItem"], on: whole("postbackConfigs") },
    ],
    manage: [
      { actions: QUERY, on: indexes("postbackConfigs", "byApp") },
      {
        actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"],
        on: whole("postbackConfigs"),
      },
    ],
  },
  outbox: {
    // A send added only where none is (a conditional put), and read when one was.
    enqueue: [{ actions: ["dynamodb:GetItem", "dynamodb:PutItem"], on: whole("outbox") }],
    // Read, claimed and settled attempt by attempt (conditional updates); never added or deleted.
    work: [{ actions: ["dynamodb:GetItem", "dynamodb:UpdateItem"], on: whole("outbox") }],
    // An install's sends found by the by-install index and deleted (its deletion request).
    purge: [
      { actions: QUERY, on: indexes("outbox", "byInstall") },
      { actions: ["dynamodb:DeleteItem"], on: whole("outbox") },
    ],
  },
  deliveryLog: {
    // Attempts recorded in groups: which are recorded already read at once, then each record
    // and its day's count written in one transaction, as updates (a transaction's writes are
    // granted by their own actions).
    write: [
      {
        actions: ["dynamodb:BatchGetItem", "dynamodb:UpdateItem"],
        on: whole("deliveryLog"),
      },
    ],
    read: [{ actions: QUERY, on: indexes("deliveryLog", "byApp") }],
    // An install's attempts found by the by-install index and deleted; the counts stay.
    purge: [
      { actions: QUERY, on: indexes("deliveryLog", "byInstall") },
      { actions: ["dynamodb:DeleteItem"], on: whole("deliveryLog") },
    ],
  },
  costs: {
    // A row put over the earlier one of its keys (the old one read back to count it), and an
    // app's days read.
    manage: [
      { actions: ["dynamodb:PutItem"], on: whole("costs") },
      { actions: QUERY, on: indexes("costs", "byApp") },
    ],
    read: [{ actions: QUERY, on: indexes("costs", "byApp") }],
  },
  applePostbacks: {
    // Read by its key, then added once (a conditional put): a device's retry is refused, and
    // Apple's signed copy takes an unverified one's place (and a production copy a test's); a
    // signed copy whose values differ from the one kept marks it disputed (an update).
    receive: [
      {
        actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        on: whole("applePostbacks"),
      },
    ],
    // An app's: those under it, and those of no app that Apple's production key verified for
    // the App Store id its settings have (the sparse unclaimed index).
    read: [{ actions: QUERY, on: indexes("applePostbacks", "byApp", "unclaimed") }],
    // Those of no app (the by-app index's `-`), counted for the service's admins.
    unknown: [{ actions: QUERY, on: indexes("applePostbacks", "byApp") }],
  },
};
