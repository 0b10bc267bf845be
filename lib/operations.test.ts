import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { FUNCTIONS } from "../src/functions/manifest.ts";
import { AWS_JOBS } from "../src/jobs/jobs.ts";
import { LAKE_TABLES } from "../src/lake/lake-tables.ts";
import { ServiceFunction } from "./service-function.ts";
import type { ServiceStack } from "./service-stack.ts";
import { isJson, propertiesOf, synthServiceStack } from "./stack.test-support.ts";

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

const alarmsOf = (template: Template) =>
  Object.values(template.findResources("AWS::CloudWatch::Alarm")).map(propertiesOf);

/** The alarms on an AWS metric, by the dimension that names the resource. */
const alarmsOn = (template: Template, metricName: string) =>
  alarmsOf(template).filter((alarm) => alarm.MetricName === metricName);

describe("operations", () => {
  let stack: ServiceStack;
  let template: Template;
  let resources: Resources;
  const resolve = (value: unknown) => stack.resolve(value);

  beforeAll(() => {
    ({ stack, template } = synthServiceStack({
      settings: { alarmEmail: "oncall@example.com" },
    }));
    resources = template.toJSON().Resources as Resources;
  });

  it("sends every alarm of the stack to one encrypted topic, which the operator's address gets", () => {
    const topic = resolve(stack.operations.topic.topicArn);
    const alarms = alarmsOf(template);
    expect(alarms.length).toBeGreaterThan(40);
    for (const alarm of alarms) {
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
      .map((fn) => JSON.stringify(resolve(fn.function.functionName)));
    // Every function of the manifest (a route group's once, whatever its routes) and the link
    // host's origin check: the alarms are a function's, not a route's.
    expect(functions.length).toBe(FUNCTIONS.length + 1);
    for (const metric of ["Errors", "Throttles"]) {
      const watched = alarmsOn(template, metric).map((alarm) =>
        JSON.stringify((alarm.Dimensions as { Value: unknown }[])[0]?.Value),
      );
      expect(watched.sort(), metric).toEqual([...functions].sort());
    }
  });

  it("watches the API's 5xx and 429, the link host's 5xx and its clicks not recorded", () => {
    expect(alarmsOn(template, "5XXError")).toHaveLength(1);
    expect(alarmsOn(template, "5xx")).toHaveLength(1);
    template.hasResourceProperties("AWS::Logs::MetricFilter", {
      FilterPattern: '{ $.status = "429" }',
      LogGroupName: resolve(stack.api.accessLogs.logGroupName),
    });
    template.hasResourceProperties("AWS::Logs::MetricFilter", {
      FilterPattern: '{ $.message = "click not recorded" }',
      LogGroupName: resolve(stack.linkHost.routeFunctions.click.function.logGroup.logGroupName),
    });
    expect(alarmsOn(template, "ApiThrottled")).toHaveLength(1);
    expect(alarmsOn(template, "ClicksNotRecorded")[0]).toMatchObject({ Threshold: 1 });
  });

  it("watches each table's throttles, each worker's oldest message and each stream's delivery", () => {
    const tables = Object.keys(template.findResources("AWS::DynamoDB::Table"));
    const throttled = alarmsOf(template).filter((alarm) =>
      JSON.stringify(alarm.Metrics ?? "").includes("WriteThrottleEvents"),
    );
    expect(throttled).toHaveLength(tables.length);
    expect(alarmsOn(template, "ApproximateAgeOfOldestMessage")).toHaveLength(
      stack.workers.workers.size,
    );
    for (const metric of ["DeliveryToS3.DataFreshness", "PartitionCountExceeded"]) {
      const streams = alarmsOn(template, metric).map((alarm) =>
        JSON.stringify((alarm.Dimensions as { Value: unknown }[])[0]?.Value),
      );
      expect(streams.sort()).toEqual(
        LAKE_TABLES.map((table) =>
          JSON.stringify(resolve(stack.ingest.streams[table.name].ref)),
        ).sort(),
      );
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
    const dashboards = Object.values(template.findResources("AWS::CloudWatch::Dashboard"));
    expect(dashboards).toHaveLength(1);
    // Every alarm on it, in status widgets of at most 100.
    const body = JSON.stringify(dashboards[0]);
    for (const alarm of Object.keys(template.findResources("AWS::CloudWatch::Alarm"))) {
      expect(body, alarm).toContain(alarm);
    }
    const output = template.toJSON().Outputs.OperationsDashboardUrl;
    expect(JSON.stringify(output.Value)).toContain("#dashboards:name=");
    expect(JSON.stringify(output.Value)).toContain(
      JSON.stringify(resolve(stack.operations.dashboard.dashboardName)).slice(1, -1),
    );
  });

  it("sends to an existing topic instead, and makes none, when given one", () => {
    const existing = "arn:aws:sns:eu-west-1:123456789012:oncall";
    const other = synthServiceStack({ settings: { alarmTopicArn: existing } }).template;
    expect(Object.keys(other.findResources("AWS::SNS::Topic"))).toEqual([]);
    for (const alarm of alarmsOf(other)) expect(alarm.AlarmActions).toEqual([existing]);
  });
});
