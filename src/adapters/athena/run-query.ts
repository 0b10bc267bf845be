/** Runs one Athena query to completion and says where its CSV result is. */
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type AthenaClient,
  GetQueryExecutionCommand,
  QueryExecutionState,
  StartQueryExecutionCommand,
} from "@aws-sdk/client-athena";

/** Identical queries (same app and `since`) within this window reuse the earlier result. */
const RESULT_REUSE_MINUTES = 5;
/** Polling backs off from the first interval up to this, so long queries cost few calls. */
const MAX_POLL_INTERVAL_MS = 2_000;

export interface QueryRun {
  readonly queryString: string;
  readonly workGroup: string;
  readonly database: string;
  /** Names the run: starting the same run again (a retry) joins the query already started. */
  readonly idempotencyKey: string;
  readonly pollIntervalMs: number;
}

/** Athena wants 32 to 128 characters; a SHA-256 hex digest is 64 whatever the key looks like. */
export const clientRequestToken = (idempotencyKey: string): string =>
  createHash("sha256").update(idempotencyKey).digest("hex");

/** Starts the query, waits for it, and returns the S3 URI of its CSV result. */
export const runQuery = async (athena: AthenaClient, run: QueryRun): Promise<string> => {
  const { QueryExecutionId: id } = await athena.send(
    new StartQueryExecutionCommand({
      QueryString: run.queryString,
      WorkGroup: run.workGroup,
      QueryExecutionContext: { Database: run.database },
      ClientRequestToken: clientRequestToken(run.idempotencyKey),
      ResultReuseConfiguration: {
        ResultReuseByAgeConfiguration: { Enabled: true, MaxAgeInMinutes: RESULT_REUSE_MINUTES },
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
      return location;
    }
    if (state === QueryExecutionState.FAILED || state === QueryExecutionState.CANCELLED) {
      // Internal detail for the logs; the HTTP layer answers a plain 500 for untyped errors.
      const reason = execution?.Status?.StateChangeReason ?? "no reason given";
      throw new Error(`Athena query ${id} ${state}: ${reason}`);
    }
    await sleep(interval);
    interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS);
  }
};
