/**
 * The DynamoDB tables, one per entry of TABLE_DEFINITIONS (src/adapters/dynamodb/tables.ts,
 * which the embedded runtime creates its tables from too), with the grants the functions need.
 * On demand (traffic is spiky: SDK launches and batch exports), point-in-time recovery on,
 * encrypted with the AWS managed key (auditable in CloudTrail, no key policy to maintain). What
 * the service cannot make again outlives the stack; caches go with it.
 */
import { RemovalPolicy } from "aws-cdk-lib";
import { AttributeType, BillingMode, Table, TableEncryption } from "aws-cdk-lib/aws-dynamodb";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import {
  type IndexName,
  indexesOf,
  perTable,
  type TableDefinition,
  type TableId,
  TOMBSTONES_PREFIX,
} from "../src/adapters/dynamodb/tables.ts";
import { pascal } from "./naming.ts";

const tableOf = (scope: Construct, id: TableId, definition: TableDefinition): Table => {
  const retain = definition.removal === "retain";
  const table = new Table(scope, pascal(id), {
    billingMode: BillingMode.PAY_PER_REQUEST,
    encryption: TableEncryption.AWS_MANAGED,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
    timeToLiveAttribute: definition.ttlAttribute,
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

  /** `actions` on whole tables, nothing else. */
  private allow(role: IRole, actions: string[], tables: readonly TableId[]): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions, resources: tables.map((id) => this.table[id].tableArn) }),
    );
  }

  /**
   * What an authorizer needs to check a key: get the key by id and its app by id. No index,
   * no scan, no write: a leaked authorizer role cannot list keys or apps.
   */
  grantKeyLookup(role: IRole): void {
    this.allow(role, ["dynamodb:GetItem", "dynamodb:BatchGetItem"], ["apps", "keys"]);
  }

  /**
   * Record deletion requests: find the install's open one (a repeat answers it, through the
   * by-install index) or put a new item (never overwritten), then add its install to the app's
   * tombstones (an update of the items keyed `app#…` only; a full one is read, and the
   * installs the by-app index has long listed are taken out).
   */
  grantDeletionRequests(role: IRole): void {
    this.grantDeletionLookup(role);
    this.grantQuery(role, [this.indexArn("deletions", "byApp")]);
    this.allow(role, ["dynamodb:PutItem"], ["deletions"]);
    role.addToPrincipalPolicy(this.onTombstonesItems("dynamodb:UpdateItem", "dynamodb:GetItem"));
  }

  /** Read one deletion request by id: its status. */
  grantDeletionStatus(role: IRole): void {
    this.allow(role, ["dynamodb:GetItem"], ["deletions"]);
  }

  /** Read an app by id: the remote configuration. */
  grantAppLookup(role: IRole): void {
    this.allow(role, ["dynamodb:GetItem"], ["apps"]);
  }

  /**
   * What ingestion needs: read the calling app; read an install and create it with a
   * conditional put (a repeat keeps the first); read and conditionally put the customer-user
   * mapping. No update, delete, query or scan: ingestion only adds, and looks up by key.
   */
  grantIngestion(role: IRole): void {
    this.allow(role, ["dynamodb:GetItem"], ["apps"]);
    this.allow(role, ["dynamodb:GetItem", "dynamodb:PutItem"], ["installs", "customerUsers"]);
  }

  /**
   * What the export needs of deletion requests: the app's tombstones, on every page (a get of
   * the items keyed `app#…` only, never a request), and its requests, for each new snapshot (a
   * query on the by-app index). No write, no scan.
   */
  grantTombstones(role: IRole): void {
    role.addToPrincipalPolicy(this.onTombstonesItems("dynamodb:GetItem"));
    this.grantQuery(role, [this.indexArn("deletions", "byApp")]);
  }

  /** `actions` on the deletions table's tombstones items (keyed `app#<app id>`) only. */
  private onTombstonesItems(...actions: string[]): PolicyStatement {
    return new PolicyStatement({
      actions,
      resources: [this.table.deletions.tableArn],
      conditions: {
        "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${TOMBSTONES_PREFIX}*`] },
      },
    });
  }

  /**
   * Find one install's deletion requests (ingestion takes nothing in for a deleted install; a
   * new request looks for an open one): a query on the by-install index, nothing else.
   */
  grantDeletionLookup(role: IRole): void {
    this.grantQuery(role, [this.indexArn("deletions", "byInstall")]);
  }

  private grantQuery(role: IRole, indexArns: string[]): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["dynamodb:Query"], resources: indexArns }),
    );
  }

  /**
   * What the purge job needs, each on its own table or index: find open deletion requests
   * (Query on the sparse `open` index), update their status and take a completed one's install
   * out of its app's tombstones (both UpdateItem on the table); delete installs by key; find an
   * install's customer-user mappings (Query on `byInstall`) and delete them; find an app's
   * snapshots (Query on `byApp`) and delete them. No get, put, scan or batch operation.
   */
  grantPurge(role: IRole): void {
    this.grantQuery(role, [
      this.indexArn("deletions", "open"),
      this.indexArn("customerUsers", "byInstall"),
      this.indexArn("snapshots", "byApp"),
    ]);
    this.allow(role, ["dynamodb:UpdateItem"], ["deletions"]);
    this.allow(
      role,
      ["dynamodb:DeleteItem"],
      ["installs", "customerUsers", "snapshots", "attributions"],
    );
  }

  /** Read and write export snapshot records (by key; the by-app index is the purge's). */
  grantSnapshots(role: IRole): void {
    this.allow(
      role,
      [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:ConditionCheckItem",
      ],
      ["snapshots"],
    );
  }

  /**
   * What the link routes of the API need: read the calling app; create a link (a conditional
   * put), read one by id, disable one (an update), and list the app's (Query on `byApp`). No
   * delete or scan.
   */
  grantLinks(role: IRole): void {
    this.allow(role, ["dynamodb:GetItem"], ["apps"]);
    this.allow(role, ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], ["links"]);
    this.grantQuery(role, [this.indexArn("links", "byApp")]);
  }

  /**
   * What recording touches needs (the link host's taps, the networks' reports): read apps and
   * links by key; put touches (one by one, conditionally for a network's id, or in batches) and
   * delete what a failed request put. No query or scan: the matcher reads the indexes.
   */
  grantTouchRecording(role: IRole): void {
    this.allow(role, ["dynamodb:GetItem"], ["apps", "links"]);
    this.allow(
      role,
      ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:BatchWriteItem", "dynamodb:DeleteItem"],
      ["touches"],
    );
  }

  /** What the `.well-known` files need: every app's settings (a scan of apps, nothing else). */
  grantAppListing(role: IRole): void {
    this.allow(role, ["dynamodb:Scan"], ["apps"]);
  }

  /** What ingestion adds for attribution: a new install's pending record (a conditional put). */
  grantAttributionRequests(role: IRole): void {
    this.allow(role, ["dynamodb:PutItem"], ["attributions"]);
  }

  /**
   * What the attribution worker needs: read the app and the install, and the app's installs
   * of one IDFV (Query on `byIdfv`); read touches by click id and query them by advertising id
   * and by IP; read and update the install's attribution (its result, conditionally). No scan,
   * no delete, and no write but to attributions.
   */
  grantAttributionWork(role: IRole): void {
    this.allow(role, ["dynamodb:GetItem"], ["apps", "installs", "touches"]);
    this.grantQuery(role, [
      this.indexArn("installs", "byIdfv"),
      this.indexArn("touches", "byMaid"),
      this.indexArn("touches", "byIp"),
    ]);
    this.allow(role, ["dynamodb:GetItem", "dynamodb:UpdateItem"], ["attributions"]);
  }

  /** The SDKs' read: an install's attribution and its app by key, its deletion requests. */
  grantAttributionRead(role: IRole): void {
    this.allow(role, ["dynamodb:GetItem"], ["apps", "attributions"]);
    this.grantDeletionLookup(role);
  }

  /** The sweep: the unfinished attributions (Query on the sparse `open` index), nothing else. */
  grantAttributionSweep(role: IRole): void {
    this.grantQuery(role, [this.indexArn("attributions", "open")]);
  }
}
