import { Duration } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServiceStack } from "./service-stack.ts";
import { synthServiceStack } from "./stack.test-support.ts";

let stack: ServiceStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = synthServiceStack());
});

describe("ServiceStack", () => {
  it("outputs what the CLI needs", () => {
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual([
      "AlarmTopicArn",
      "ApiUrl",
      "AppsTableName",
      "AthenaWorkGroupName",
      "AttributionsStreamName",
      "AttributionsTableName",
      "CustomerUsersTableName",
      "DashboardUrl",
      "DeletionsTableName",
      "EventsStreamName",
      "GlueDatabaseName",
      "InstallsTableName",
      "KeysTableName",
      "LakeBucketName",
      "LinkHostUrl",
      "LinksTableName",
      "OperationsDashboardUrl",
      "ResultsBucketName",
      "SealingKeyArn",
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

  it("takes the snapshot lifetime as a prop, checked against the function's schema", () => {
    expect(() => synthServiceStack({ settings: { snapshotTtl: Duration.seconds(5) } })).toThrow(
      /SNAPSHOT_TTL_SECONDS/,
    );
  });
});
