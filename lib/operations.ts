/**
 * What tells an operator that the stack needs them: one SNS topic every alarm of the stack
 * sends to (a new one, encrypted, with an e-mail subscription, or an existing one), an alarm on
 * each signal a failure shows in, and one CloudWatch dashboard of them, whose URL is a stack
 * output. The alarms that belong to one construct are made there (a worker's dead letters, a
 * job's failed runs); the ones here cover every resource of a kind, found in the stack, so a
 * new function, table or stream is watched without a line here. Thresholds: docs/aws.md.
 *
 * Those alarms (two a function), their metric filters and the dashboard live in a nested stack
 * of their own, so that the service's stack keeps CloudFormation's 500 resources a stack for
 * functions and tables (the API's methods are a nested stack too, lib/api-routes.ts). The topic
 * stays in the service's stack: the nested stack is passed its ARN as one parameter (and one
 * for each resource it watches), and the alarms made beside their constructs send to it with
 * no reference across stacks.
 */
import { Duration, NestedStack, Stack } from "aws-cdk-lib";
import type { RestApi } from "aws-cdk-lib/aws-apigateway";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { ServicePrincipal } from "aws-cdk-lib/aws-iam";
import type { CfnDeliveryStream } from "aws-cdk-lib/aws-kinesisfirehose";
import { Key } from "aws-cdk-lib/aws-kms";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { FilterPattern, type ILogGroup, MetricFilter } from "aws-cdk-lib/aws-logs";
import { type ITopic, Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { SKIPPED_ITEM_MESSAGE } from "../src/adapters/dynamodb/new-items-handler.ts";
import { pascal } from "./naming.ts";
import { ServiceFunction } from "./service-function.ts";

/** The namespace of the metrics the stack makes from its logs. */
export const METRIC_NAMESPACE = "AttributionService";

/** Every threshold in one place; docs/aws.md states them. */
export const THRESHOLDS = {
  /** A function's unhandled errors, or its throttled invocations, in 5 minutes. */
  functionErrors: 1,
  functionThrottles: 1,
  /** The API's 5xx answers in 5 minutes (the link host's too). */
  serverErrors: 5,
  /** Requests API Gateway refused with 429 in 5 minutes: a tenant at its limit. */
  throttledRequests: 100,
  /** Taps redirected without their click recorded, in 5 minutes. */
  clicksNotRecorded: 1,
  /** Items a table-stream worker skipped as never to be handled, in 5 minutes. */
  streamItemsSkipped: 1,
  /** Read and write throttle events of a table in 5 minutes. */
  tableThrottles: 1,
  /** The age of a worker queue's oldest message. */
  oldestMessage: Duration.minutes(15),
  /**
   * The age of the oldest record a table-stream worker read (its iterator age): a batch that
   * keeps failing, or a throttled function, well before its records are given up at 20 hours.
   */
  streamWorkerLag: Duration.hours(1),
  /** The age of the oldest record a stream has not delivered (three of its buffer intervals). */
  undeliveredRecords: Duration.minutes(15),
} as const;

export interface OperationsProps {
  /** An e-mail address subscribed to a new topic (the setting alarmEmail). */
  readonly alarmEmail: string | null;
  /** An existing topic to send to instead of a new one (the setting alarmTopicArn). */
  readonly alarmTopicArn: string | null;
  readonly api: { readonly api: RestApi; readonly accessLogs: ILogGroup };
  /** The link host's API and the log group of its tap function, when the stack has one. */
  readonly linkHost?: { readonly api: HttpApi; readonly tapLogs: ILogGroup };
  readonly tables: readonly Table[];
  /** The worker queues (their dead-letter queues have their own alarms). */
  readonly queues: readonly Queue[];
  /** The functions a table's stream feeds (their failure queues have their own alarms). */
  readonly streamWorkers: readonly {
    readonly id: string;
    readonly function: IFunction;
    readonly logs: ILogGroup;
  }[];
  readonly streams: readonly CfnDeliveryStream[];
}

const FIVE_MINUTES = Duration.minutes(5);
const ALARMS_PER_WIDGET = 100;

export class Operations extends Construct {
  readonly topic: ITopic;
  /** The alarms made here, their metric filters and the dashboard. */
  readonly alarms: NestedStack;
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    this.topic = props.alarmTopicArn
      ? Topic.fromTopicArn(this, "Topic", props.alarmTopicArn)
      : this.newTopic(props.alarmEmail);
    const alarms = new NestedStack(this, "Alarms", {
      description:
        "Attribution service: the alarms on every function, table, queue and stream, and the operations dashboard",
    });
    this.alarms = alarms;

    const alarm = (name: string, metric: Metric | MathExpression, threshold: number) =>
      new Alarm(alarms, pascal(name.replaceAll(/[^A-Za-z0-9]+/g, "-")), {
        alarmDescription: name,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });

    const sum = { period: FIVE_MINUTES, statistic: "Sum" };
    /** A count of the JSON log lines whose `field` is `value`, as a metric of the stack's. */
    const linesCounted = (metricName: string, logGroup: ILogGroup, field: string, value: string) =>
      new MetricFilter(alarms, `${metricName}Filter`, {
        logGroup,
        filterPattern: FilterPattern.stringValue(field, "=", value),
        metricNamespace: METRIC_NAMESPACE,
        metricName,
        metricValue: "1",
      }).metric(sum);

    // The service's stack: its tree holds the nested stack's constructs too.
    const stack = Stack.of(this);
    for (const fn of stack.node.findAll().filter((c) => c instanceof ServiceFunction)) {
      const name = fn.node.path.split("/").slice(1).join(" ");
      alarm(`${name} errors`, fn.function.metricErrors(sum), THRESHOLDS.functionErrors);
      alarm(`${name} throttles`, fn.function.metricThrottles(sum), THRESHOLDS.functionThrottles);
    }

    alarm("API 5xx", props.api.api.metricServerError(sum), THRESHOLDS.serverErrors);
    alarm(
      "API 429",
      linesCounted("ApiThrottled", props.api.accessLogs, "$.status", "429"),
      THRESHOLDS.throttledRequests,
    );
    if (props.linkHost) {
      alarm("link host 5xx", props.linkHost.api.metricServerError(sum), THRESHOLDS.serverErrors);
      // The tap function's line when the touch store refused the click (the tap is still
      // redirected).
      alarm(
        "clicks not recorded",
        linesCounted(
          "ClicksNotRecorded",
          props.linkHost.tapLogs,
          "$.message",
          "click not recorded",
        ),
        THRESHOLDS.clicksNotRecorded,
      );
    }
    for (const table of props.tables) {
      const events = (metricName: string) => table.metric(metricName, sum);
      alarm(
        `${table.node.id} table throttles`,
        new MathExpression({
          expression: "reads + writes",
          usingMetrics: {
            reads: events("ReadThrottleEvents"),
            writes: events("WriteThrottleEvents"),
          },
          period: FIVE_MINUTES,
        }),
        THRESHOLDS.tableThrottles,
      );
    }
    for (const queue of props.queues) {
      alarm(
        `${queue.node.scope?.node.id ?? queue.node.id} oldest message`,
        queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: "Maximum" }),
        THRESHOLDS.oldestMessage.toSeconds(),
      );
    }
    for (const worker of props.streamWorkers) {
      alarm(
        `${worker.id} worker behind its stream`,
        worker.function.metric("IteratorAge", { period: FIVE_MINUTES, statistic: "Maximum" }),
        THRESHOLDS.streamWorkerLag.toMilliseconds(),
      );
      // The worker's line for an item it can never handle, which it skips (the item stays in
      // its table) rather than hold back its shard.
      alarm(
        `${worker.id} worker items skipped`,
        linesCounted(
          `${pascal(worker.id)}ItemsSkipped`,
          worker.logs,
          "$.message",
          SKIPPED_ITEM_MESSAGE,
        ),
        THRESHOLDS.streamItemsSkipped,
      );
    }
    for (const stream of props.streams) {
      const metric = (metricName: string, statistic: string) =>
        new Metric({
          namespace: "AWS/Firehose",
          metricName,
          dimensionsMap: { DeliveryStreamName: stream.ref },
          period: FIVE_MINUTES,
          statistic,
        });
      const name = stream.node.scope?.node.id ?? stream.node.id;
      alarm(
        `${name} stream undelivered records`,
        metric("DeliveryToS3.DataFreshness", "Maximum"),
        THRESHOLDS.undeliveredRecords.toSeconds(),
      );
      // Records past the stream's open partitions go to its error prefix.
      alarm(`${name} stream partitions exceeded`, metric("PartitionCountExceeded", "Sum"), 1);
    }

    // Every alarm of the stack, these and those its constructs made, reaches the topic.
    const everyAlarm = stack.node.findAll().filter((c): c is Alarm => c instanceof Alarm);
    const action = new SnsAction(this.topic);
    for (const each of everyAlarm) each.addAlarmAction(action);

    this.dashboard = new Dashboard(alarms, "Dashboard", {
      widgets: [
        // A status widget shows at most 100 alarms.
        Array.from(
          { length: Math.ceil(everyAlarm.length / ALARMS_PER_WIDGET) },
          (_, i) =>
            new AlarmStatusWidget({
              title: "Alarms",
              alarms: everyAlarm.slice(i * ALARMS_PER_WIDGET, (i + 1) * ALARMS_PER_WIDGET),
              width: 24,
              height: 12,
            }),
        ),
        [
          new GraphWidget({
            title: "API answers",
            left: [
              props.api.api.metricCount(sum),
              props.api.api.metricClientError(sum),
              props.api.api.metricServerError(sum),
            ],
            width: 12,
          }),
          new GraphWidget({
            title: "API latency (p99)",
            left: [props.api.api.metricLatency({ period: FIVE_MINUTES, statistic: "p99" })],
            width: 12,
          }),
        ],
      ],
    });
  }

  /** The console's address of the dashboard. */
  get dashboardUrl(): string {
    const region = Stack.of(this).region;
    return `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards:name=${this.dashboard.dashboardName}`;
  }

  private newTopic(email: string | null): Topic {
    // CloudWatch publishes to an encrypted topic only with a key whose policy lets it: SNS's
    // AWS-managed key does not.
    const key = new Key(this, "TopicKey", {
      description: "Encrypts the alarm topic's messages",
      enableKeyRotation: true,
    });
    key.grant(
      new ServicePrincipal("cloudwatch.amazonaws.com"),
      "kms:Decrypt",
      "kms:GenerateDataKey*",
    );
    const topic = new Topic(this, "Topic", {
      displayName: "Attribution service alarms",
      masterKey: key,
      enforceSSL: true,
    });
    if (email) topic.addSubscription(new EmailSubscription(email));
    return topic;
  }
}
