/**
 * The attribution sweep on AWS: `lambdas/attribution-sweep.ts` run by an EventBridge schedule,
 * queueing again the attributions a crash or a failure left unfinished (SWEEP_AGE_MS old), so a
 * `failed` install is retried and none is left pending.
 */
import { Duration } from "aws-cdk-lib";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { SWEEP_AGE_MS } from "../src/attribution/sweep.ts";
import { attributionSweepEnv } from "../src/config/aws-env.ts";
import { envFor } from "./env.ts";
import { type EntryResolver, ServiceFunction } from "./service-function.ts";
import type { ServiceTables } from "./tables.ts";

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
    this.function = new ServiceFunction(this, "Sweep", {
      name: "attribution-sweep",
      memoryMb: 256,
      timeout: Duration.minutes(1),
      environment: envFor(attributionSweepEnv, {
        ATTRIBUTIONS_TABLE: props.tables.table.attributions.tableName,
        ATTRIBUTION_QUEUE_URL: props.queue.queueUrl,
      }),
      entryFor: props.entryFor,
      logRetention: props.logRetention,
    });
    props.tables.grantAttributionSweep(this.function.role);
    props.queue.grantSendMessages(this.function.role);
    // A missed run is made up by the next, which finds the same attributions open.
    this.function.function.configureAsyncInvoke({ retryAttempts: 0 });
    this.rule = new Rule(this, "Schedule", {
      description: "Queues again the attributions a crash or a failure left unfinished.",
      schedule: Schedule.rate(Duration.millis(SWEEP_AGE_MS)),
      targets: [new LambdaFunction(this.function.function)],
    });
  }
}
