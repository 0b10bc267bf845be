/** `POST /v1/sessions`: the SDKs' sessions, to the lake's sessions table. */
import { composition } from "../../functions/adapters.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { createSessionIngestion, type SessionIngestionDeps } from "../../ingest/sessions.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse, lowerCaseHeaders } from "../middleware.ts";
import { principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

export const createSessionsHandler = (deps: SessionIngestionDeps) => {
  const ingestion = createSessionIngestion(deps);
  return httpRoute(async (event) =>
    jsonResponse(
      202,
      await ingestion.recordSessions(
        {
          appId: principalOf(event, "ingest").appId,
          sourceIp: event.requestContext?.identity?.sourceIp ?? null,
          headers: lowerCaseHeaders(event.headers),
        },
        readJsonBody(event, INGEST_LIMITS.maxBodyBytes),
      ),
    ),
  );
};

export const sessionsFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("app-sessions"),
  (adapters, runtime) =>
    createSessionsHandler({
      apps: runtime.hotApps(adapters.tables.apps),
      installs: adapters.tables.installs,
      deletions: adapters.tables.deletions,
      sessions: adapters.streams.sessions,
      countries: adapters.countries,
      sightings: adapters.tables.touches,
    }),
);
