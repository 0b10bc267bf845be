import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { RATES_TABLE_KEY } from "./lake.ts";
import type { ServiceStack } from "./service-stack.ts";
import {
  actionsOf,
  FAILURE_DESTINATION,
  propertiesOf,
  sharedServiceStack,
  statementsOfRole,
} from "./stack.test-support.ts";

let stack: ServiceStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedServiceStack());
});

const resolve = (value: unknown) => stack.resolve(value);

describe("daily rates job", () => {
  it("runs on working days after the ECB publishes, tried twice more on failure, then to its failure queue", () => {
    const fn = stack.fxRates.function.function;
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "cron(30 16 ? * MON-FRI *)",
      State: "ENABLED",
      Targets: [{ Arn: resolve(fn.functionArn), Id: "Target0" }],
    });
    template.hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      FunctionName: resolve(fn.functionName),
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
  });

  it("is told where the table lives and where the shipped history is", () => {
    const props = propertiesOf(
      template.toJSON().Resources[resolve(stack.fxRates.function.function.functionName).Ref],
    );
    expect(props.Environment).toEqual({
      Variables: {
        FX_RATES_BUCKET: resolve(stack.lake.bucket.bucketName),
        FX_RATES_KEY: RATES_TABLE_KEY,
        FX_RATES_FILE: "/var/task/ecb-eurofxref-hist.csv",
      },
    });
  });

  it("may read, list and replace the rate table in S3, and nothing else there", () => {
    const statements = statementsOfRole(template, stack.fxRates.function.role);
    const s3 = statements.filter((s) => JSON.stringify(s.Action).includes("s3:"));
    const bucket = resolve(stack.lake.bucket.bucketArn);
    const object = { "Fn::Join": ["", [bucket, `/${RATES_TABLE_KEY}`]] };
    expect(s3).toEqual([
      {
        Effect: "Allow",
        Action: "s3:ListBucket",
        Resource: bucket,
        Condition: { StringEquals: { "s3:prefix": RATES_TABLE_KEY } },
      },
      { Effect: "Allow", Action: "s3:GetObject", Resource: object },
      { Effect: "Allow", Action: "s3:PutObject", Resource: object },
    ]);
    const services = new Set(
      statements.flatMap((s) => [s.Action].flat().map((a) => String(a).split(":")[0])),
    );
    expect([...services].sort()).toEqual(["logs", "s3", "sqs", "xray"]);
    const sqs = statements.flatMap(actionsOf).filter((a) => a.startsWith("sqs:"));
    expect(new Set(sqs)).toEqual(FAILURE_DESTINATION);
  });
});
