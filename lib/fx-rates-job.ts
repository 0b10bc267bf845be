/**
 * The daily rates job on AWS: `lambdas/fx-rates.ts` run by an EventBridge schedule after the
 * ECB publishes (around 16:00 CET on working days), merging the 90-day feed into the rate table
 * in the lake bucket (Lake.grantWriteRates). It starts from the history shipped with the
 * service, which it carries in its asset; a failed run leaves the table as it was, and the
 * next day's run fills the gap, since the feed holds 90 days.
 */
import { Duration } from "aws-cdk-lib";
import type { CronOptions } from "aws-cdk-lib/aws-events";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { fxRatesEnv } from "../src/config/aws-env.ts";
import { envFor } from "./env.ts";
import { type Lake, RATES_TABLE_KEY } from "./lake.ts";
import {
  type BundledFile,
  bundledPath,
  type EntryResolver,
  ServiceFunction,
} from "./service-function.ts";
import { DEFAULT_SETTINGS } from "./settings.ts";

export interface FxRatesJobProps {
  readonly lake: Lake;
  /** The shipped history (data/ecb-eurofxref-hist.csv), the table's start. */
  readonly shippedRates: BundledFile;
  /** When it runs (UTC). */
  readonly schedule?: CronOptions;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

export class FxRatesJob extends Construct {
  readonly function: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: FxRatesJobProps) {
    super(scope, id);
    const { lake } = props;
    this.function = new ServiceFunction(this, "FxRates", {
      name: "fx-rates",
      memoryMb: 512,
      timeout: Duration.minutes(1),
      environment: envFor(fxRatesEnv, {
        FX_RATES_BUCKET: lake.bucket.bucketName,
        FX_RATES_KEY: RATES_TABLE_KEY,
        FX_RATES_FILE: bundledPath(props.shippedRates),
      }),
      assets: [props.shippedRates],
      entryFor: props.entryFor,
      logRetention: props.logRetention,
    });
    lake.grantWriteRates(this.function.role);
    // A failed run is retried by the next day's, whose feed still holds the missed days.
    this.function.function.configureAsyncInvoke({ retryAttempts: 0 });

    this.rule = new Rule(this, "Schedule", {
      description: "Merges the ECB's reference rates of the last 90 days into the rate table.",
      schedule: Schedule.cron(props.schedule ?? DEFAULT_SETTINGS.fxRatesSchedule),
      targets: [new LambdaFunction(this.function.function)],
    });
  }
}
