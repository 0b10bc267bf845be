/**
 * The stack's tunables in one typed object: the defaults below, any of which a deployment may
 * override (`ServiceStackProps.settings`; `lib/app.ts` reads the ones given as context).
 * Each construct still takes its own props; the stack hands each the values it needs.
 */
import { Duration, Size } from "aws-cdk-lib";
import type { CronOptions } from "aws-cdk-lib/aws-events";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import { DEFAULT_SNAPSHOT_TTL_SECONDS } from "../src/config/defaults.ts";
import { jobOf } from "../src/jobs/jobs.ts";

export interface StackSettings {
  /** How long an export snapshot serves pages (SNAPSHOT_TTL_SECONDS, 1 minute to 1 day). */
  readonly snapshotTtl: Duration;
  /**
   * How long API Gateway keeps an authorizer decision per key: longer saves DynamoDB reads and
   * latency, and a revoked key keeps working for up to this long.
   */
  readonly authorizerCacheTtl: Duration;
  /** The API stage's request rate (per second) and burst, before any handler runs. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /** Athena's cut-off per export query. */
  readonly bytesScannedCutoffPerQuery: Size;
  /** Retention of every log group the stack makes. */
  readonly logRetention: RetentionDays;
  /**
   * How long Firehose buffers before writing a file, and how much: longer and larger make
   * fewer, larger Parquet files (cheaper scans); shorter makes fresher exports. Parquet
   * conversion and dynamic partitioning need at least 64 MiB.
   */
  readonly streamBufferInterval: Duration;
  readonly streamBufferSize: Size;
  /** How often deleted installs are purged; must exceed the stream buffer interval. */
  readonly purgeSchedule: Duration;
  /** When the exchange rates are refreshed (UTC): after the ECB publishes, on working days. */
  readonly fxRatesSchedule: CronOptions;
  /**
   * True only behind a CloudFront distribution that sets `CloudFront-Viewer-Country` (and
   * overwrites any a client sent): ingestion then takes the caller's country from it. The
   * regional API alone would let a client choose its country, so by default the caller's IP
   * decides.
   */
  readonly trustViewerCountry: boolean;
  /**
   * The link host's custom domain (`go.example.com`) and its ACM certificate's ARN, in the
   * stack's region; null: links name the link host API's own URL. Point the domain's DNS at
   * the stack output `LinkHostTarget`.
   */
  readonly linkDomain: { readonly name: string; readonly certificateArn: string } | null;
  /** The link host's request rate (per second) and burst: ad clicks come in bursts. */
  readonly linkThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * False leaves out what queries the lake, for an emulator without Glue and Athena
   * (LocalStack's free plan, `npm run test:localstack`): the Glue database and tables, the
   * streams' Parquet conversion (records land as JSON), the Athena workgroup, the export route
   * and the purge of deleted installs. Never false for a deployment that serves exports.
   */
  readonly lakeQueries: boolean;
  /**
   * False leaves out the link host (an API Gateway HTTP API), for an emulator without HTTP
   * APIs (LocalStack's free plan); new links then name `https://link-host.invalid`.
   */
  readonly linkHost: boolean;
  /**
   * False leaves out the dashboard's CloudFront site and Cognito user pool, and so the sign-in
   * routes, for an emulator without them (LocalStack's free plan). The API keeps its other
   * routes; without a way to sign in, the session routes answer no one.
   */
  readonly dashboard: boolean;
  /** An e-mail address the stack's alarm topic sends to (it confirms the subscription once). */
  readonly alarmEmail: string | null;
  /** An existing SNS topic every alarm sends to instead of a topic of the stack's own. */
  readonly alarmTopicArn: string | null;
}

export const DEFAULT_SETTINGS: StackSettings = {
  snapshotTtl: Duration.seconds(DEFAULT_SNAPSHOT_TTL_SECONDS),
  authorizerCacheTtl: Duration.minutes(5),
  throttle: { rateLimit: 100, burstLimit: 200 },
  bytesScannedCutoffPerQuery: Size.gibibytes(10),
  logRetention: RetentionDays.ONE_MONTH,
  streamBufferInterval: Duration.minutes(5),
  streamBufferSize: Size.mebibytes(128),
  // The job table's schedules (src/jobs/jobs.ts), which a deployment may override.
  purgeSchedule: Duration.millis(jobOf("purge").aws.schedule.everyMs),
  fxRatesSchedule: jobOf("fx-rates").aws.schedule.cron,
  trustViewerCountry: false,
  linkDomain: null,
  linkThrottle: { rateLimit: 2_000, burstLimit: 5_000 },
  lakeQueries: true,
  linkHost: true,
  dashboard: true,
  alarmEmail: null,
  alarmTopicArn: null,
};

/** The defaults with the given overrides; an override left undefined keeps its default. */
export const stackSettings = (overrides: Partial<StackSettings> = {}): StackSettings => {
  const given = Object.fromEntries(
    Object.entries(overrides).filter(([, value]) => value !== undefined),
  );
  return { ...DEFAULT_SETTINGS, ...given };
};
