/**
 * The cost routes: an app's cost rows put (`POST /v1/costs`, a row of the same day and keys
 * replacing the earlier one) and read for a window of days. A server key or a dashboard session
 * with the `costs` scope.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import {
  costAnswer,
  costLakeRecord,
  costRowsOf,
  mixedLevelWarnings,
  unconvertedWarnings,
} from "../../costs/cost-rows.ts";
import { ValidationError } from "../../domain/errors.ts";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import type { FxRates } from "../../fx/ecb-rates.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import type { CostStore } from "../../ports/costs.ts";
import type { RecordStream } from "../../ports/lake.ts";
import { overviewParamsSchema, windowRules } from "../../reports/params.ts";
import { routeQuery } from "../../validation/query.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { appQuery, principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

export const costListQuery = windowRules(
  routeQuery({ from: overviewParamsSchema.shape.from, to: overviewParamsSchema.shape.to }),
);

/**
 * Rows one answer lists at most: a few MB, within what a Lambda function may answer (6 MB),
 * past which API Gateway would answer a 502 of its own.
 */
export const COST_LIST_MAX_ROWS = 10_000;

export interface CostHandlerDeps {
  readonly costs: CostStore;
  /** The lake's costs table: every row as sent, for the owner's own queries. */
  readonly lake: RecordStream;
  readonly fx: FxRates;
  readonly now?: () => Date;
}

export const createCostHandlers = (deps: CostHandlerDeps) => {
  const now = deps.now ?? (() => new Date());
  const appOf = (event: APIGatewayProxyEvent) => principalOf(event, "costs").appId;
  return {
    putCosts: httpRoute(async (event) => {
      const appId = appOf(event);
      const rows = costRowsOf(
        appId,
        readJsonBody(event, INGEST_LIMITS.maxBodyBytes),
        deps.fx,
        now(),
      );
      // The lake first: a put of the table that fails after it fails the request, whose retry
      // adds a later copy of the same rows, which readers take as the rows as they stand.
      await deps.lake.put(rows.map(costLakeRecord));
      const { replaced } = await deps.costs.put(rows);
      const days = rows.map((row) => row.day).sort();
      const stored = await deps.costs.listByApp(appId, {
        from: days[0] ?? "",
        to: days[days.length - 1] ?? "",
      });
      return jsonResponse(200, {
        accepted: rows.length,
        replaced,
        warnings: [...mixedLevelWarnings(stored, rows), ...unconvertedWarnings(rows, deps.fx)],
      });
    }),
    listCosts: httpRoute(async (event) => {
      const { appId, query } = appQuery(event, "costs", costListQuery);
      const rows = await deps.costs.listByApp(appId, { from: query.from, to: query.to });
      if (rows.length > COST_LIST_MAX_ROWS) {
        throw new ValidationError(
          `to: the window holds ${rows.length} cost rows, more than the ${COST_LIST_MAX_ROWS} one answer lists; ask for fewer days`,
        );
      }
      return jsonResponse(200, { data: rows.map(costAnswer) });
    }),
  };
};

const costHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"put-costs">>["uses"]>, _runtime: Runtime) =>
    createCostHandlers({
      costs: adapters.tables.costs,
      lake: adapters.streams.costs,
      fx: adapters.fx,
    }),
);

export const putCostsFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("put-costs"),
  (adapters, runtime) => costHandlers(adapters, runtime).putCosts,
);

export const listCostsFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("list-costs"),
  (adapters, runtime) => costHandlers(adapters, runtime).listCosts,
);
