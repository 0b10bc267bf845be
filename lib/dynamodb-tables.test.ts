import type { Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { beforeAll, describe, expect, it } from "vitest";
import {
  SIGHTING_KEY_PREFIX,
  TABLE_DEFINITIONS,
} from "../src/adapters/dynamodb/table-definitions.ts";
import { ServiceTables } from "./dynamodb-tables.ts";
import { statementsOfRole, testStack } from "./stack.test-support.ts";

let stack: Stack;
let tables: ServiceTables;
let authorizer: Role;
let exporter: Role;
let ingester: Role;
let tombstoneReader: Role;
let deletionLookup: Role;
let deletionRequester: Role;
let sighter: Role;
let template: Template;

beforeAll(() => {
  stack = testStack();
  tables = new ServiceTables(stack, "Tables");
  const lambda = new ServicePrincipal("lambda.amazonaws.com");
  authorizer = new Role(stack, "Authorizer", { assumedBy: lambda });
  exporter = new Role(stack, "Exporter", { assumedBy: lambda });
  ingester = new Role(stack, "Ingester", { assumedBy: lambda });
  tombstoneReader = new Role(stack, "TombstoneReader", { assumedBy: lambda });
  deletionLookup = new Role(stack, "DeletionLookup", { assumedBy: lambda });
  deletionRequester = new Role(stack, "DeletionRequester", { assumedBy: lambda });
  sighter = new Role(stack, "Sighter", { assumedBy: lambda });
  tables.grant(authorizer, { apps: "lookup", keys: "lookup" });
  tables.grant(exporter, { snapshots: "readWrite" });
  tables.grant(ingester, { apps: "get", installs: "create", customerUsers: "create" });
  tables.grant(tombstoneReader, { deletions: "tombstones" });
  tables.grant(deletionLookup, { deletions: "lookup" });
  tables.grant(deletionRequester, { deletions: "request" });
  tables.grant(sighter, { touches: "sight" });
  template = Template.fromStack(stack);
});

const isTableId = (name: string): name is keyof typeof TABLE_DEFINITIONS =>
  name in TABLE_DEFINITIONS;

const resourceOf = (table: keyof typeof TABLE_DEFINITIONS) =>
  template.toJSON().Resources[stack.resolve(tables.table[table].tableName).Ref];

describe("DynamoDB tables", () => {
  it.each(Object.keys(TABLE_DEFINITIONS).filter(isTableId))(
    "%s: on demand, point-in-time recovery, encrypted, keyed as the adapters expect",
    (name) => {
      const definition = TABLE_DEFINITIONS[name];
      expect(resourceOf(name).Properties).toMatchObject({
        BillingMode: "PAY_PER_REQUEST",
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        KeySchema: [{ AttributeName: definition.partitionKey, KeyType: "HASH" }],
      });
    },
  );

  it("indexes keys by app", () => {
    expect(resourceOf("keys").Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: "byApp",
        KeySchema: [{ AttributeName: "appId", KeyType: "HASH" }],
        Projection: { ProjectionType: "ALL" },
      },
    ]);
  });

  it("indexes deletion requests by app, by install, and the open ones alone", () => {
    expect(resourceOf("deletions").Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: "byApp",
        KeySchema: [{ AttributeName: "appId", KeyType: "HASH" }],
        Projection: { ProjectionType: "ALL" },
      },
      {
        IndexName: "open",
        KeySchema: [{ AttributeName: "openStatus", KeyType: "HASH" }],
        Projection: { ProjectionType: "ALL" },
      },
      {
        IndexName: "byInstall",
        KeySchema: [
          { AttributeName: "appId", KeyType: "HASH" },
          { AttributeName: "serviceId", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
    ]);
  });

  it("indexes snapshots by app, for the purge", () => {
    expect(resourceOf("snapshots").Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: "byApp",
        KeySchema: [{ AttributeName: "appId", KeyType: "HASH" }],
        Projection: { ProjectionType: "ALL" },
      },
    ]);
  });

  it("lets DynamoDB expire snapshots", () => {
    expect(resourceOf("snapshots").Properties.TimeToLiveSpecification).toEqual({
      AttributeName: "expiresTtl",
      Enabled: true,
    });
  });

  it("keeps apps and keys when the stack goes; snapshots go with it", () => {
    expect(resourceOf("apps")).toMatchObject({ DeletionPolicy: "Retain" });
    expect(resourceOf("keys")).toMatchObject({ DeletionPolicy: "Retain" });
    expect(resourceOf("apps").Properties.DeletionProtectionEnabled).toBe(true);
    expect(resourceOf("snapshots")).toMatchObject({ DeletionPolicy: "Delete" });
    // Losing deletion requests would let deleted installs back into exports.
    expect(resourceOf("deletions")).toMatchObject({ DeletionPolicy: "Retain" });
  });
});

