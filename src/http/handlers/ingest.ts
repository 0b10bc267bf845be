import type { APIGatewayProxyEvent } from "aws-lambda";
import type { Scope } from "../../domain/keys.ts";
import type { Adapters, Runtime } from "../../functions/adapters.ts";
import { composition, sharedBy } from "../../functions/adapters.ts";
import { S2S_EVENTS, SDK_EVENTS } from "../../ingest/event-sources.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { type Caller, createIngestion, type IngestionDeps } from "../../ingest/service.ts";
import { createPostbackTriggers } from "../../postbacks/triggers.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse, lowerCaseHeaders } from "../middleware.ts";
import { principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

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

/** The three ingestion routes share one composition, so one set of handlers per runtime. */
const ingestHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"events">>["uses"]>, runtime: Runtime) =>
    createIngestHandlers({
      apps: runtime.hotApps(adapters.tables.apps),
      installs: adapters.tables.installs,
      customerUsers: adapters.tables.customerUsers,
      deletions: adapters.tables.deletions,
      events: adapters.streams.events,
      countries: adapters.countries,
      fx: adapters.fx,
      keyrings: adapters.keyrings,
      attribution: { store: adapters.tables.attributions, queue: adapters.queues.attribute },
      sightings: adapters.tables.touches,
      postbacks: {
        triggers: createPostbackTriggers({
          configs: runtime.hotPostbackConfigs(adapters.tables.postbackConfigs),
          outbox: adapters.tables.outbox,
          queue: adapters.queues.postback,
        }),
        attributions: adapters.tables.attributions,
      },
    }),
);

export const installsFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("installs"),
  (adapters, runtime) => ingestHandlers(adapters, runtime).installs,
);

export const eventsFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("events"),
  (adapters, runtime) => ingestHandlers(adapters, runtime).events,
);

export const s2sEventsFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("s2s-events"),
  (adapters, runtime) => ingestHandlers(adapters, runtime).s2sEvents,
);
