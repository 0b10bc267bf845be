/**
 * The purge of deleted installs on AWS: the purge function run by an EventBridge schedule,
 * with exactly the environment and grants its row in the job table uses (src/jobs/jobs.ts).
 *
 * How long a deletion takes. Firehose cannot be flushed, so the job purges a request only once
 * it is older than the streams' buffering interval plus a delivery margin (its
 * MIN_REQUEST_AGE_SECONDS); rows sent before the request are in the lake by then. The schedule's
 * interval must exceed the buffering interval: a request skipped as too young is then old
 * enough at the next run, so it waits at most one run more, never indefinitely. The function's
 * timeout is kept under the interval so two scheduled runs do not overlap. A failed run is
 * tried twice more by Lambda (lib/scheduled-job.ts), a minute and then two after it failed, so
 * the retry of a run that timed out may start beside the next scheduled run: every step is
 * idempotent and a rewritten file is put only if it is still the one read (If-Match), so the
 * later of two runs at once fails that file and the next run completes it.
 * A request made at t is therefore completed before
 *
 *     t + minimum age + schedule interval + timeout
 *
 * which is 6 + 10 + 9 = 25 minutes with the defaults (5-minute buffering), as long as runs
 * succeed and the run after its minimum age reaches the request's app. A run takes one app at a
 * time, all of the app's requests in one pass over its files (several files read at once), the
 * app of the oldest request first and those a run took up without completing them last; it
 * takes up no further app once the invocation is within a margin of its timeout
 * (src/jobs/purge.ts), leaving their requests open for the next run. So the bound holds for a
 * request whose app the run reaches; one behind apps whose passes fill the run waits for a
 * later run, which takes it before newer requests. A run that fails or times out leaves its
 * requests open and the next run resumes them (files already rewritten no longer hold the
 * installs, so each run makes progress). An app whose pass over its files outlasts a run has
 * the pass saved where it stopped, within the margin, and continued by the next runs, over as
 * many as its files take (src/deletion/deletions.ts).
 */
import { Duration } from "aws-cdk-lib";
import { type Rule, Schedule } from "aws-cdk-lib/aws-events";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { jobOf } from "../src/jobs/jobs.ts";
import { bindingOf } from "./bindings.ts";
import type { ServiceTables } from "./dynamodb-tables.ts";
import type { Lake } from "./lake.ts";
import { scheduledFunction } from "./scheduled-job.ts";
import type { EntryResolver, ServiceFunction } from "./service-function.ts";
import { DEFAULT_SETTINGS } from "./settings.ts";

/** Firehose writes a file shortly after its buffer closes; this covers the S3 write. */
export const DELIVERY_MARGIN = Duration.minutes(1);

export interface PurgeJobProps {
  readonly tables: ServiceTables;
  readonly lake: Lake;
  /** The Firehose streams' buffering interval (LakeStreams.bufferInterval). */
  readonly streamBufferInterval: Duration;
  /** How often the job runs. Default 10 minutes; must exceed the buffering interval. */
  readonly schedule?: Duration;
  /** Default one minute under the schedule, at most Lambda's 15 minutes. */
  readonly timeout?: Duration;
  readonly entryFor?: EntryResolver;
  readonly logRetention?: RetentionDays;
}

export class PurgeJob extends Construct {
  readonly function: ServiceFunction;
  readonly rule: Rule;
  /** Requests younger than this wait for a later run. */
  readonly minRequestAge: Duration;
  /**
   * Upper bound on the time from a request to its completion, when runs succeed and the run
   * after its minimum age reaches its app (see above).
   */
  readonly completionBound: Duration;

  constructor(scope: Construct, id: string, props: PurgeJobProps) {
    super(scope, id);
    const schedule = props.schedule ?? DEFAULT_SETTINGS.purgeSchedule;
    const buffering = props.streamBufferInterval.toSeconds();
    if (schedule.toSeconds() <= buffering) {
      throw new Error(
        `The purge schedule (${schedule.toSeconds()} s) must exceed Firehose's buffering interval (${buffering} s)`,
      );
    }
    const timeout =
      props.timeout ??
      Duration.seconds(Math.min(schedule.toSeconds() - 60, Duration.minutes(15).toSeconds()));
    if (timeout.toSeconds() >= schedule.toSeconds()) {
      throw new Error("The purge timeout must be shorter than its schedule, so runs never overlap");
    }
    this.minRequestAge = Duration.seconds(buffering + DELIVERY_MARGIN.toSeconds());
    this.completionBound = Duration.seconds(
      this.minRequestAge.toSeconds() + schedule.toSeconds() + timeout.toSeconds(),
    );

    const job = jobOf("purge");
    ({ function: this.function, rule: this.rule } = scheduledFunction(this, "Purge", job, {
      binding: bindingOf(job.aws.uses, {
        tables: props.tables,
        lake: props.lake,
        settings: { minRequestAge: String(this.minRequestAge.toSeconds()) },
      }),
      schedule: Schedule.rate(schedule),
      timeout,
      entryFor: props.entryFor,
      logRetention: props.logRetention,
    }));
  }
}
