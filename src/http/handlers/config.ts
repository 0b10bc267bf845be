/** `GET /v1/config`: the app's remote configuration for its SDKs. */
import middy from "@middy/core";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { remoteConfig } from "../../apps/app-config.ts";
import { UnauthorizedError } from "../../domain/errors.ts";
import { composition } from "../../functions/adapters.ts";
import type { FxRates } from "../../fx/ecb-rates.ts";
import type { AppStore } from "../../ports/apps.ts";
import { errorResponses, type HttpResponse, jsonResponse } from "../middleware.ts";
import { principalOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

export const createConfigHandler = (deps: { apps: AppStore; fx: FxRates }) =>
  middy<APIGatewayProxyEvent, HttpResponse>()
    .use(errorResponses())
    .handler(async (event) => {
      const principal = principalOf(event, "config");
      const app = await deps.apps.get(principal.appId);
      // The key's app was deleted after the authorizer's decision was cached.
      if (!app) throw new UnauthorizedError();
      return jsonResponse(200, remoteConfig(app, deps.fx));
    });

/** `GET /v1/config`: the app read fresh, so a change shows at the SDK's next refresh. */
export const configFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("config"),
  ({ tables, fx }) => createConfigHandler({ apps: tables.apps, fx }),
);
