import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { createNetworkTouches, type NetworkTouchDeps } from "../../touches/network-touches.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { principalOf } from "../principal.ts";

export const createTouchesHandler = (deps: NetworkTouchDeps) => {
  const record = createNetworkTouches(deps);
  return httpRoute(async (event) => {
    const { appId } = principalOf(event, "s2s");
    return jsonResponse(202, await record(appId, readJsonBody(event, INGEST_LIMITS.maxBodyBytes)));
  });
};
