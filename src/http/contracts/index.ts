/**
 * The wire contract of every route, as zod schemas: what it takes, what it answers and which
 * errors it can answer, one file per route family. Requests are the schemas the handlers parse
 * (or, where a handler parses strings, a description of what it accepts, tied to its type);
 * answers are described here and tied to the handlers' own types, so a change on either side
 * fails to compile. `src/http/openapi.ts` turns this into the OpenAPI document, and
 * test/integration/contract.test.ts holds real answers to it.
 */
import type { RouteId } from "../routes.ts";
import { APP_SESSION_CONTRACTS } from "./app-sessions.ts";
import { APP_CONTRACTS } from "./apps.ts";
import { CONFIG_CONTRACTS } from "./config.ts";
import { CONSENT_CONTRACTS } from "./consent.ts";
import { COST_CONTRACTS } from "./costs.ts";
import { DELETION_CONTRACTS } from "./deletions.ts";
import { EXPORT_CONTRACTS } from "./export.ts";
import { INGEST_CONTRACTS } from "./ingest.ts";
import { ATTRIBUTION_CONTRACTS } from "./install-attribution.ts";
import { LINK_CONTRACTS } from "./links.ts";
import { OPENAPI_CONTRACTS } from "./openapi.ts";
import { POSTBACK_CONTRACTS } from "./postbacks.ts";
import { REPORT_CONTRACTS } from "./reports.ts";
import { SESSION_CONTRACTS } from "./session.ts";
import type { RouteContract } from "./shared.ts";
import { SKADNETWORK_CONTRACTS } from "./skadnetwork.ts";
import { TOUCH_CONTRACTS } from "./touches.ts";
import { USER_CONTRACTS } from "./users.ts";

export * from "./app-sessions.ts";
export * from "./apps.ts";
export * from "./config.ts";
export * from "./consent.ts";
export * from "./costs.ts";
export * from "./deletions.ts";
export * from "./export.ts";
export * from "./ingest.ts";
export * from "./install-attribution.ts";
export * from "./links.ts";
export * from "./openapi.ts";
export * from "./postbacks.ts";
export * from "./reports.ts";
export * from "./session.ts";
export * from "./shared.ts";
export * from "./skadnetwork.ts";
export * from "./touches.ts";
export * from "./users.ts";

/** One contract per route of the route table: a route without one fails to compile. */
export const CONTRACTS: { readonly [K in RouteId]: RouteContract } = {
  ...CONFIG_CONTRACTS,
  ...INGEST_CONTRACTS,
  ...APP_SESSION_CONTRACTS,
  ...CONSENT_CONTRACTS,
  ...ATTRIBUTION_CONTRACTS,
  ...DELETION_CONTRACTS,
  ...EXPORT_CONTRACTS,
  ...LINK_CONTRACTS,
  ...TOUCH_CONTRACTS,
  ...SESSION_CONTRACTS,
  ...APP_CONTRACTS,
  ...USER_CONTRACTS,
  ...REPORT_CONTRACTS,
  ...POSTBACK_CONTRACTS,
  ...SKADNETWORK_CONTRACTS,
  ...COST_CONTRACTS,
  ...OPENAPI_CONTRACTS,
};
