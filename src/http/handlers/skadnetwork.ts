/**
 * The SKAdNetwork routes: an app's conversion value schema and its names of ad network ids
 * (read and saved), and its postbacks from Apple, listed (docs/skadnetwork.md). A server key
 * or a dashboard session with the `postbacks` scope.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import * as z from "zod";
import { UnauthorizedError } from "../../domain/errors.ts";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import type { ApplePostbackStore } from "../../ports/apple-postbacks.ts";
import type { AppStore } from "../../ports/apps.ts";
import type { UserStore } from "../../ports/users.ts";
import { startOfDay } from "../../reports/days.ts";
import { overviewParamsSchema, windowRules } from "../../reports/params.ts";
import {
  createSkadnetworkSettings,
  POSTBACK_PAGE_LIMITS,
  type SkadnetworkSettingsDeps,
} from "../../skadnetwork/settings.ts";
import { unknownPostbacks } from "../../skadnetwork/unknown.ts";
import { checked } from "../../validation/issues.ts";
import { routeQuery, strictQuery } from "../../validation/query.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { pageParams } from "../page-query.ts";
import { appQuery, principalOf, sessionOf } from "../principal.ts";
import { queryOnce } from "../query-once.ts";
import { routeOf } from "../routes.ts";

// A report's window rules: `to` on or after `from`, at most a year (an unbounded scan else).
export const skadnetworkPostbacksQuery = windowRules(
  routeQuery({
    from: overviewParamsSchema.shape.from,
    to: overviewParamsSchema.shape.to,
    ...pageParams("Postbacks", POSTBACK_PAGE_LIMITS),
  }),
);

export const skadnetworkReportQuery = windowRules(
  routeQuery({
    from: overviewParamsSchema.shape.from,
    to: overviewParamsSchema.shape.to,
    include: z
      .string()
      .regex(/^(development|unverified)(,(development|unverified))?$/, {
        error: "must be development, unverified, or both, comma-separated",
      })
      .optional()
      .meta({
        description:
          "Postbacks to count besides those verified with Apple's production key: `development` (tests'), `unverified`.",
      }),
  }),
);

/** The service's admins' window of postbacks of no app: it names no app. */
export const unknownPostbacksQuery = windowRules(
  strictQuery({ from: overviewParamsSchema.shape.from, to: overviewParamsSchema.shape.to }),
);

const DAY_MS = 86_400_000;

/** [from, to) of a query's two UTC days, both included. */
const rangeOf = (query: { from: string; to: string }) => ({
  from: startOfDay(query.from),
  to: new Date(startOfDay(query.to).getTime() + DAY_MS),
});

export const createSkadnetworkHandlers = (deps: SkadnetworkSettingsDeps) => {
  const settings = createSkadnetworkSettings(deps);
  const appOf = (event: APIGatewayProxyEvent) => principalOf(event, "postbacks").appId;
  const body = (event: APIGatewayProxyEvent) => readJsonBody(event, INGEST_LIMITS.maxBodyBytes);
  return {
    getSchema: httpRoute(async (event) =>
      jsonResponse(200, { schema: await settings.schema(appOf(event)) }),
    ),
    putSchema: httpRoute(async (event) =>
      jsonResponse(200, { schema: await settings.saveSchema(appOf(event), body(event)) }),
    ),
    getNetworks: httpRoute(async (event) =>
      jsonResponse(200, { networks: await settings.networks(appOf(event)) }),
    ),
    putNetworks: httpRoute(async (event) =>
      jsonResponse(200, { networks: await settings.saveNetworks(appOf(event), body(event)) }),
    ),
    report: httpRoute(async (event) => {
      const { appId, query } = appQuery(event, "postbacks", skadnetworkReportQuery);
      const include = new Set(query.include?.split(",") ?? []);
      return jsonResponse(
        200,
        await settings.report(appId, rangeOf(query), {
          development: include.has("development"),
          unverified: include.has("unverified"),
        }),
      );
    }),
    listPostbacks: httpRoute(async (event) => {
      const { appId, query } = appQuery(event, "postbacks", skadnetworkPostbacksQuery);
      return jsonResponse(
        200,
        await settings.postbacks(appId, rangeOf(query), {
          limit: query.limit,
          ...(query.cursor ? { after: query.cursor } : {}),
        }),
      );
    }),
  };
};

/** The SKAdNetwork routes share one composition. */
const skadnetworkHandlers = /* @__PURE__ */ sharedBy(
  (
    adapters: Adapters<ReturnType<typeof routeOf<"get-skadnetwork-schema">>["uses"]>,
    runtime: Runtime,
  ) =>
    createSkadnetworkHandlers({
      apps: runtime.apps(adapters.tables.apps),
      postbacks: adapters.tables.applePostbacks,
      reports: adapters.reports,
    }),
);

export const getSkadnetworkSchemaFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("get-skadnetwork-schema"),
  (adapters, runtime) => skadnetworkHandlers(adapters, runtime).getSchema,
);

export const putSkadnetworkSchemaFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("put-skadnetwork-schema"),
  (adapters, runtime) => skadnetworkHandlers(adapters, runtime).putSchema,
);

export const getSkadnetworkNetworksFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("get-skadnetwork-networks"),
  (adapters, runtime) => skadnetworkHandlers(adapters, runtime).getNetworks,
);

export const putSkadnetworkNetworksFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("put-skadnetwork-networks"),
  (adapters, runtime) => skadnetworkHandlers(adapters, runtime).putNetworks,
);

export const listSkadnetworkPostbacksFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("list-skadnetwork-postbacks"),
  (adapters, runtime) => skadnetworkHandlers(adapters, runtime).listPostbacks,
);

export const skadnetworkReportFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("report-skadnetwork"),
  (adapters, runtime) => skadnetworkHandlers(adapters, runtime).report,
);

/** The postbacks of no app, counted by App Store id: for the service's admins only. */
export const createUnknownPostbacksHandler = (deps: {
  readonly users: Pick<UserStore, "get">;
  readonly postbacks: Pick<ApplePostbackStore, "listByApp">;
  readonly apps: Pick<AppStore, "list">;
}) =>
  httpRoute(async (event) => {
    const user = await deps.users.get(sessionOf(event, "apps").user);
    if (!user?.admin) {
      throw new UnauthorizedError("Only the service's admins see the postbacks of no app.");
    }
    const query = checked(unknownPostbacksQuery, queryOnce(event), "query");
    return jsonResponse(
      200,
      await unknownPostbacks(deps.postbacks, await deps.apps.list(), rangeOf(query)),
    );
  });

export const unknownSkadnetworkPostbacksFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("unknown-skadnetwork-postbacks"),
  (adapters) =>
    createUnknownPostbacksHandler({
      users: adapters.tables.users,
      postbacks: adapters.tables.applePostbacks,
      apps: adapters.tables.apps,
    }),
);
