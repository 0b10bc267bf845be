import { Duration } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { ATTRIBUTION_WORKER } from "../src/workers/workers.ts";
import { ApiRoutes } from "./api-routes.ts";
import type { ServiceFunction } from "./service-function.ts";
import type { ServiceStack } from "./service-stack.ts";
import { sharedServiceStack, synthServiceStack } from "./stack.test-support.ts";

let stack: ServiceStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedServiceStack());
});

describe("ServiceStack", () => {
  it("outputs what the CLI needs", () => {
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual([
      "AlarmTopicArn",
      "ApiUrl",
      "ApplePostbacksStreamName",
      "ApplePostbacksTableName",
      "AppsTableName",
      "AthenaWorkGroupName",
      "AttributionsStreamName",
      "AttributionsTableName",
      "CostsStreamName",
      "CostsTableName",
      "CustomerUsersTableName",
      "DashboardUrl",
      "DeletionsTableName",
      "DeliveryLogTableName",
      "EventsStreamName",
      "GlueDatabaseName",
      "InstallsTableName",
      "KeysTableName",
      "LakeBucketName",
      "LinkAppHosts",
      "LinkHostUrl",
      "LinksTableName",
      "OperationsDashboardUrl",
      "OutboxTableName",
      "PostbackConfigsTableName",
      "ResultsBucketName",
      "SealingKeyArn",
      "SessionsStreamName",
      "SessionsTableName",
      "SnapshotsTableName",
      "TouchesStreamName",
      "TouchesTableName",
      "UserPoolId",
      "UsersTableName",
    ]);
    expect(outputs.SealingKeyArn.Value).toEqual(stack.resolve(stack.sealingKey.keyArn));
    expect(outputs.EventsStreamName.Value).toEqual(stack.resolve(stack.ingest.streams.events.ref));
    expect(outputs.ApiUrl.Value).toEqual(stack.resolve(stack.api.url));
  });

  it("lets CloudFormation name buckets, tables, functions, roles and streams", () => {
    const physicalNames: Record<string, string> = {
      "AWS::S3::Bucket": "BucketName",
      "AWS::DynamoDB::Table": "TableName",
      "AWS::Lambda::Function": "FunctionName",
      "AWS::IAM::Role": "RoleName",
      "AWS::KinesisFirehose::DeliveryStream": "DeliveryStreamName",
      "AWS::Logs::LogGroup": "LogGroupName",
      "AWS::ApiGateway::RestApi": "Name",
    };
    for (const [type, property] of Object.entries(physicalNames)) {
      const resources = Object.values(template.findResources(type));
      expect(resources.length, type).toBeGreaterThan(0);
      for (const resource of resources) {
        const literal = resource.Properties?.[property];
        // The REST API must have a name; CDK derives it from the construct id.
        if (type === "AWS::ApiGateway::RestApi") expect(literal).toBe("Api");
        else expect(literal, `${type}.${property}`).toBeUndefined();
      }
    }
  });

  it("stays under CloudFormation's 500 resources a stack, with room for what comes next", () => {
    // CloudFormation refuses a stack of more than 500 resources, and synthesis fails with it.
    // A new function adds five here (function, role, policy, log group, the API's permission
    // to invoke it) and its two alarms to the alarms' nested stack; a new route its method
    // (two for a GET, which answers HEAD too) and perhaps a resource to the API's nested stack
    // of resources and methods (lib/api-routes.ts), and nothing here. Routes of a family that
    // use the same things join its route group (src/http/routes.ts) rather than add a function.
    const LIMIT = 500;
    const HEADROOM = 100;
    const count = Object.keys(template.toJSON().Resources).length;
    console.info(`The Attribution stack has ${count} of CloudFormation's ${LIMIT} resources`);
    expect(count).toBeLessThanOrEqual(LIMIT - HEADROOM);
  });

  it("keeps each nested stack of the API's resources and methods under 450 resources and 175 parameters", () => {
    // A method a route's verb and a resource a path segment; a parameter each for the API's id,
    // its root resource's, each authorizer's and each function's ARN. Past either, the routes
    // are to be split among more nested stacks, each whole subtrees of paths (API Gateway has
    // one resource a path, which one stack makes).
    const LIMIT = 500;
    const HEADROOM = 50;
    const PARAMETER_LIMIT = 200;
    const PARAMETER_HEADROOM = 25;
    const nested = stack.node.findAll().filter((c): c is ApiRoutes => c instanceof ApiRoutes);
    expect(nested.length).toBeGreaterThan(0);
    for (const routes of nested) {
      const json = Template.fromStack(routes).toJSON();
      const count = Object.keys(json.Resources).length;
      const parameters = Object.keys(json.Parameters ?? {}).length;
      console.info(
        `The API's nested stack ${routes.node.path} has ${count} of ${LIMIT} resources and ${parameters} of ${PARAMETER_LIMIT} parameters`,
      );
      expect(count).toBeLessThanOrEqual(LIMIT - HEADROOM);
      expect(parameters).toBeLessThanOrEqual(PARAMETER_LIMIT - PARAMETER_HEADROOM);
    }
  });

  it("keeps the alarms' nested stack under its own 500 resources and 200 parameters", () => {
    // Two alarms a function, one a table, two a stream: it grows with the service's stack. Each
    // resource it watches is passed to it as one parameter (a function's name, a table's), and
    // CloudFormation takes at most 200 parameters a template.
    const LIMIT = 500;
    const HEADROOM = 50;
    const PARAMETER_LIMIT = 200;
    const PARAMETER_HEADROOM = 25;
    const alarms = Template.fromStack(stack.operations.alarms).toJSON();
    const count = Object.keys(alarms.Resources).length;
    const parameters = Object.keys(alarms.Parameters ?? {}).length;
    console.info(
      `Its alarms' nested stack has ${count} of ${LIMIT} resources and ${parameters} of ${PARAMETER_LIMIT} parameters`,
    );
    expect(count).toBeLessThanOrEqual(LIMIT - HEADROOM);
    expect(parameters).toBeLessThanOrEqual(PARAMETER_LIMIT - PARAMETER_HEADROOM);
  });

  it("reserves no concurrency unless told to: a fresh account has none to reserve", () => {
    for (const fn of Object.values(template.findResources("AWS::Lambda::Function"))) {
      expect(fn.Properties?.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it("reserves concurrency for ingestion, the tap and the attribution worker, as set", () => {
    const { stack: reserving, template: t } = synthServiceStack({
      settings: { reservedConcurrency: { ingest: 40, tap: 30, attribution: 60 } },
    });
    const reservedOf = (fn: ServiceFunction | undefined) => {
      const arn = reserving.resolve(fn?.function.functionArn) as { "Fn::GetAtt": [string] };
      return t.toJSON().Resources[arn["Fn::GetAtt"][0]].Properties.ReservedConcurrentExecutions;
    };
    for (const id of ["installs", "events", "s2s-events"]) {
      expect(reservedOf(reserving.api.routeFunctions[id]), id).toBe(40);
    }
    expect(reservedOf(reserving.linkHost.routeFunctions.click)).toBe(30);
    expect(reservedOf(reserving.workers.workers.get("attribute")?.function)).toBe(60);
    // Nothing else: a reservation is also a ceiling.
    const reserved = Object.values(t.findResources("AWS::Lambda::Function")).filter(
      (fn) => fn.Properties?.ReservedConcurrentExecutions !== undefined,
    );
    expect(reserved).toHaveLength(5);
  });

  it("refuses a worker reservation below its event source's maxConcurrency", () => {
    const worker = ATTRIBUTION_WORKER.maxConcurrency;
    expect(() =>
      synthServiceStack({
        settings: { reservedConcurrency: { ingest: 0, tap: 0, attribution: worker - 1 } },
      }),
    ).toThrow(/maxConcurrency/);
  });

  it("takes the snapshot lifetime as a prop, checked against the function's schema", () => {
    expect(() => synthServiceStack({ settings: { snapshotTtl: Duration.seconds(5) } })).toThrow(
      /SNAPSHOT_TTL_SECONDS/,
    );
  });
});
