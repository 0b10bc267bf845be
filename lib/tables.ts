/**
 * The DynamoDB tables: apps, their API keys, export snapshots, installs, the
 * customer-user mapping and deletion requests. On demand (traffic is
 * spiky: SDK launches and batch exports), point-in-time recovery on, encrypted with the AWS
 * managed key (auditable in CloudTrail, no key policy to maintain). Apps and keys outlive the
 * stack; snapshots are a short-lived cache and go with it.
 */
import { RemovalPolicy } from "aws-cdk-lib";
import { AttributeType, BillingMode, Table, TableEncryption } from "aws-cdk-lib/aws-dynamodb";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import {
  TABLE_DEFINITIONS,
  type TableDefinition,
  TOMBSTONES_PREFIX,
} from "../src/adapters/dynamodb/tables.ts";

export class ServiceTables extends Construct {
  readonly apps: Table;
  readonly keys: Table;
  readonly snapshots: Table;
  readonly installs: Table;
  readonly customerUsers: Table;
  readonly deletions: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const common = {
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    };

    // Key schemas come from the adapters' definitions, which the embedded runtime also uses.
    const table = (id: string, definition: TableDefinition, removalPolicy: RemovalPolicy) => {
      const created = new Table(this, id, {
        ...common,
        partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
        timeToLiveAttribute: definition.ttlAttribute,
        removalPolicy,
        deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      });
      for (const index of definition.indexes ?? []) {
        created.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
          sortKey: index.sortKey ? { name: index.sortKey, type: AttributeType.STRING } : undefined,
        });
      }
      return created;
    };

    this.apps = table("Apps", TABLE_DEFINITIONS.apps, RemovalPolicy.RETAIN);
    this.keys = table("Keys", TABLE_DEFINITIONS.keys, RemovalPolicy.RETAIN);
    this.snapshots = table("Snapshots", TABLE_DEFINITIONS.snapshots, RemovalPolicy.DESTROY);
    this.installs = table("Installs", TABLE_DEFINITIONS.installs, RemovalPolicy.RETAIN);
    this.customerUsers = table(
      "CustomerUsers",
      TABLE_DEFINITIONS.customerUsers,
      RemovalPolicy.RETAIN,
    );
    // Deletion requests are what keeps deleted data out of exports: they outlive the stack.
    this.deletions = table("Deletions", TABLE_DEFINITIONS.deletions, RemovalPolicy.RETAIN);
  }

  /**
   * What an authorizer needs to check a key: get the key by id and its app by id. No index,
   * no scan, no write: a leaked authorizer role cannot list keys or apps.
   */
  grantKeyLookup(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem"],
        resources: [this.apps.tableArn, this.keys.tableArn],
      }),
    );
  }

  /**
   * Record deletion requests: find the install's open one (a repeat answers it, through the
   * by-install index) or put a new item (never overwritten), then add its install to the app's
   * tombstones (an update of the items keyed `app#…` only; a full one is read, and the
   * installs the by-app index has long listed are taken out).
   */
  grantDeletionRequests(role: IRole): void {
    this.grantDeletionLookup(role);
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["dynamodb:PutItem"], resources: [this.deletions.tableArn] }),
    );
    role.addToPrincipalPolicy(this.onTombstonesItems("dynamodb:UpdateItem", "dynamodb:GetItem"));
  }

  /** Read one deletion request by id: its status. */
  grantDeletionStatus(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["dynamodb:GetItem"], resources: [this.deletions.tableArn] }),
    );
  }

  /** Read an app by id: the remote configuration. */
  grantAppLookup(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["dynamodb:GetItem"], resources: [this.apps.tableArn] }),
    );
  }

  /**
   * What ingestion needs: read the calling app; read an install and create it with a
   * conditional put (a repeat keeps the first); read and conditionally put the customer-user
   * mapping. No update, delete, query or scan: ingestion only adds, and looks up by key.
   */
  grantIngestion(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["dynamodb:GetItem"], resources: [this.apps.tableArn] }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["dynamodb:GetItem", "dynamodb:PutItem"],
        resources: [this.installs.tableArn, this.customerUsers.tableArn],
      }),
    );
  }

  /**
   * What the export needs of deletion requests: the app's tombstones, on every page (a get of
   * the items keyed `app#…` only, never a request), and its requests, for each new snapshot (a
   * query on the by-app index). No write, no scan.
   */
  grantTombstones(role: IRole): void {
    role.addToPrincipalPolicy(this.onTombstonesItems("dynamodb:GetItem"));
    this.grantDeletionsQuery(role, TABLE_DEFINITIONS.deletions.indexes[0].name);
  }

  /** `actions` on the deletions table's tombstones items (keyed `app#<app id>`) only. */
  private onTombstonesItems(...actions: string[]): PolicyStatement {
    return new PolicyStatement({
      actions,
      resources: [this.deletions.tableArn],
      conditions: {
        "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${TOMBSTONES_PREFIX}*`] },
      },
    });
  }

  /**
   * Find one install's deletion requests (ingestion takes nothing in for a deleted install; a
   * new request looks for an open one): a query on the by-install index, and on the by-app
   * one, which the store reads instead while DynamoDB is still building the by-install index
   * of a table deployed before it. Nothing else.
   */
  grantDeletionLookup(role: IRole): void {
    const [byApp, , byInstall] = TABLE_DEFINITIONS.deletions.indexes;
    this.grantDeletionsQuery(role, byInstall.name, byApp.name);
  }

  private grantDeletionsQuery(role: IRole, ...indexes: string[]): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["dynamodb:Query"],
        resources: indexes.map((index) => `${this.deletions.tableArn}/index/${index}`),
      }),
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
    const index = (table: Table, name: string) => `${table.tableArn}/index/${name}`;
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["dynamodb:Query"],
        resources: [
          index(this.deletions, TABLE_DEFINITIONS.deletions.indexes[1].name),
          index(this.customerUsers, TABLE_DEFINITIONS.customerUsers.indexes[0].name),
          index(this.snapshots, TABLE_DEFINITIONS.snapshots.indexes[0].name),
        ],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["dynamodb:UpdateItem"],
        resources: [this.deletions.tableArn],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["dynamodb:DeleteItem"],
        resources: [this.installs.tableArn, this.customerUsers.tableArn, this.snapshots.tableArn],
      }),
    );
  }

  /** Read and write export snapshot records (by key; the by-app index is the purge's). */
  grantSnapshots(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          "dynamodb:GetItem",
          "dynamodb:PutItem",
          "dynamodb:UpdateItem",
          "dynamodb:DeleteItem",
          "dynamodb:ConditionCheckItem",
        ],
        resources: [this.snapshots.tableArn],
      }),
    );
  }
}