describe("grants", () => {
  it("lets an authorizer get apps and keys by id, and nothing else", () => {
    expect(statementsOfRole(template, authorizer)).toEqual([
      {
        Effect: "Allow",
        Action: ["dynamodb:GetItem", "dynamodb:BatchGetItem"],
        Resource: [
          stack.resolve(tables.table.apps.tableArn),
          stack.resolve(tables.table.keys.tableArn),
        ],
      },
    ]);
  });

  it("lets the export read and write snapshots only", () => {
    const statements = statementsOfRole(template, exporter);
    expect(statements).toHaveLength(1);
    expect(statements[0]?.Resource).toEqual(stack.resolve(tables.table.snapshots.tableArn));
    expect(statements[0]?.Action).not.toContain("dynamodb:Scan");
  });

  const deletionsIndex = (name: string) => ({
    Effect: "Allow",
    Action: "dynamodb:Query",
    Resource: stack.resolve(`${tables.table.deletions.tableArn}/index/${name}`),
  });
  const installLookup = () => deletionsIndex("byInstall");

  const onTombstonesItems = (action: string | string[]) => ({
    Effect: "Allow",
    Action: action,
    Resource: stack.resolve(tables.table.deletions.tableArn),
    Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["app#*"] } },
  });

  it("lets a deletion request find the install's open one by index and put a new one, no more", () => {
    expect(statementsOfRole(template, deletionRequester)).toEqual([
      installLookup(),
      // A full tombstones item sheds the installs the by-app index has long listed.
      deletionsIndex("byApp"),
      // A request put under the same id by another call first is read, and answered.
      {
        Effect: "Allow",
        Action: ["dynamodb:PutItem", "dynamodb:GetItem"],
        Resource: stack.resolve(tables.table.deletions.tableArn),
      },
      // The app's tombstones, never a request.
      onTombstonesItems(["dynamodb:UpdateItem", "dynamodb:GetItem"]),
    ]);
  });

  it("lets the export read an app's tombstones and list its requests by app only", () => {
    expect(statementsOfRole(template, tombstoneReader)).toEqual([
      onTombstonesItems("dynamodb:GetItem"),
      {
        Effect: "Allow",
        Action: "dynamodb:Query",
        Resource: stack.resolve(`${tables.table.deletions.tableArn}/index/byApp`),
      },
    ]);
  });

  it("lets an SDK's requests write sightings' items of the touches table, never a touch or a claim", () => {
    expect(statementsOfRole(template, sighter)).toEqual([
      {
        Effect: "Allow",
        Action: "dynamodb:BatchWriteItem",
        Resource: stack.resolve(tables.table.touches.tableArn),
        Condition: {
          "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${SIGHTING_KEY_PREFIX}*`] },
        },
      },
    ]);
  });

  it("lets ingestion look up one install's deletion requests through the by-install index only", () => {
    expect(statementsOfRole(template, deletionLookup)).toEqual([installLookup()]);
  });

  it("lets ingestion read apps, and get and put installs and customer users, by key, and query a user's installs", () => {
    expect(statementsOfRole(template, ingester)).toEqual([
      {
        Effect: "Allow",
        Action: "dynamodb:GetItem",
        Resource: stack.resolve(tables.table.apps.tableArn),
      },
      {
        Effect: "Allow",
        Action: ["dynamodb:GetItem", "dynamodb:PutItem"],
        Resource: [
          stack.resolve(tables.table.installs.tableArn),
          stack.resolve(tables.table.customerUsers.tableArn),
        ],
      },
      {
        Effect: "Allow",
        Action: "dynamodb:Query",
        Resource: stack.resolve(`${tables.table.customerUsers.tableArn}/index/byUser`),
      },
    ]);
  });
});
