/**
 * A row of the job table (src/jobs/jobs.ts) on AWS: its function run by an EventBridge
 * rule on the row's schedule, given the environment and grants its row's uses derive
 * (./bindings.ts). A failed run is tried twice more by Lambda (every job is idempotent), then
 * goes to the job's failure queue, whose alarm reaches the operator (lib/operations.ts): a job
 * that keeps failing (a purge, and with it the deletion promise) is never failing unseen.
 */
import { Duration } from "aws-cdk-lib";
import { type CronOptions, Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { SqsDestination } from "aws-cdk-lib/aws-lambda-destinations";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { AwsJobDefinition, AwsSchedule } from "../src/jobs/jobs.ts";
import type { FunctionBinding } from "./api.ts";
import { failureQueue } from "./failure-queue.ts";
import { type EntryResolver, ServiceFunction } from "./service-function.ts";

/** EventBridge's schedule of a row's. */
export const scheduleOf = (schedule: AwsSchedule): Schedule =>
  "everyMs" in schedule
    ? Schedule.rate(Duration.millis(schedule.everyMs))
    : Schedule.cron(schedule.cron);

/** A row's cron fields as CDK takes them. */
export const cronOf = (schedule: AwsSchedule): CronOptions | undefined =>
  "cron" in schedule ? schedule.cron : undefined;

export interface ScheduledFunctionOptions {
  readonly binding: FunctionBinding;
  /** Overrides the row's (a deployment's settings). */
  readonly schedule?: Schedule;
  readonly timeout?: Duration;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

/**
 * The function and rule of a job, under `scope`; `functionId` keeps the construct ids (and so
 * the logical ids) the jobs were first deployed with.
 */
export const scheduledFunction = (
  scope: Construct,
  functionId: string,
  job: AwsJobDefinition,
  options: ScheduledFunctionOptions,
): { readonly function: ServiceFunction; readonly rule: Rule } => {
  const timeoutSeconds = "timeoutSeconds" in job.aws ? job.aws.timeoutSeconds : undefined;
  const timeout = options.timeout ?? Duration.seconds(timeoutSeconds ?? 60);
  const fn = new ServiceFunction(scope, functionId, {
    name: job.id,
    memoryMb: job.aws.memoryMb,
    timeout,
    environment: options.binding.environment,
    assets: options.binding.assets,
    entryFor: options.entryFor,
    logRetention: options.logRetention,
  });
  options.binding.grant(fn.role);
  const { queue: failures } = failureQueue(scope, {
    queueId: "Failures",
    alarmId: "FailedRuns",
    is: "the job's failure destination",
    alarmDescription: `The ${job.id} job failed three times in a row: its run is in the failure queue`,
  });
  fn.function.configureAsyncInvoke({
    retryAttempts: 2,
    onFailure: new SqsDestination(failures),
  });
  const rule = new Rule(scope, "Schedule", {
    description: job.description,
    schedule: options.schedule ?? scheduleOf(job.aws.schedule),
    targets: [new LambdaFunction(fn.function)],
  });
  return { function: fn, rule };
};

export interface ScheduledJobProps extends ScheduledFunctionOptions {
  readonly job: AwsJobDefinition;
}

/** A job with nothing of its own to check: its row is all it needs. */
export class ScheduledJob extends Construct {
  readonly function: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    super(scope, id);
    ({ function: this.function, rule: this.rule } = scheduledFunction(
      this,
      "Function",
      props.job,
      props,
    ));
  }
}
