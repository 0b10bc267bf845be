/**
 * The attribution sweep on AWS: the attribution-sweep function run by an EventBridge schedule,
 * queueing again the attributions a crash or a failure left unfinished (SWEEP_AGE_MS old), so a
 * `failed` install is retried and none is left pending. Its row in the job table says what it
 * uses; a missed run is made up by the next, which finds the same attributions open.
 */
import type { Rule } from "aws-cdk-lib/aws-events";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { jobOf } from "../src/jobs/jobs.ts";
import { bindingOf } from "./bindings.ts";
import type { ServiceTables } from "./dynamodb-tables.ts";
import { scheduledFunction } from "./scheduled-job.ts";
import type { EntryResolver, ServiceFunction } from "./service-function.ts";

export interface AttributionSweepProps {
  readonly tables: ServiceTables;
  /** The attribution worker's queue. */
  readonly queue: Queue;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

export class AttributionSweep extends Construct {
  readonly function: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: AttributionSweepProps) {
    super(scope, id);
    const job = jobOf("attribution-sweep");
    ({ function: this.function, rule: this.rule } = scheduledFunction(this, "Sweep", job, {
      binding: bindingOf(job.aws.uses, { tables: props.tables, queue: () => props.queue }),
      entryFor: props.entryFor,
      logRetention: props.logRetention,
    }));
  }
}
