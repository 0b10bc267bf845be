/**
 * `DELETE /v1/installs/{service_id}` (the SDKs' deleteUserData), `POST /v1/deletions` (the same
 * from the app's servers) and `GET /v1/deletions/{request_id}` (its progress).
 */
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import * as z from "zod";
import { deletionStatus, requestDeletion } from "../../deletion/deletions.ts";
import type { Scope } from "../../domain/keys.ts";
import { composition, type Runtime } from "../../functions/adapters.ts";
import { serviceIdField } from "../../ingest/fields.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import type { DeletionStore } from "../../ports/deletions.ts";
import type { InstallStore } from "../../ports/installs.ts";
import { checked } from "../../validation/issues.ts";
import { readJsonBody } from "../json-body.ts";
import { errorResponses, type HttpResponse, jsonResponse } from "../middleware.ts";
import { pathParam } from "../path-param.ts";
import { principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

/** The install's id, by the same rule as in the bodies that named it. */
export const serviceIdParam = serviceIdField();
export const requestIdParam = z.uuid({ error: "must be the id a deletion request answered" });

/** A request from the app's servers: the install by its service_id. */
export const deletionRequestBody = z.object({ service_id: serviceIdParam });

export interface RequestDeletionDeps {
  readonly deletions: DeletionStore;
  readonly installs: Pick<InstallStore, "get">;
  /** Told of each new request, so a purge can start without waiting for its schedule. */
  readonly onRequested?: () => void;
}

/** A route that makes a deletion request: the caller's key of `scope`, the install it names. */
const requestRoute = (
  deps: RequestDeletionDeps,
  scope: Scope,
  serviceIdOf: (event: APIGatewayProxyEvent) => string,
) =>
  middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async (event) => {
      const { appId } = principalOf(event, scope);
      const requested = await requestDeletion(appId, serviceIdOf(event), deps);
      deps.onRequested?.();
      return jsonResponse(202, requested);
    });

/** `DELETE /v1/installs/{service_id}`: the SDKs' deleteUserData, with the SDK key. */
export const createDeleteInstallHandler = (deps: RequestDeletionDeps) =>
  requestRoute(deps, "ingest", (event) => pathParam(event, "service_id", serviceIdParam));

/**
 * `POST /v1/deletions`: the same request from the app's servers, with a server key, as an
 * erasure a person asked the app's owner for (AppsFlyer's OpenGDPR, Adjust's GDPR forget).
 */
export const createRequestDeletionHandler = (deps: RequestDeletionDeps) =>
  requestRoute(
    deps,
    "deletions",
    (event) =>
      checked(deletionRequestBody, readJsonBody(event, INGEST_LIMITS.maxBodyBytes), "body")
        .service_id,
  );

export const createDeletionStatusHandler = (deps: { deletions: DeletionStore }) =>
  middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async (event) => {
      const { appId } = principalOf(event, "deletions");
      const requestId = pathParam(event, "request_id", requestIdParam);
      return jsonResponse(200, await deletionStatus(appId, requestId, deps.deletions));
    });

/** What a request's route is made of, on either runtime. */
const requestDeps = (
  tables: { readonly deletions: DeletionStore; readonly installs: InstallStore },
  runtime: Runtime,
): RequestDeletionDeps => ({
  deletions: tables.deletions,
  installs: tables.installs,
  ...(runtime.onDeletionRequested ? { onRequested: runtime.onDeletionRequested } : {}),
});

export const deleteInstallFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("delete-install"),
  ({ tables }, runtime) => createDeleteInstallHandler(requestDeps(tables, runtime)),
);

export const requestDeletionFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("request-deletion"),
  ({ tables }, runtime) => createRequestDeletionHandler(requestDeps(tables, runtime)),
);

export const deletionStatusFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("deletion-status"),
  ({ tables }) => createDeletionStatusHandler({ deletions: tables.deletions }),
);
