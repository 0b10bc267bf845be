/**
 * Where work that failed for good waits for the operator: an encrypted queue (SQS-managed keys,
 * TLS only, kept 14 days unless said) and an alarm on any message in it, which the operations
 * topic carries (lib/operations.ts). A worker's dead-letter queue, a job's and a table-stream
 * worker's failure destination are each one.
 */
import { Duration } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { acknowledge } from "./nag.ts";

export interface FailureQueueProps {
  /** The construct ids of the queue and its alarm (kept, so their logical ids do not move). */
  readonly queueId: string;
  readonly alarmId: string;
  /** What the queue is, for cdk-nag's finding that it has no dead-letter queue of its own. */
  readonly is: string;
  readonly alarmDescription: string;
  readonly retention?: Duration;
}

export const failureQueue = (
  scope: Construct,
  props: FailureQueueProps,
): { readonly queue: Queue; readonly alarm: Alarm } => {
  const queue = new Queue(scope, props.queueId, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: props.retention ?? Duration.days(14),
  });
  acknowledge(
    queue,
    "AwsSolutions-SQS3",
    `This queue is ${props.is}, a dead-letter queue itself; an alarm fires on any message in it.`,
  );
  const alarm = new Alarm(scope, props.alarmId, {
    alarmDescription: props.alarmDescription,
    metric: queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(5),
      statistic: "Maximum",
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  return { queue, alarm };
};
