/**
 * The manifest of deployable functions: every function the CDK app deploys, each once,
 * gathered from the tables that declare them (the API's and the link host's route tables and
 * the authorizer in src/http/routes.ts, the worker table, the table-stream worker table, the job
 * table's rows that run on AWS),
 * with its sizing and what it uses. The stack's environments and grants, the entries test and
 * the bench's bundles are all derived from it, so a function is declared in its table's row
 * and nowhere else.
 *
 * An API route is its own function, or, when its row names a `group`, one route of its group's
 * function: the group's row here is derived from its routes' rows (their handlers, the largest
 * memory and timeout, their uses merged), and a group whose routes disagree on what they use,
 * or that holds a streaming route, fails when this module loads.
 */
import {
  AUTHORIZER,
  LINK_HOST_ROUTES,
  ROUTES,
  type RouteGroupId,
  type RouteId,
  type ServiceRoute,
} from "../http/routes.ts";
import { AWS_JOBS } from "../jobs/jobs.ts";
import { TABLE_STREAM_WORKERS, type TableStreamWorkerId } from "../workers/table-stream-workers.ts";
import { WORKERS, type WorkerId } from "../workers/workers.ts";
import type { HandlerRef } from "./handler-ref.ts";
import { mergeUses, type Uses } from "./uses.ts";

export type FunctionKind =
  | "route"
  | "route-group"
  | "link-route"
  | "authorizer"
  | "worker"
  | "table-stream"
  | "job";

interface FunctionRowBase {
  /** Names the function; its Lambda entry is written from the row (lambdas/entries.ts). */
  readonly id: string;
  readonly uses: Uses<WorkerId>;
  /** Lambda sizing; unset for a job whose construct derives it from its schedule. */
  readonly memoryMb: number;
  readonly timeoutSeconds?: number;
  /** Streamed responses (Lambda response streaming). */
  readonly streaming: boolean;
}

/** A function of one composition: a route, the authorizer, a worker, a job. */
export interface SingleFunctionRow extends FunctionRowBase {
  readonly kind: Exclude<FunctionKind, "route-group">;
  /** Its composition. */
  readonly handler: HandlerRef;
}

/** A route of a group, as its group's function dispatches to it. */
export interface GroupedRoute {
  readonly id: RouteId;
  readonly method: ServiceRoute["method"];
  /** The resource path, `{name}` placeholders and all: what API Gateway puts in `resource`. */
  readonly path: string;
  readonly handler: HandlerRef;
}

/** One function serving a route group: each request goes to its route's composition. */
export interface RouteGroupRow extends FunctionRowBase {
  readonly kind: "route-group";
  readonly routes: readonly GroupedRoute[];
  readonly timeoutSeconds: number;
  readonly streaming: false;
}

export type FunctionRow = SingleFunctionRow | RouteGroupRow;

/** An API function's row: an ungrouped route's or a route group's, always with its timeout. */
export type ApiFunctionRow = FunctionRow & { readonly timeoutSeconds: number };

/**
 * A route group's function, from its routes' rows: sized for the largest of them (memory and
 * timeout), using what they use (merged, refused where they disagree).
 */
export const routeGroupRow = (id: string, routes: readonly ServiceRoute[]): RouteGroupRow => {
  if (routes.length === 0) throw new Error(`The route group ${id} has no route`);
  for (const route of routes) {
    if (route.streaming) {
      // A streamed response goes through Lambda's response streaming, whose handler has
      // another signature than the buffered ones it would share the function with.
      throw new Error(
        `The route group ${id}: ${route.id} streams its response, so it needs a function of its own`,
      );
    }
  }
  return {
    id,
    kind: "route-group",
    routes: routes.map((route) => ({
      id: route.id as RouteId,
      method: route.method,
      path: route.path,
      handler: route.handler,
    })),
    uses: mergeUses(`The route group ${id}`, routes),
    memoryMb: Math.max(...routes.map((route) => route.memoryMb)),
    timeoutSeconds: Math.max(...routes.map((route) => route.timeoutSeconds)),
    streaming: false,
  };
};

/**
 * The API's functions, in the route table's order: each ungrouped route's own, and each
 * group's where its first route is.
 */
export const apiFunctionRows = (routes: readonly ServiceRoute[]): ApiFunctionRow[] => {
  const rows: ApiFunctionRow[] = [];
  const seen = new Set<string>();
  for (const route of routes) {
    if (route.group === undefined) {
      rows.push({ ...route, kind: "route" });
    } else if (!seen.has(route.group)) {
      seen.add(route.group);
      const { group } = route;
      rows.push(
        routeGroupRow(
          group,
          routes.filter((member) => member.group === group),
        ),
      );
    }
  }
  const routeIds = new Set(routes.map((route) => route.id));
  for (const group of seen) {
    // A group's name is its function's id: were it also a route's, one name would mean two.
    if (routeIds.has(group)) throw new Error(`The route group ${group} is named as a route is`);
  }
  return rows;
};

/** The API's functions: one per ungrouped route, one per route group. */
export const API_FUNCTIONS: readonly ApiFunctionRow[] = apiFunctionRows(ROUTES);

export const FUNCTIONS: readonly FunctionRow[] = [
  ...API_FUNCTIONS,
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

/** An API function: an ungrouped route's, or a route group's. */
export type ApiFunctionId =
  | Exclude<(typeof ROUTES)[number], { readonly group: string }>["id"]
  | RouteGroupId;

export type FunctionId =
  | ApiFunctionId
  | (typeof LINK_HOST_ROUTES)[number]["id"]
  | typeof AUTHORIZER.id
  | WorkerId
  | TableStreamWorkerId
  | (typeof AWS_JOBS)[number]["id"];

export const FUNCTION_IDS = FUNCTIONS.map((row) => row.id as FunctionId);

{
  // Every function's id names its Lambda, its entry and its logs: one each.
  const ids = new Set<string>();
  for (const id of FUNCTION_IDS) {
    if (ids.has(id)) throw new Error(`Two deployable functions are named ${id}`);
    ids.add(id);
  }
}

/** The function that serves an API route on AWS: its group's, or its own. */
export const apiFunctionIdOf = (route: RouteId): ApiFunctionId => {
  const row = ROUTES.find((candidate) => candidate.id === route) as ServiceRoute | undefined;
  if (!row) throw new Error(`No route ${route}`);
  return (row.group ?? row.id) as ApiFunctionId;
};

/** A function's row, by its id. */
export const functionOf = (id: FunctionId): FunctionRow => {
  const row = FUNCTIONS.find((candidate) => candidate.id === id);
  if (!row) throw new Error(`No deployable function ${id}`);
  return row;
};
