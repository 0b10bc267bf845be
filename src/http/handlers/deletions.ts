/**
 * `DELETE /v1/installs/{service_id}` (the SDKs' deleteUserData) and
 * `GET /v1/deletions/{request_id}` (its progress, for the app's servers).
 */
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import * as z from "zod";
import { deletionStatus, requestDeletion } from "../../deletion/deletions.ts";
import { composition } from "../../functions/adapters.ts";
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
export const deletionRequestBody = z.strictObject({ service_id: serviceIdParam });

export const createDeleteInstallHandler = (deps: {
  deletions: DeletionStore;
  installs: Pick<InstallStore, "get">;
  /** Told of each new request, so a purge can start without waiting for its schedule. */
  onRequested?: () => void;
}) =>
  middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async (event) => {
      const { appId } = principalOf(event, "ingest");
      const serviceId = pathParam(event, "service_id", serviceIdParam);
      const requested = await requestDeletion(appId, serviceId, deps);
      deps.onRequested?.();
      return jsonResponse(202, requested);
    });

/**
 * `POST /v1/deletions`: the same request from the app's servers, with a server key, as an
 * erasure a person asked the app's owner for (AppsFlyer's OpenGDPR, Adjust's GDPR forget).
 */
export const createRequestDeletionHandler = (deps: {
  deletions: DeletionStore;
  installs: Pick<InstallStore, "get">;
  onRequested?: () => void;
}) =>
  middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async (event) => {
      const { appId } = principalOf(event, "deletions");
      const body = checked(
        deletionRequestBody,
        readJsonBody(event, INGEST_LIMITS.maxBodyBytes),
        "body",
      );
      const requested = await requestDeletion(appId, body.service_id, deps);
      deps.onRequested?.();
      return jsonResponse(202, requested);
    });

export const createDeletionStatusHandler = (deps: { deletions: DeletionStore }) =>
  middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async (event) => {
      const { appId } = principalOf(event, "deletions");
      const requestId = pathParam(event, "request_id", requestIdParam);
      return jsonResponse(200, await deletionStatus(appId, requestId, deps.deletions));
    });

export const deleteInstallFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("delete-install"),
  ({ tables }, runtime) =>
    createDeleteInstallHandler({
      deletions: tables.deletions,
      installs: tables.installs,
      ...(runtime.onDeletionRequested ? { onRequested: runtime.onDeletionRequested } : {}),
    }),
);

export const requestDeletionFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("request-deletion"),
  ({ tables }, runtime) =>
    createRequestDeletionHandler({
      deletions: tables.deletions,
      installs: tables.installs,
      ...(runtime.onDeletionRequested ? { onRequested: runtime.onDeletionRequested } : {}),
    }),
);

export const deletionStatusFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("deletion-status"),
  ({ tables }) => createDeletionStatusHandler({ deletions: tables.deletions }),
);
