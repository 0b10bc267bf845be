/**
 * A route group's function on AWS (src/functions/manifest.ts): one environment and one set of
 * adapters, built from its routes' uses merged (as the stack granted them), each route's handler
 * composed from them once per execution environment, and each request handed to the handler of
 * its method and resource. API Gateway's proxy event names the resource as the route table
 * writes the path (`/v1/links/{deeplink_id}`), so the pair is the route's key as it stands. The
 * group's entry (written by lambdas/entries.ts) is one call of this.
 */
import middy, { type MiddyfiedHandler } from "@middy/core";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type { ComposedRow, Runtime } from "../functions/adapters.ts";
import { mergeUses, type Uses } from "../functions/uses.ts";
import { statusName } from "../http/errors.ts";
import { GATEWAY_ERRORS } from "../http/gateway-errors.ts";
import { type HttpResponse, jsonResponse } from "../http/middleware.ts";
import { AWS_RUNTIME, awsAdapters, type Providers } from "./lambda.ts";
import { logged } from "./logged.ts";

type RouteHandler = MiddyfiedHandler<APIGatewayProxyEvent, HttpResponse>;

/** A route's composition, as a group's entry passes it: its row names its method and path. */
export interface RouteComposition {
  readonly row: ComposedRow & {
    readonly method: string;
    readonly path: string;
    readonly group?: string;
  };
  // Each is called with the group's adapters, a superset of those its own row names.
  readonly compose: (adapters: never, runtime: Runtime) => RouteHandler;
}

/** The intersection of a union's members: the routes' uses taken together. */
type Merged<U> = (U extends unknown ? (each: U) => void : never) extends (each: infer M) => void
  ? M
  : never;

/** The row of a group's function, from its routes' compositions. */
type GroupRow<C extends readonly RouteComposition[]> = {
  readonly id: string;
  readonly uses: Merged<C[number]["row"]["uses"]> extends infer M extends Uses ? M : never;
};

/**
 * A method and resource the group does not serve (only a misconfigured integration sends one):
 * answered as API Gateway answers a path it has no route for.
 */
const noRoute = (): HttpResponse =>
  jsonResponse(GATEWAY_ERRORS.noRoute.status, {
    error: statusName(GATEWAY_ERRORS.noRoute.status),
    detail: GATEWAY_ERRORS.noRoute.detail,
  });

export const lambdaRoutes = async <const C extends readonly RouteComposition[]>(
  routes: C,
  providers: Providers<GroupRow<C>>,
): Promise<RouteHandler> => {
  const [first] = routes;
  const group = first?.row.group ?? first?.row.id ?? "an empty route group";
  const row = {
    id: group,
    uses: mergeUses(
      `The route group ${group}`,
      routes.map((route) => route.row),
    ),
  } as GroupRow<C>;
  const adapters = await awsAdapters(row, providers);
  const handlers = new Map<string, RouteHandler>();
  for (const route of routes) {
    const key = `${route.row.method} ${route.row.path}`;
    if (handlers.has(key)) throw new Error(`The route group ${group}: two routes are ${key}`);
    // One adapters object for all, so what a family's compositions share (sharedBy) is built once.
    handlers.set(key, route.compose(adapters as never, AWS_RUNTIME));
  }
  return logged(
    middy<APIGatewayProxyEvent, HttpResponse>().handler(
      async (event: APIGatewayProxyEvent, context: Context) => {
        // A HEAD is its GET's route (methodsOf): API Gateway leaves the body off.
        const method = event.httpMethod === "HEAD" ? "GET" : event.httpMethod;
        const handler = handlers.get(`${method} ${event.resource}`);
        return handler ? handler(event, context) : noRoute();
      },
    ),
  );
};
