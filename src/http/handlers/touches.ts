import { ValidationError } from "../../domain/errors.ts";
import { composition } from "../../functions/adapters.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { createNetworkTouches, type NetworkTouchDeps } from "../../touches/network-touches.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse, lowerCaseHeaders } from "../middleware.ts";
import { principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

/** An `Idempotency-Key` as networks send them (a UUID, a batch id): visible ASCII, bounded. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export const createTouchesHandler = (deps: NetworkTouchDeps) => {
  const record = createNetworkTouches(deps);
  return httpRoute(async (event) => {
    const { appId } = principalOf(event, "s2s");
    const key = lowerCaseHeaders(event.headers)["idempotency-key"];
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw new ValidationError(
        "Idempotency-Key: must be 1 to 255 visible ASCII characters, without spaces",
      );
    }
    const body = readJsonBody(event, INGEST_LIMITS.maxBodyBytes);
    return jsonResponse(202, await record(appId, body, key));
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
