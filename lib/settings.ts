/**
 * The stack's tunables in one typed object: the defaults below, any of which a deployment may
 * override (`ServiceStackProps.settings`; `lib/app.ts` reads the ones given as context).
 * Each construct still takes its own props; the stack hands each the values it needs.
 */
import { Duration, Size } from "aws-cdk-lib";
import type { CronOptions } from "aws-cdk-lib/aws-events";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { RouteId } from "../src/http/routes.ts";
import { jobOf } from "../src/jobs/jobs.ts";

/**
 * What kind of traffic a route carries, which its limits follow (docs/aws.md#limits): the
 * apps' SDKs on devices, servers (s2s events, network touches), the export, the dashboard's
 * reports (each an Athena query), managing apps, keys, links and sessions, and sign-in.
 */
export type RouteLoad = "sdk" | "server" | "export" | "reports" | "manage" | "signIn";

/** Each route's kind of traffic, by its id: a route added without one fails to compile. */
export const ROUTE_LOADS: { readonly [K in RouteId]: RouteLoad } = {
  config: "sdk",
  installs: "sdk",
  events: "sdk",
  "app-sessions": "sdk",
  "s2s-events": "server",
  "delete-install": "sdk",
  consent: "sdk",
  "request-deletion": "server",
  "deletion-status": "server",
  export: "export",
  attribution: "sdk",
  touches: "server",
  "create-link": "manage",
  "list-links": "manage",
  "get-link": "manage",
  "update-link": "manage",
  "sign-in": "signIn",
  session: "manage",
  "sign-out": "manage",
  "list-apps": "manage",
  "create-app": "manage",
  "get-app": "manage",
  "update-app": "manage",
  "list-keys": "manage",
  "create-key": "manage",
  "revoke-key": "manage",
  "list-users": "manage",
  "create-user": "manage",
  "reset-user-password": "manage",
  "remove-user": "manage",
  "grant-user-app": "manage",
  "revoke-user-app": "manage",
  "report-overview": "reports",
  "report-cohorts": "reports",
  "report-link-clicks": "reports",
  "report-latest-events": "reports",
  "list-partners": "manage",
  "list-postbacks": "manage",
  "put-partner-postback": "manage",
  "delete-partner-postback": "manage",
  "test-partner-postback": "manage",
  "put-webhook": "manage",
  "delete-webhook": "manage",
  "test-webhook": "manage",
  "put-postback-settings": "manage",
  "postback-log": "manage",
  "get-skadnetwork-schema": "manage",
  "put-skadnetwork-schema": "manage",
  "get-skadnetwork-networks": "manage",
  "put-skadnetwork-networks": "manage",
  "list-skadnetwork-postbacks": "manage",
  "report-skadnetwork": "reports",
  "unknown-skadnetwork-postbacks": "manage",
  "put-costs": "server",
  "list-costs": "manage",
  openapi: "manage",
};

/** The functions that must never wait for concurrency another function took. */
export interface ReservedConcurrency {
  /** Each ingestion function's (installs, events, s2s events). */
  readonly ingest: number;
  /** The link host's tap function's. */
  readonly tap: number;
  /** The attribution worker's: at least its row's maxConcurrency (src/workers/workers.ts). */
  readonly attribution: number;
}

