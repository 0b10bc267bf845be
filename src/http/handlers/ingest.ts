/**
 * The SDK and server-to-server ingestion routes: `POST /v1/installs`, `POST /v1/events` and
 * `POST /v1/s2s/events`. Each is a middy chain and one call into the ingestion service.
 */
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { Scope } from "../../domain/keys.ts";
import { S2S_EVENTS, SDK_EVENTS } from "../../ingest/event-sources.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { type Caller, createIngestion, type IngestionDeps } from "../../ingest/service.ts";
import { readJsonBody } from "../json-body.ts";
import { errorResponses, type HttpResponse, jsonResponse } from "../middleware.ts";
import { principalOf } from "../principal.ts";

const callerOf = (event: APIGatewayProxyEvent, scope: Scope): Caller => {
  // Header names are case-insensitive; the resolver reads them lower-cased.
  const headers = Object.fromEntries(
    Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return {
    appId: principalOf(event, scope).appId,
    sourceIp: event.requestContext?.identity?.sourceIp ?? null,
    headers,
  };
};

const route = (handle: (event: APIGatewayProxyEvent) => Promise<unknown>) =>
  middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async (event) => jsonResponse(202, await handle(event)));

export const createIngestHandlers = (deps: IngestionDeps) => {
  const ingestion = createIngestion(deps);
  const body = (event: APIGatewayProxyEvent) => readJsonBody(event, INGEST_LIMITS.maxBodyBytes);
  return {
    installs: route((event) => ingestion.recordInstall(callerOf(event, "ingest"), body(event))),
    events: route((event) =>
      ingestion.recordEvents(callerOf(event, "ingest"), body(event), SDK_EVENTS),
    ),
    s2sEvents: route((event) =>
      ingestion.recordEvents(callerOf(event, "s2s"), body(event), S2S_EVENTS),
    ),
  };
};
