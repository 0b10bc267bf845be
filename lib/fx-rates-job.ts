/**
 * The daily rates job on AWS: the fx-rates function run by an EventBridge schedule after the
 * ECB publishes (around 16:00 CET on working days), merging the 90-day feed into the rate table
 * in the lake bucket. It starts from the history shipped with the service, which it carries in
 * its asset; a failed run leaves the table as it was, and the next day's run fills the gap,
 * since the feed holds 90 days. Its row in the job table says what it uses.
 */
import type { CronOptions, Rule } from "aws-cdk-lib/aws-events";
import { Schedule } from "aws-cdk-lib/aws-events";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { jobOf } from "../src/jobs/jobs.ts";
import { bindingOf } from "./bindings.ts";
import type { Lake } from "./lake.ts";
import { scheduledFunction } from "./scheduled-job.ts";
import type { EntryResolver, ServiceFunction } from "./service-function.ts";

export interface FxRatesJobProps {
  readonly lake: Lake;
  /** When it runs (UTC); the job table's by default. */
  readonly schedule?: CronOptions;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

export class FxRatesJob extends Construct {
  readonly function: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: FxRatesJobProps) {
    super(scope, id);
    const job = jobOf("fx-rates");
    ({ function: this.function, rule: this.rule } = scheduledFunction(this, "FxRates", job, {
      binding: bindingOf(job.aws.uses, { lake: props.lake }),
      schedule: props.schedule ? Schedule.cron(props.schedule) : undefined,
      entryFor: props.entryFor,
      logRetention: props.logRetention,
    }));
  }
}
