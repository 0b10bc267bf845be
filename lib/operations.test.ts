import { Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { Alarm } from "aws-cdk-lib/aws-cloudwatch";
import { beforeAll, describe, expect, it } from "vitest";
import { SKIPPED_ITEM_MESSAGE } from "../src/adapters/dynamodb/new-items-handler.ts";
import { FUNCTIONS } from "../src/functions/manifest.ts";
import { AWS_JOBS } from "../src/jobs/jobs.ts";
import { LAKE_TABLES } from "../src/lake/lake-tables.ts";
import { pascal } from "./naming.ts";
import { ServiceFunction } from "./service-function.ts";
import type { ServiceStack } from "./service-stack.ts";
import {
  isJson,
  nestedStackIdOf,
  propertiesOf,
  seenFrom,
  synthServiceStack,
} from "./stack.test-support.ts";

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

const alarmsOf = (template: Template) =>
  Object.values(template.findResources("AWS::CloudWatch::Alarm")).map(propertiesOf);

/** The alarms on an AWS metric, by the dimension that names the resource. */
const alarmsOn = (template: Template, metricName: string) =>
  alarmsOf(template).filter((alarm) => alarm.MetricName === metricName);

describe("operations", () => {
  let stack: ServiceStack;
  /** The service's stack's template, and its nested stack's of the alarms. */
  let template: Template;
  let alarms: Template;
  let resources: Resources;
  const resolve = (value: unknown) => stack.resolve(value);
  /** A value of the service's stack as the alarms' nested stack sees it: a parameter. */
  const seen = (value: unknown) => seenFrom(stack.operations.alarms, template, value);

  beforeAll(() => {
    ({ stack, template } = synthServiceStack({
      settings: { alarmEmail: "oncall@example.com" },
    }));
    alarms = Template.fromStack(stack.operations.alarms);
    resources = template.toJSON().Resources as Resources;
  });

  it("keeps its alarms, their metric filters and the dashboard in a nested stack of their own", () => {
    expect(template.toJSON().Resources[nestedStackIdOf(stack.operations.alarms)]?.Type).toBe(
      "AWS::CloudFormation::Stack",
    );
    const types = new Set(
      Object.values(alarms.toJSON().Resources as Resources).map((resource) => resource.Type),
    );
    expect([...types].sort()).toEqual([
      "AWS::CloudWatch::Alarm",
      "AWS::CloudWatch::Dashboard",
      "AWS::Logs::MetricFilter",
    ]);
    template.resourceCountIs("AWS::CloudWatch::Dashboard", 0);
    template.resourceCountIs("AWS::Logs::MetricFilter", 0);
    // The service's stack keeps only the alarms made beside their failure queues: one a worker's
    // dead letters, a job's failed runs, a table-stream worker's failures.
    for (const alarm of alarmsOf(template)) {
      expect(alarm.MetricName, String(alarm.AlarmDescription)).toBe(
        "ApproximateNumberOfMessagesVisible",
      );
    }
    expect(alarmsOf(template)).toHaveLength(
      stack.workers.workers.size + stack.tableStreamWorkers.workers.size + AWS_JOBS.length,
    );
  });

  it("sends every alarm of the stack to one encrypted topic, which the operator's address gets", () => {
    const topic = resolve(stack.operations.topic.topicArn);
    expect(alarmsOf(alarms).length).toBeGreaterThan(40);
    // The topic is the service's stack's: the nested stack is passed its ARN.
    for (const alarm of alarmsOf(alarms)) {
      expect(alarm.AlarmActions, String(alarm.AlarmDescription)).toEqual([seen(topic)]);
    }
    for (const alarm of alarmsOf(template)) {
      expect(alarm.AlarmActions, String(alarm.AlarmDescription)).toEqual([topic]);
    }
    const [keyId] = Object.keys(template.findResources("AWS::SNS::Topic"));
    const props = propertiesOf(resources[keyId ?? ""]);
    expect(props.KmsMasterKeyId).toBeDefined();
    template.hasResourceProperties("AWS::SNS::Subscription", {
      Protocol: "email",
      Endpoint: "oncall@example.com",
      TopicArn: topic,
    });
    // CloudWatch may use the topic's key; its rotation is on.
    template.hasResourceProperties("AWS::KMS::Key", {
      EnableKeyRotation: true,
      KeyPolicy: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: "cloudwatch.amazonaws.com" },
            Action: ["kms:Decrypt", "kms:GenerateDataKey*"],
          }),
        ]),
      }),
    });
  });

  it("watches every function of the service for errors and throttles", () => {
    const functions = stack.node
      .findAll()
      .filter((c) => c instanceof ServiceFunction)
      .map((fn) => JSON.stringify(seen(fn.function.functionName)));
    // Every function of the manifest (a route group's once, whatever its routes) and the link
    // host's origin check: the alarms are a function's, not a route's.
    expect(functions.length).toBe(FUNCTIONS.length + 1);
    for (const metric of ["Errors", "Throttles"]) {
      const watched = alarmsOn(alarms, metric).map((alarm) =>
        JSON.stringify((alarm.Dimensions as { Value: unknown }[])[0]?.Value),
      );
      expect(watched.sort(), metric).toEqual([...functions].sort());
    }
  });

  it("watches the API's 5xx and 429, the link host's 5xx and its clicks not recorded", () => {
    expect(alarmsOn(alarms, "5XXError")).toHaveLength(1);
    expect(alarmsOn(alarms, "5xx")).toHaveLength(1);
    alarms.hasResourceProperties("AWS::Logs::MetricFilter", {
      FilterPattern: '{ $.status = "429" }',
      LogGroupName: seen(stack.api.accessLogs.logGroupName),
    });
    alarms.hasResourceProperties("AWS::Logs::MetricFilter", {
      FilterPattern: '{ $.message = "click not recorded" }',
      LogGroupName: seen(stack.linkHost.routeFunctions.click.function.logGroup.logGroupName),
    });
    expect(alarmsOn(alarms, "ApiThrottled")).toHaveLength(1);
    expect(alarmsOn(alarms, "ClicksNotRecorded")[0]).toMatchObject({ Threshold: 1 });
  });

  it("watches each table's throttles, each worker's oldest message and each stream's delivery", () => {
    const tables = Object.keys(template.findResources("AWS::DynamoDB::Table"));
    const throttled = alarmsOf(alarms).filter((alarm) =>
      JSON.stringify(alarm.Metrics ?? "").includes("WriteThrottleEvents"),
    );
    expect(throttled).toHaveLength(tables.length);
    expect(alarmsOn(alarms, "ApproximateAgeOfOldestMessage")).toHaveLength(
      stack.workers.workers.size,
    );
    for (const metric of ["DeliveryToS3.DataFreshness", "PartitionCountExceeded"]) {
      const streams = alarmsOn(alarms, metric).map((alarm) =>
        JSON.stringify((alarm.Dimensions as { Value: unknown }[])[0]?.Value),
      );
      expect(streams.sort()).toEqual(
        LAKE_TABLES.map((table) =>
          JSON.stringify(seen(stack.ingest.streams[table.name].ref)),
        ).sort(),
      );
    }
  });

  it("counts and alarms on each table-stream worker's skipped items, in its own logs", () => {
    expect(stack.tableStreamWorkers.workers.size).toBeGreaterThan(0);
    for (const [id, worker] of stack.tableStreamWorkers.workers) {
      alarms.hasResourceProperties("AWS::Logs::MetricFilter", {
        FilterPattern: `{ $.message = "${SKIPPED_ITEM_MESSAGE}" }`,
        LogGroupName: seen(worker.function.function.logGroup.logGroupName),
      });
      expect(alarmsOn(alarms, `${pascal(id)}ItemsSkipped`)[0]).toMatchObject({ Threshold: 1 });
    }
  });

  it("tries a failed job twice more, then keeps its run in a failure queue that alarms", () => {
    const configs = Object.values(template.findResources("AWS::Lambda::EventInvokeConfig")).map(
      propertiesOf,
    );
    // Every scheduled job, and nothing else, is invoked asynchronously by its rule.
    expect(configs).toHaveLength(AWS_JOBS.length);
    for (const config of configs) {
      expect(config.MaximumRetryAttempts).toBe(2);
      const destination = isJson(config.DestinationConfig) ? config.DestinationConfig : {};
      expect(destination.OnFailure).toBeDefined();
    }
    const failedRuns = alarmsOn(template, "ApproximateNumberOfMessagesVisible").filter((alarm) =>
      String(alarm.AlarmDescription).includes("job failed"),
    );
    expect(failedRuns).toHaveLength(AWS_JOBS.length);
  });

  it("puts the alarms on one dashboard, whose address is a stack output", () => {
    const dashboards = Object.values(alarms.findResources("AWS::CloudWatch::Dashboard"));
    expect(dashboards).toHaveLength(1);
    // Every alarm of the stack on it, in status widgets of at most 100: those of the nested
    // stack by their own ARN, those of the service's stack by the ARN it is passed.
    const body = JSON.stringify(dashboards[0]);
    const nested = stack.operations.alarms;
    const every = stack.node.findAll().filter((c) => c instanceof Alarm);
    expect(every).toHaveLength(alarmsOf(alarms).length + alarmsOf(template).length);
    for (const alarm of every) {
      const arn =
        Stack.of(alarm) === nested ? nested.resolve(alarm.alarmArn) : seen(alarm.alarmArn);
      expect(body, alarm.node.path).toContain(JSON.stringify(arn));
    }
    // The service's stack outputs its address, the dashboard's name an output of the nested one.
    const [nameOutput] = Object.entries(alarms.toJSON().Outputs ?? {}).filter(
      ([, output]) =>
        JSON.stringify((output as { Value: unknown }).Value) ===
        JSON.stringify(nested.resolve(stack.operations.dashboard.dashboardName)),
    );
    expect(nameOutput).toBeDefined();
    const output = JSON.stringify(template.toJSON().Outputs.OperationsDashboardUrl.Value);
    expect(output).toContain("#dashboards:name=");
    expect(output).toContain(
      JSON.stringify({
        "Fn::GetAtt": [nestedStackIdOf(nested), `Outputs.${nameOutput?.[0]}`],
      }),
    );
  });

  it("sends to an existing topic instead, and makes none, when given one", () => {
    const existing = "arn:aws:sns:eu-west-1:123456789012:oncall";
    const other = synthServiceStack({ settings: { alarmTopicArn: existing } });
    expect(Object.keys(other.template.findResources("AWS::SNS::Topic"))).toEqual([]);
    const nested = alarmsOf(Template.fromStack(other.stack.operations.alarms));
    expect(nested.length).toBeGreaterThan(40);
    for (const alarm of [...alarmsOf(other.template), ...nested]) {
      expect(alarm.AlarmActions).toEqual([existing]);
    }
  });
});
