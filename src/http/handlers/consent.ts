/** `POST /v1/installs/{service_id}/consent`: the SDKs' consent updates. */
import type { APIGatewayProxyEvent } from "aws-lambda";
import { composition } from "../../functions/adapters.ts";
import { type ConsentDeps, createConsentRecorder } from "../../ingest/consent.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { pathParam } from "../path-param.ts";
import { principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";
import { serviceIdParam } from "./deletions.ts";

export const createConsentHandler = (deps: ConsentDeps) => {
  const record = createConsentRecorder(deps);
  return httpRoute(async (event: APIGatewayProxyEvent) => {
    const { appId } = principalOf(event, "ingest");
    const serviceId = pathParam(event, "service_id", serviceIdParam);
    const body = readJsonBody(event, INGEST_LIMITS.maxBodyBytes);
    return jsonResponse(202, await record(appId, serviceId, body));
  });
};

export const consentFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("consent"),
  ({ tables }, runtime) =>
    createConsentHandler({
      apps: runtime.hotApps(tables.apps),
      installs: tables.installs,
      deletions: tables.deletions,
    }),
);
