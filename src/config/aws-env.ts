/**
 * Environment contract between the CDK app and the Lambda functions, by name. Each schema is
 * derived from what its function's row uses (src/functions/env.ts), so the stack sets exactly
 * these names and each function parses its own schema once at start-up, failing fast on a bad
 * one. The names here are for the tests and tools that speak of one function's contract.
 */
import type * as z from "zod";
import { envSchemaOf } from "../functions/env.ts";
import { AUTHORIZER, LINK_HOST_ROUTES, ROUTES } from "../http/routes.ts";
import { jobOf } from "../jobs/jobs.ts";
import { ATTRIBUTION_WORKER } from "../workers/workers.ts";

export { parseEnv } from "./parse-env.ts";

const route = <K extends (typeof ROUTES)[number]["id"]>(id: K) => {
  const row = ROUTES.find((candidate) => candidate.id === id);
  if (!row) throw new Error(`No route ${id}`);
  return row as Extract<(typeof ROUTES)[number], { id: K }>;
};

const linkRoute = <K extends (typeof LINK_HOST_ROUTES)[number]["id"]>(id: K) => {
  const row = LINK_HOST_ROUTES.find((candidate) => candidate.id === id);
  if (!row) throw new Error(`No link host route ${id}`);
  return row as Extract<(typeof LINK_HOST_ROUTES)[number], { id: K }>;
};

export const authorizerEnv = envSchemaOf(AUTHORIZER.uses);
export const exportEnv = envSchemaOf(route("export").uses);
export const configEnv = envSchemaOf(route("config").uses);
/** The ingestion functions (`installs`, `events`, `s2s-events`): one composition, one schema. */
export const ingestEnv = envSchemaOf(route("events").uses);
export const attributeEnv = envSchemaOf(ATTRIBUTION_WORKER.uses);
export const attributionEnv = envSchemaOf(route("attribution").uses);
export const attributionSweepEnv = envSchemaOf(jobOf("attribution-sweep").aws.uses);
export const linksEnv = envSchemaOf(route("create-link").uses);
/** What records taps: the link host's tap route (`click`). */
export const touchesEnv = envSchemaOf(linkRoute("click").uses);
export const wellKnownEnv = envSchemaOf(linkRoute("assetlinks").uses);
export const deletionsEnv = envSchemaOf(route("delete-install").uses);
export const purgeEnv = envSchemaOf(jobOf("purge").aws.uses);
export const fxRatesEnv = envSchemaOf(jobOf("fx-rates").aws.uses);
export const openapiEnv = envSchemaOf(route("openapi").uses);

export type PurgeEnv = z.infer<typeof purgeEnv>;
