import { composition } from "../../functions/adapters.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { createNetworkTouches, type NetworkTouchDeps } from "../../touches/network-touches.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

export const createTouchesHandler = (deps: NetworkTouchDeps) => {
  const record = createNetworkTouches(deps);
  return httpRoute(async (event) => {
    const { appId } = principalOf(event, "s2s");
    return jsonResponse(202, await record(appId, readJsonBody(event, INGEST_LIMITS.maxBodyBytes)));
  });
};

/** `POST /v1/touches`: links and apps read through the hot path's caches. */
export const touchesFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("touches"),
  ({ tables, streams, countries, fx }, runtime) =>
    createTouchesHandler({
      apps: runtime.hotApps(tables.apps),
      links: runtime.hotLinks(tables.links),
      touches: tables.touches,
      stream: streams.touches,
      countries,
      fx,
    }),
);