export interface StackSettings {
  /** How long an export snapshot serves pages (SNAPSHOT_TTL_SECONDS, 1 minute to 1 day). */
  readonly snapshotTtl: Duration;
  /**
   * How long API Gateway keeps an authorizer decision per key: longer saves DynamoDB reads and
   * latency, and a revoked key keeps working for up to this long.
   */
  readonly authorizerCacheTtl: Duration;
  /**
   * The busiest second the API is sized for: requests a second each route of a kind may take,
   * all apps together (its method throttle on the stage; ROUTE_LOADS gives each route's kind).
   * The stage's own default is their sum. docs/aws.md#limits says why each, and how to raise it.
   */
  readonly apiPeak: { readonly [L in RouteLoad]: number };
  /** A burst API Gateway lets through at once: this many seconds of a limit's rate. */
  readonly burstSeconds: number;
  /**
   * The share of each route's limit one app may take (its usage-plan key's throttle, as of
   * the stage's whole default): one app, or one leaked key, leaves the rest to the others.
   */
  readonly appShare: number;
  /**
   * Concurrency reserved per function (0: none). A reservation is also the function's ceiling,
   * and Lambda keeps 100 of an account's concurrency unreserved: a fresh account, whose quota
   * may be 10, can reserve none until the quota is raised.
   */
  readonly reservedConcurrency: ReservedConcurrency;
  /**
   * Requests one address may make in 5 minutes before the web ACLs answer it 429: the REST
   * API's (regional) and the one CloudFront's distributions take (edgeWebAclArn). Phones
   * behind a carrier's NAT share an address, so it is high.
   */
  readonly addressRateLimit: number;
  /**
   * An existing CLOUDFRONT-scope web ACL (it lives in us-east-1) for the link host's and the
   * dashboard's distributions; `lib/web-acl.ts` makes one in a stack of its own. Null: the
   * distributions have none.
   */
  readonly edgeWebAclArn: string | null;
  /**
   * The REST API's custom domain (`api.example.com`) and its ACM certificate's ARN, in the
   * stack's region; null: the SDKs call the API's own URL. Point the domain at the stack
   * output `ApiTarget`.
   */
  readonly apiDomain: { readonly name: string; readonly certificateArn: string } | null;
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
   * True lets postbacks and webhooks go to loopback addresses (and over http to them), for a
   * test deployment whose mock partners listen on the same machine (an emulator's); never for
   * a deployment that serves apps. Nothing else private ever passes (docs/postbacks.md).
   */
  readonly postbacksAllowLoopback: boolean;
  /**
   * The link host's custom domain (`go.example.com`): its ACM certificate's ARN in the stack's
   * region (the HTTP API's domain, CloudFront's origin) and one in us-east-1 (CloudFront's, the
   * same one when the stack is there); null: links name the distribution's own URL. Point the
   * domain's DNS at the stack output `LinkHostTarget`.
   */
  readonly linkDomain: {
    readonly name: string;
    readonly certificateArn: string;
    readonly edgeCertificateArn: string;
    /**
     * The apps' own link hosts (`apps config --link-hosts go.brand.com`), served beside `name`
     * by the same distribution and API, under the same certificates (each must name them).
     */
    readonly appHosts?: readonly string[];
  } | null;
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
  // Longer than the embedded runtime's: a page here is a Lambda of about half a second, so a
  // window of tens of millions of events takes its client tens of minutes to page through, and
  // the snapshot (Athena's result in S3) costs little to keep.
  snapshotTtl: Duration.hours(2),
  authorizerCacheTtl: Duration.minutes(5),
  apiPeak: { sdk: 500, server: 100, export: 10, reports: 5, manage: 20, signIn: 5 },
  burstSeconds: 2,
  appShare: 0.5,
  reservedConcurrency: { ingest: 0, tap: 0, attribution: 0 },
  addressRateLimit: 10_000,
  edgeWebAclArn: null,
  apiDomain: null,
  bytesScannedCutoffPerQuery: Size.gibibytes(10),
  logRetention: RetentionDays.ONE_MONTH,
  streamBufferInterval: Duration.minutes(5),
  streamBufferSize: Size.mebibytes(128),
  // The job table's schedules (src/jobs/jobs.ts), which a deployment may override.
  purgeSchedule: Duration.millis(jobOf("purge").aws.schedule.everyMs),
  fxRatesSchedule: jobOf("fx-rates").aws.schedule.cron,
  trustViewerCountry: false,
  postbacksAllowLoopback: false,
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
