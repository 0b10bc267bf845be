/**
 * The manifest of deployable functions: every function the CDK app deploys, each once,
 * gathered from the tables that declare them (the API's and the link host's route tables and
 * the authorizer in src/http/routes.ts, the worker table, the table-stream worker table, the job
 * table's rows that run on AWS),
 * with its sizing and what it uses. The stack's environments and grants, the entries test and
 * the bench's bundles are all derived from it, so a function is declared in its table's row
 * and nowhere else.
 */
import { AUTHORIZER, LINK_HOST_ROUTES, ROUTES } from "../http/routes.ts";
import { AWS_JOBS } from "../jobs/jobs.ts";
import { TABLE_STREAM_WORKERS, type TableStreamWorkerId } from "../workers/table-stream-workers.ts";
import { WORKERS, type WorkerId } from "../workers/workers.ts";
import type { HandlerRef } from "./handler-ref.ts";
import type { Uses } from "./uses.ts";

export type FunctionKind =
  | "route"
  | "link-route"
  | "authorizer"
  | "worker"
  | "table-stream"
  | "job";

export interface FunctionRow {
  /** Names the function; its Lambda entry is written from the row (lambdas/entries.ts). */
  readonly id: string;
  /** Its composition. */
  readonly handler: HandlerRef;
  readonly kind: FunctionKind;
  readonly uses: Uses<WorkerId>;
  /** Lambda sizing; unset for a job whose construct derives it from its schedule. */
  readonly memoryMb: number;
  readonly timeoutSeconds?: number;
  /** Streamed responses (Lambda response streaming). */
  readonly streaming: boolean;
}

export const FUNCTIONS: readonly FunctionRow[] = [
  ...ROUTES.map((route) => ({ ...route, kind: "route" as const })),
  ...LINK_HOST_ROUTES.map((route) => ({ ...route, kind: "link-route" as const })),
  { ...AUTHORIZER, kind: "authorizer", streaming: false },
  ...WORKERS.map((worker) => ({ ...worker, kind: "worker" as const, streaming: false })),
  ...TABLE_STREAM_WORKERS.map((worker) => ({
    ...worker,
    kind: "table-stream" as const,
    streaming: false,
  })),
  ...AWS_JOBS.map((job) => ({
    id: job.id,
    handler: job.handler,
    kind: "job" as const,
    streaming: false,
    ...job.aws,
  })),
];

export type FunctionId =
  | (typeof ROUTES)[number]["id"]
  | (typeof LINK_HOST_ROUTES)[number]["id"]
  | typeof AUTHORIZER.id
  | WorkerId
  | TableStreamWorkerId
  | (typeof AWS_JOBS)[number]["id"];

export const FUNCTION_IDS = FUNCTIONS.map((row) => row.id as FunctionId);

/** A function's row, by its id. */
export const functionOf = (id: FunctionId): FunctionRow => {
  const row = FUNCTIONS.find((candidate) => candidate.id === id);
  if (!row) throw new Error(`No deployable function ${id}`);
  return row;
};
