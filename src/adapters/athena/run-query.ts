/**
 * Runs one Athena query to completion and says where its CSV result is. A run that fails in a
 * way a rerun cures is started again, a few times.
 */
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type AthenaClient,
  GetQueryExecutionCommand,
  GetQueryRuntimeStatisticsCommand,
  QueryExecutionState,
  StartQueryExecutionCommand,
} from "@aws-sdk/client-athena";

/**
 * Identical queries (same app and `since`) within this window reuse the earlier result, unless
 * the run asks for the lake as it is now.
 */
const RESULT_REUSE_MINUTES = 5;
/** Polling backs off from the first interval up to this, so long queries cost few calls. */
const MAX_POLL_INTERVAL_MS = 2_000;
/** Runs of one query at most, the first included. */
const MAX_RUNS = 3;
/** The pause before the n-th rerun, in first polling intervals (1 s, then 2 s, by default). */
const RERUN_PAUSE_POLLS = 4;

/**
 * Failures Athena's troubleshooting guide says a rerun cures: a lake file replaced or deleted
 * between the query's planning and its reading (the purge rewrites files in place and deletes
 * emptied ones), and S3 throttling. Athena marks some others retryable itself.
 */
const CURED_BY_RERUN =
  /HIVE_FILESYSTEM_ERROR: Incorrect fileSize|The specified key does not exist|Slow Down/i;

export interface QueryRun {
  readonly queryString: string;
  readonly workGroup: string;
  readonly database: string;
  /** Names the run: starting the same run again (a retry) joins the query already started. */
  readonly idempotencyKey: string;
  readonly pollIntervalMs: number;
  /**
   * Read the lake as it is now, never an identical query's earlier result: for the live
   * figures (the newest events, link clicks, SKAdNetwork's postbacks), which a watcher reloads.
   */
  readonly fresh?: boolean;
}

/** Athena wants 32 to 128 characters; a SHA-256 hex digest is 64 whatever the key looks like. */
export const clientRequestToken = (idempotencyKey: string): string =>
  createHash("sha256").update(idempotencyKey).digest("hex");

/** A failed run of a query, and whether running it again may succeed. */
export class QueryRunError extends Error {
  constructor(
    message: string,
    readonly curedByRerun: boolean,
  ) {
    super(message);
    this.name = "QueryRunError";
  }
}

/** A finished query: its execution's id and the S3 URI of its CSV result. */
export interface QueryResult {
  readonly id: string;
  readonly location: string;
}

/**
 * Starts the query, waits for it, and says where its CSV result is. Each rerun has a token of
 * its own, named after the run's number, so a retried request joins the same runs.
 */
export const runQuery = async (athena: AthenaClient, run: QueryRun): Promise<QueryResult> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runOnce(
        athena,
        run,
        attempt === 1 ? run.idempotencyKey : `${run.idempotencyKey}#run-${attempt}`,
      );
    } catch (error) {
      if (!(error instanceof QueryRunError && error.curedByRerun) || attempt >= MAX_RUNS) {
        throw error;
      }
      await sleep(run.pollIntervalMs * RERUN_PAUSE_POLLS * attempt);
    }
  }
};

const runOnce = async (
  athena: AthenaClient,
  run: QueryRun,
  idempotencyKey: string,
): Promise<QueryResult> => {
  const { QueryExecutionId: id } = await athena.send(
    new StartQueryExecutionCommand({
      QueryString: run.queryString,
      WorkGroup: run.workGroup,
      QueryExecutionContext: { Database: run.database },
      ClientRequestToken: clientRequestToken(idempotencyKey),
      ResultReuseConfiguration: {
        ResultReuseByAgeConfiguration: run.fresh
          ? { Enabled: false }
          : { Enabled: true, MaxAgeInMinutes: RESULT_REUSE_MINUTES },
      },
    }),
  );
  if (!id) throw new Error("Athena started a query without an id");

  let interval = run.pollIntervalMs;
  for (;;) {
    const { QueryExecution: execution } = await athena.send(
      new GetQueryExecutionCommand({ QueryExecutionId: id }),
    );
    const state = execution?.Status?.State;
    if (state === QueryExecutionState.SUCCEEDED) {
      const location = execution?.ResultConfiguration?.OutputLocation;
      if (!location) throw new Error(`Athena query ${id} succeeded without an output location`);
      return { id, location };
    }
    if (state === QueryExecutionState.FAILED || state === QueryExecutionState.CANCELLED) {
      // Internal detail for the logs; the HTTP layer answers a plain 500 for untyped errors.
      const reason = execution?.Status?.StateChangeReason ?? "no reason given";
      // A cancelled query was stopped on purpose: it is not run again.
      const curedByRerun =
        state === QueryExecutionState.FAILED &&
        (execution?.Status?.AthenaError?.Retryable === true || CURED_BY_RERUN.test(reason));
      throw new QueryRunError(`Athena query ${id} ${state}: ${reason}`, curedByRerun);
    }
    await sleep(interval);
    interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS);
  }
};

/**
 * How many rows a finished query returned, as Athena's runtime statistics say; undefined where
 * they say nothing (a result reused from an earlier run may have none), cannot be read, or say
 * none: statistics may come late, and a snapshot taken for empty would serve every page empty,
 * where an empty result read as it is costs nothing. The count only names pages, and a page is
 * served without it.
 */
export const outputRowsOf = async (
  athena: AthenaClient,
  id: string,
): Promise<number | undefined> => {
  try {
    const { QueryRuntimeStatistics: statistics } = await athena.send(
      new GetQueryRuntimeStatisticsCommand({ QueryExecutionId: id }),
    );
    const rows = statistics?.Rows?.OutputRows;
    return typeof rows === "number" && Number.isSafeInteger(rows) && rows > 0 ? rows : undefined;
  } catch {
    return undefined;
  }
};
