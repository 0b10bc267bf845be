/**
 * Every function's composition, by its manifest id: what the embedded runtime maps the route,
 * link-host and worker tables over (AWS entries import their own, so a bundle holds one). A
 * row without its composition here fails to compile.
 */
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { authorizerFunction } from "../http/handlers/authorizer.ts";
import { configFunction } from "../http/handlers/config.ts";
import { deleteInstallFunction, deletionStatusFunction } from "../http/handlers/deletions.ts";
import { exportFunction } from "../http/handlers/export.ts";
import { eventsFunction, installsFunction, s2sEventsFunction } from "../http/handlers/ingest.ts";
import { attributionFunction } from "../http/handlers/install-attribution.ts";
import {
  appleAppSiteAssociationFunction,
  assetLinksFunction,
  clickFunction,
} from "../http/handlers/link-host.ts";
import {
  createLinkFunction,
  getLinkFunction,
  listLinksFunction,
  updateLinkFunction,
} from "../http/handlers/links.ts";
import { openApiFunction } from "../http/handlers/openapi.ts";
import { touchesFunction } from "../http/handlers/touches.ts";
import type { HttpResponse } from "../http/middleware.ts";
import type { LinkHostRouteId, RouteId } from "../http/routes.ts";
import type { WorkHandler } from "../ports/work-queue.ts";
import { attributionWorkerFunction } from "../workers/attribution-worker.ts";
import type { WorkerId, WorkerMessage } from "../workers/workers.ts";
import type { AllAdapters, Runtime } from "./adapters.ts";

/** An HTTP handler as both the Lambda runtime and the embedded gateway call it. */
export type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;

/** A composition as a runtime that holds every adapter calls it. */
interface Composed<H> {
  readonly compose: (adapters: AllAdapters, runtime: Runtime) => H;
}

export const ROUTE_FUNCTIONS: { readonly [K in RouteId]: Composed<HttpHandler> } = {
  config: configFunction,
  installs: installsFunction,
  events: eventsFunction,
  "s2s-events": s2sEventsFunction,
  "delete-install": deleteInstallFunction,
  "deletion-status": deletionStatusFunction,
  export: exportFunction,
  attribution: attributionFunction,
  touches: touchesFunction,
  "create-link": createLinkFunction,
  "list-links": listLinksFunction,
  "get-link": getLinkFunction,
  "update-link": updateLinkFunction,
  openapi: openApiFunction,
};

export const LINK_HOST_FUNCTIONS: { readonly [K in LinkHostRouteId]: Composed<HttpHandler> } = {
  click: clickFunction,
  "apple-app-site-association": appleAppSiteAssociationFunction,
  assetlinks: assetLinksFunction,
};

export const AUTHORIZER_FUNCTION = authorizerFunction;

export const WORKER_FUNCTIONS: {
  readonly [K in WorkerId]: Composed<WorkHandler<WorkerMessage<K>>>;
} = {
  attribute: attributionWorkerFunction,
};
