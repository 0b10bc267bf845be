import { Match, Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { TABLE_STREAM_WORKERS } from "../src/workers/table-stream-workers.ts";
import { THRESHOLDS } from "./operations.ts";
import type { ServiceStack } from "./service-stack.ts";
import { sharedServiceStack, statementsOfRole } from "./stack.test-support.ts";
import { TABLE_STREAM_MAX_RECORD_AGE } from "./table-stream-workers.ts";

let template: Template;
let stack: ServiceStack;

beforeAll(() => {
  ({ stack, template } = sharedServiceStack());
});

const resolve = (value: unknown) => stack.resolve(value);

describe("table-stream workers", () => {
  const [tapLake] = TABLE_STREAM_WORKERS;

  it("keep a stream of new images on the tables they read, and only those", () => {
    const touches = stack.tables.table.touches;
    expect(resolve(touches.tableStreamArn)).toBeDefined();
    const streamed = Object.values(template.findResources("AWS::DynamoDB::Table")).filter(
      (table) => table.Properties?.StreamSpecification !== undefined,
    );
    expect(streamed).toHaveLength(new Set(TABLE_STREAM_WORKERS.map((w) => w.table)).size);
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      StreamSpecification: { StreamViewType: "NEW_IMAGE" },
    });
  });

  it("feed the tap-lake function only the taps newly stored, in batches, a failing batch tried until its records are 20 hours old, then named in a queue with an alarm", () => {
    const worker = stack.tableStreamWorkers.workers.get("tap-lake");
    expect(worker).toBeDefined();
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      EventSourceArn: resolve(stack.tables.table.touches.tableStreamArn),
      FunctionName: resolve(worker?.function.function.functionName),
      StartingPosition: "TRIM_HORIZON",
      BatchSize: tapLake.batchSize,
      MaximumBatchingWindowInSeconds: tapLake.batchWindowSeconds,
      BisectBatchOnFunctionError: true,
      MaximumRecordAgeInSeconds: TABLE_STREAM_MAX_RECORD_AGE.toSeconds(),
      // Lambda's default, as many attempts as the age allows: a count would give up sooner.
      MaximumRetryAttempts: Match.absent(),
      DestinationConfig: {
        OnFailure: { Destination: resolve(worker?.failures.queueArn) },
      },
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ["INSERT"],
              dynamodb: { NewImage: { source: { S: ["link"] } } },
            }),
          },
        ],
      },
    });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      Statistic: "Maximum",
      Dimensions: [{ Name: "QueueName", Value: resolve(worker?.failures.queueName) }],
      AlarmActions: Match.anyValue(),
    });
    expect(TABLE_STREAM_MAX_RECORD_AGE.toHours()).toBe(20);
  });

  it("say when the tap-lake function falls an hour behind its stream", () => {
    const alarms = Template.fromStack(stack.operations.alarms);
    alarms.hasResourceProperties("AWS::CloudWatch::Alarm", {
      AlarmDescription: "tap-lake worker behind its stream",
      MetricName: "IteratorAge",
      Namespace: "AWS/Lambda",
      Statistic: "Maximum",
      Threshold: THRESHOLDS.streamWorkerLag.toMilliseconds(),
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      Dimensions: [{ Name: "FunctionName", Value: Match.anyValue() }],
      AlarmActions: Match.anyValue(),
    });
    expect(THRESHOLDS.streamWorkerLag.toHours()).toBe(1);
  });

  it("let the tap-lake function put to the touches stream and read the table's stream, and the tap no longer put to the lake", () => {
    const worker = stack.tableStreamWorkers.workers.get("tap-lake");
    const statements = statementsOfRole(template, worker?.function.role ?? fail());
    const actions = statements.flatMap((s) => [s.Action].flat());
    expect(actions).toContain("firehose:PutRecordBatch");
    expect(actions).toContain("dynamodb:GetRecords");
    const tap = stack.linkHost.routeFunctions.click;
    const tapActions = statementsOfRole(template, tap.role).flatMap((s) => [s.Action].flat());
    expect(tapActions).not.toContain("firehose:PutRecordBatch");
    expect(tapActions).not.toContain("firehose:PutRecord");
    // Its one write, and no other: no delete, no batch (whose requests may be deletes).
    expect(tapActions).toContain("dynamodb:PutItem");
    expect(tapActions).not.toContain("dynamodb:BatchWriteItem");
    expect(tapActions).not.toContain("dynamodb:DeleteItem");
  });
});

const fail = (): never => {
  throw new Error("no such function");
};
