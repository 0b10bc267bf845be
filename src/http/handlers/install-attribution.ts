/**
 * `GET /v1/installs/{service_id}/attribution`: the install's attribution parameters, as the
 * SDKs return them. With `wait_seconds` it holds the request until the attribution is resolved
 * or the time is up (a bounded long poll), so an SDK awaiting the match makes one call.
 */
import { setTimeout as sleep } from "node:timers/promises";
import * as z from "zod";
import { attributionParams } from "../../attribution/params.ts";
import { NotFoundError } from "../../domain/errors.ts";
import { composition } from "../../functions/adapters.ts";
import type { AppStore } from "../../ports/apps.ts";
import type { AttributionStore } from "../../ports/attributions.ts";
import type { DeletionStore } from "../../ports/deletions.ts";
import { checked } from "../../validation/issues.ts";
import { wholeNumberParam } from "../../validation/query.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { pathParam } from "../path-param.ts";
import { principalOf } from "../principal.ts";
import { queryOnce } from "../query-once.ts";
import { routeOf } from "../routes.ts";
import { serviceIdParam } from "./deletions.ts";

export const MAX_WAIT_SECONDS = 20;

export const attributionQuery = z.object({
  wait_seconds: wholeNumberParam({
    min: 0,
    max: MAX_WAIT_SECONDS,
    fallback: 0,
    unit: "of seconds",
  }).meta({
    description:
      `How long to wait, at most, for an unresolved attribution to resolve (0 to ${MAX_WAIT_SECONDS} ` +
      "seconds): the answer comes as soon as it does.",
    example: 10,
  }),
});

export interface AttributionRouteDeps {
  readonly apps: Pick<AppStore, "get">;
  readonly attributions: Pick<AttributionStore, "get">;
  readonly deletions: Pick<DeletionStore, "listByInstall">;
  /** How often a waiting request reads the attribution again. */
  readonly pollIntervalMs?: number;
}

export const createAttributionHandler = (deps: AttributionRouteDeps) =>
  httpRoute(async (event) => {
    const { appId } = principalOf(event, "attribution:read");
    const serviceId = pathParam(event, "service_id", serviceIdParam);
    // Only its own parameter: the SDKs' routes ignore one they do not know, repeated or not.
    const query = checked(attributionQuery, queryOnce(event, ["wait_seconds"]), "query");
    const unknown = new NotFoundError(
      `No install ${serviceId} of this app: send POST /v1/installs first (or its data was deleted).`,
    );
    const deadline = Date.now() + query.wait_seconds * 1000;
    let record = await deps.attributions.get(appId, serviceId);
    if (!record || (await deps.deletions.listByInstall(appId, serviceId)).length > 0) {
      throw unknown;
    }
    // A switched-off app answers at once; a failed attribution too (the SDK reads it again).
    const app = await deps.apps.get(appId);
    const appEnabled = app?.enabled ?? false;
    while (appEnabled && record.state === "pending" && Date.now() < deadline) {
      await sleep(Math.min(deps.pollIntervalMs ?? 250, Math.max(0, deadline - Date.now())));
      record = (await deps.attributions.get(appId, serviceId)) ?? record;
    }
    return jsonResponse(200, attributionParams(record, { appEnabled }));
  });

export const attributionFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("attribution"),
  ({ tables }, runtime) =>
    createAttributionHandler({
      apps: runtime.apps(tables.apps),
      attributions: tables.attributions,
      deletions: tables.deletions,
      // On AWS every read of a waiting request is a strongly consistent read billed: twice a
      // second keeps a 20 s wait to 40 of them.
      ...(runtime.kind === "aws" ? { pollIntervalMs: 500 } : {}),
    }),
);
