import type { APIGatewayProxyEvent } from "aws-lambda";
import type { Scope } from "../../domain/keys.ts";
import { S2S_EVENTS, SDK_EVENTS } from "../../ingest/event-sources.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { type Caller, createIngestion, type IngestionDeps } from "../../ingest/service.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse, lowerCaseHeaders } from "../middleware.ts";
import { principalOf } from "../principal.ts";

const callerOf = (event: APIGatewayProxyEvent, scope: Scope): Caller => {
  return {
    appId: principalOf(event, scope).appId,
    sourceIp: event.requestContext?.identity?.sourceIp ?? null,
    // The resolver reads them lower-cased.
    headers: lowerCaseHeaders(event.headers),
  };
};

const route = (handle: (event: APIGatewayProxyEvent) => Promise<unknown>) =>
  httpRoute(async (event) => jsonResponse(202, await handle(event)));

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
