/**
 * The dashboard's report routes: `GET /v1/reports/overview`, `/v1/reports/cohorts`,
 * `/v1/reports/link-clicks` and `/v1/reports/latest-events`, each one call of the reports (src/reports/reports.ts) for the
 * caller's app.
 */
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import {
  cohortParamsSchema,
  latestEventsParamsSchema,
  linkClicksParamsSchema,
  overviewParamsSchema,
} from "../../reports/params.ts";
import { createReports, type ReportsDeps } from "../../reports/reports.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { appQuery } from "../principal.ts";
import { routeOf } from "../routes.ts";

export const createReportHandlers = (deps: ReportsDeps) => {
  const reports = createReports(deps);
  return {
    overview: httpRoute(async (event) => {
      const { appId, query } = appQuery(event, "reports", overviewParamsSchema);
      return jsonResponse(200, await reports.overview(appId, query));
    }),
    cohorts: httpRoute(async (event) => {
      const { appId, query } = appQuery(event, "reports", cohortParamsSchema);
      return jsonResponse(200, await reports.cohorts(appId, query));
    }),
    linkClicks: httpRoute(async (event) => {
      const { appId } = appQuery(event, "reports", linkClicksParamsSchema);
      return jsonResponse(200, await reports.linkClicks(appId));
    }),
    latestEvents: httpRoute(async (event) => {
      const { appId, query } = appQuery(event, "reports", latestEventsParamsSchema);
      return jsonResponse(200, await reports.latestEvents(appId, query.limit));
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
