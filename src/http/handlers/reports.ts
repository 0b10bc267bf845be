/**
 * The dashboard's report routes: `GET /v1/reports/overview`, `/v1/reports/cohorts`,
 * `/v1/reports/link-clicks` and `/v1/reports/latest-events`, each one call of the reports (src/reports/reports.ts) for the
 * caller's app.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import type * as z from "zod";
import { NotFoundError } from "../../domain/errors.ts";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import {
  cohortParamsSchema,
  latestEventsParamsSchema,
  linkClicksParamsSchema,
  overviewParamsSchema,
} from "../../reports/params.ts";
import { createReports, type ReportsDeps } from "../../reports/reports.ts";
import { checked } from "../../validation/issues.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

export const UNKNOWN_APP = "No such app.";

export const createReportHandlers = (deps: ReportsDeps) => {
  const reports = createReports(deps);
  /**
   * The caller's app (checked before the parameters, so a bad key is a 401 whatever it asks),
   * and the parameters, whose `app_id`, when given, must name it: any other is not found.
   */
  const asked = <T extends { app_id?: string | undefined }>(
    event: APIGatewayProxyEvent,
    schema: z.ZodType<T>,
  ): { appId: string; params: T } => {
    const { appId } = principalOf(event, "reports");
    const params = checked(schema, event.queryStringParameters ?? {}, "query");
    if (params.app_id !== undefined && params.app_id !== appId) {
      throw new NotFoundError(UNKNOWN_APP);
    }
    return { appId, params };
  };
  return {
    overview: httpRoute(async (event) => {
      const { appId, params } = asked(event, overviewParamsSchema);
      return jsonResponse(200, await reports.overview(appId, params));
    }),
    cohorts: httpRoute(async (event) => {
      const { appId, params } = asked(event, cohortParamsSchema);
      return jsonResponse(200, await reports.cohorts(appId, params));
    }),
    linkClicks: httpRoute(async (event) => {
      const { appId } = asked(event, linkClicksParamsSchema);
      return jsonResponse(200, await reports.linkClicks(appId));
    }),
    latestEvents: httpRoute(async (event) => {
      const { appId, params } = asked(event, latestEventsParamsSchema);
      return jsonResponse(200, await reports.latestEvents(appId, params.limit));
    }),
  };
};

/** The report routes share one composition (and, in it, the cache the runtime gives). */
const reportHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"report-overview">>["uses"]>, _runtime: Runtime) =>
    createReportHandlers({
      engine: adapters.reports,
      apps: adapters.tables.apps,
      deletions: adapters.tables.deletions,
      costs: adapters.tables.costs,
    }),
);

export const overviewReportFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("report-overview"),
  (adapters, runtime) => reportHandlers(adapters, runtime).overview,
);

export const cohortsReportFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("report-cohorts"),
  (adapters, runtime) => reportHandlers(adapters, runtime).cohorts,
);

export const linkClicksReportFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("report-link-clicks"),
  (adapters, runtime) => reportHandlers(adapters, runtime).linkClicks,
);

export const latestEventsReportFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("report-latest-events"),
  (adapters, runtime) => reportHandlers(adapters, runtime).latestEvents,
);
