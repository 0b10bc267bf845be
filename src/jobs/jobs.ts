/**
 * The job table: one row per scheduled job, the work either runtime does on a clock rather than
 * on a request or a message. The embedded runtime runs each row as a background job
 * (src/embedded/jobs.ts); the CDK app runs each row that has an AWS schedule as a function on
 * an EventBridge rule (lib/scheduled-job.ts), with the environment and grants derived from what
 * the row uses. A row with no schedule on AWS says what does its work there instead. Pure data:
 * no handler imports, so a job's Lambda bundles no other job.
 */
import { SWEEP_AGE_MS } from "../attribution/sweep.ts";
import { HOUR_MS } from "../domain/time.ts";
import type { HandlerRef } from "../functions/handler-ref.ts";
import type { Uses } from "../functions/uses.ts";

/** An EventBridge schedule: a fixed rate, or a cron expression's fields (UTC). */
export type AwsSchedule =
  | { readonly everyMs: number }
  | { readonly cron: { readonly minute: string; readonly hour: string; readonly weekDay: string } };

export interface AwsJob {
  readonly schedule: AwsSchedule;
  /** Lambda sizing; a job that must not overlap itself may derive its timeout instead. */
  readonly memoryMb: number;
  readonly timeoutSeconds?: number;
  readonly uses: Uses;
}

interface JobBase<Id extends string> {
  /** Names the job in logs, and its function on AWS. */
  readonly id: Id;
  readonly description: string;
  /** The embedded runtime: how often it runs, and whether once at start as well. */
  readonly embedded: { readonly everyMs: number; readonly atStart: boolean };
}

/**
 * A job that runs on AWS names its composition (a `JobRun`), which the embedded runtime runs
 * too unless src/embedded/jobs.ts gives the job a way of its own there; a job AWS does by
 * itself says what does it, and src/embedded/jobs.ts does its work here.
 */
export type JobDefinition<Id extends string = string> = JobBase<Id> &
  (
    | { readonly handler: HandlerRef; readonly aws: AwsJob }
    | { readonly handler?: never; readonly aws: { readonly instead: string } }
  );

export const JOBS = [
  {
    id: "purge",
    handler: "jobs/purge.ts#purgeJob",
    description: "Purges deleted installs from the tables and the lake.",
    // Embedded, a deletion request also starts a run at once; minutes at most otherwise.
    embedded: { everyMs: 60_000, atStart: false },
    aws: {
      // Must exceed Firehose's buffering interval (lib/purge-job.ts checks it).
      schedule: { everyMs: 10 * 60_000 },
      // A file being rewritten is held in memory, decoded, about three times over.
      memoryMb: 2048,
      uses: {
        tables: {
          deletions: "purge",
          installs: "purge",
          customerUsers: "purge",
          snapshots: "purge",
          attributions: "purge",
          touches: "purge",
          outbox: "purge",
          deliveryLog: "purge",
        },
        lake: "purge",
        settings: ["minRequestAge"],
      },
    },
  },
  {
    id: "fx-rates",
    handler: "jobs/fx-rates.ts#fxRatesJob",
    description: "Merges the ECB's reference rates of the last 90 days into the rate table.",
    // The ECB publishes once a working day, around 16:00 CET.
    embedded: { everyMs: 6 * HOUR_MS, atStart: true },
    aws: {
      schedule: { cron: { minute: "30", hour: "16", weekDay: "MON-FRI" } },
      memoryMb: 512,
      timeoutSeconds: 60,
      uses: { rates: "write" },
    },
  },
  {
    id: "attribution-sweep",
    handler: "jobs/attribution-sweep.ts#attributionSweepJob",
    description: "Queues again the attributions a crash or a failure left unfinished.",
    // At start, everything unfinished from before it: what a crash left.
    embedded: { everyMs: SWEEP_AGE_MS, atStart: true },
    aws: {
      schedule: { everyMs: SWEEP_AGE_MS },
      memoryMb: 256,
      timeoutSeconds: 60,
      uses: { tables: { attributions: "sweep" }, queues: { attribute: "send" } },
    },
  },
  {
    id: "disabled-accounts",
    handler: "jobs/disabled-accounts.ts#disabledAccountsJob",
    description:
      "Ends the open sessions of people disabled in the user pool that keeps the passwords.",
    // Embedded, the users table keeps the passwords and no account is disabled but by its
    // removal: a run finds no one, and reads nothing but the (empty) answer.
    embedded: { everyMs: 5 * 60_000, atStart: false },
    aws: {
      // How long a person disabled in Cognito's console keeps an open session, at most.
      schedule: { everyMs: 5 * 60_000 },
      memoryMb: 256,
      timeoutSeconds: 60,
      uses: { tables: { users: "renew" }, credentials: "list" },
    },
  },
  {
    id: "reap-touches",
    description: "Forgets touches older than the longest click window.",
    embedded: { everyMs: 6 * HOUR_MS, atStart: true },
    aws: { instead: "DynamoDB's TTL on the touches table" },
  },
  {
    id: "prune-snapshots",
    description: "Removes export snapshot files past their lifetime and grace period.",
    // A full disk's Retry-After counts on it (the engine's DiskBudget.pruneEveryMs).
    embedded: { everyMs: 60_000, atStart: false },
    aws: { instead: "the results bucket's lifecycle rule (lib/lake.ts)" },
  },
  {
    id: "compact-lake",
    description: "Merges the lake's small files, as delivery leaves them, into larger ones.",
    // Delivery writes a file a partition every few seconds: a run merges some hundreds. Not
    // at start, which has work enough; a lake left long unmerged is merged minutes later.
    embedded: { everyMs: 10 * 60_000, atStart: false },
    aws: {
      instead:
        "Firehose's buffering (lib/settings.ts: five minutes or 128 MiB a file), at most 288 files a partition a day, which Athena reads as they are",
    },
  },
  {
    id: "reap-postbacks",
    description:
      "Forgets sends past 45 days, delivery log records past 30, and unverified Apple postbacks past 30.",
    embedded: { everyMs: 6 * HOUR_MS, atStart: true },
    aws: { instead: "DynamoDB's TTL on the outbox, delivery log and Apple postbacks tables" },
  },
  {
    id: "reap-sessions",
    description: "Forgets the dashboard's expired sessions and pending sign-ins.",
    embedded: { everyMs: 6 * HOUR_MS, atStart: true },
    aws: { instead: "DynamoDB's TTL on the sessions table" },
  },
  {
    id: "reap-snapshot-entries",
    description: "Forgets export snapshot entries a day past their lifetime.",
    embedded: { everyMs: HOUR_MS, atStart: true },
    aws: { instead: "DynamoDB's TTL on the snapshots table" },
  },
] as const satisfies readonly JobDefinition[];

export type JobId = (typeof JOBS)[number]["id"];

/** The jobs that run as a function on AWS. */
export type AwsJobDefinition = Extract<(typeof JOBS)[number], { readonly aws: AwsJob }>;
export type AwsJobId = AwsJobDefinition["id"];

export const AWS_JOBS = JOBS.filter((job): job is AwsJobDefinition => "schedule" in job.aws);

/** A job's row, by its id. */
export const jobOf = <K extends JobId>(id: K): Extract<(typeof JOBS)[number], { id: K }> => {
  const job = JOBS.find((row) => row.id === id);
  if (!job) throw new Error(`No job ${id}`);
  return job as Extract<(typeof JOBS)[number], { id: K }>;
};
