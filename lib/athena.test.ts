import { Size, type Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Bucket } from "aws-cdk-lib/aws-s3";
import { beforeAll, describe, expect, it } from "vitest";
import { QueryWorkgroup } from "./athena.ts";
import { statementsOfRole, testStack } from "./stack.test-support.ts";

let stack: Stack;
let results: Bucket;
let queries: QueryWorkgroup;
let caller: Role;
let template: Template;

beforeAll(() => {
  stack = testStack();
  results = new Bucket(stack, "Results");
  queries = new QueryWorkgroup(stack, "Queries", { resultsBucket: results });
  new QueryWorkgroup(stack, "Small", {
    resultsBucket: results,
    bytesScannedCutoffPerQuery: Size.gibibytes(1),
  });
  caller = new Role(stack, "Caller", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
  queries.grantRunQueries(caller);
  template = Template.fromStack(stack);
});

describe("Athena workgroup", () => {
  it("enforces engine v3, encrypted results in the results bucket, metrics and a scan cut-off", () => {
    template.hasResourceProperties("AWS::Athena::WorkGroup", {
      Name: queries.workGroupName,
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        EngineVersion: { SelectedEngineVersion: "Athena engine version 3" },
        PublishCloudWatchMetricsEnabled: true,
        BytesScannedCutoffPerQuery: 10 * 1024 ** 3,
        ResultConfiguration: {
          OutputLocation: stack.resolve(`s3://${results.bucketName}/athena/`),
          EncryptionConfiguration: { EncryptionOption: "SSE_S3" },
          ExpectedBucketOwner: "123456789012",
        },
      },
    });
  });

  it("takes the cut-off as a prop", () => {
    template.hasResourceProperties("AWS::Athena::WorkGroup", {
      WorkGroupConfiguration: { BytesScannedCutoffPerQuery: 1024 ** 3 },
    });
  });

  it("derives a unique name Athena accepts", () => {
    expect(queries.workGroupName).toMatch(/^[a-zA-Z0-9._-]{1,128}$/);
  });

  it("grants query actions on this workgroup only", () => {
    expect(JSON.stringify(stack.resolve(queries.workGroupArn))).toContain(
      `:athena:eu-west-1:123456789012:workgroup/${queries.workGroupName}`,
    );
    expect(statementsOfRole(template, caller)).toEqual([
      {
        Effect: "Allow",
        Action: [
          "athena:StartQueryExecution",
          "athena:GetQueryExecution",
          "athena:GetQueryResults",
          "athena:GetQueryRuntimeStatistics",
          "athena:StopQueryExecution",
        ],
        Resource: stack.resolve(queries.workGroupArn),
      },
    ]);
  });
});
