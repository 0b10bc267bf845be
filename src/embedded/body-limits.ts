/**
 * How much of a request's body the embedded gateway reads for each route: what the route's
 * handler takes, and nothing where it takes none (a tap, a `.well-known` file, any GET or
 * DELETE). The gateway refuses the rest with 413 without holding it, where reading up to API
 * Gateway's 10 MiB for every route let anyone make the process hold that much per connection.
 */
import { CONTRACTS } from "../http/contracts/index.ts";
import type { RouteContract } from "../http/contracts/shared.ts";
import { MAX_POSTBACK_BYTES } from "../http/handlers/apple-postbacks.ts";
import { SIGN_IN_MAX_BYTES } from "../http/handlers/session.ts";
import type { LinkHostRouteId, Route, RouteId } from "../http/routes.ts";
import { INGEST_LIMITS } from "../ingest/limits.ts";

/**
 * The routes whose handler reads its body with a limit other than the ingestion limit
 * (`INGEST_LIMITS.maxBodyBytes`, which every other handler that takes a body reads with).
 */
const HANDLER_BODY_LIMITS: Partial<Record<RouteId | LinkHostRouteId, number>> = {
  "sign-in": SIGN_IN_MAX_BYTES,
  "apple-postback": MAX_POSTBACK_BYTES,
};

const contracts: Readonly<Record<string, RouteContract | undefined>> = CONTRACTS;

/**
 * Whether a route takes a body: its contract says so (a contract's body is the schema its
 * handler parses). The link host's routes have no contract: its one that takes a body is the
 * one that is no GET (Apple's postbacks).
 */
const takesBody = (route: Route): boolean => {
  const contract = contracts[route.id];
  return contract ? contract.request?.body !== undefined : route.method !== "GET";
};

/** The bytes of body the gateway reads for `route`; 0 when it takes none. */
export const bodyLimitOf = (route: Route): number =>
  takesBody(route)
    ? (HANDLER_BODY_LIMITS[route.id as RouteId | LinkHostRouteId] ?? INGEST_LIMITS.maxBodyBytes)
    : 0;
