/**
 * The dashboard's app routes: the apps a signed-in person may see, an app's settings, and its
 * keys. Sessions only (the `apps` scope belongs to no key). The authorizer has already checked
 * that the person may see the app the path names; each handler reads the app from its
 * principal, never from the path alone.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import * as z from "zod";
import { createDashboardApps, type DashboardAppsDeps } from "../../dashboard/apps.ts";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { readJsonBody } from "../json-body.ts";
import { httpRoute, jsonResponse } from "../middleware.ts";
import { pathParam } from "../path-param.ts";
import { principalOf, sessionOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

export const keyIdParam = z.string().regex(/^[0-9a-f]{16}$/, { error: "must be a key id" });

export const createAppHandlers = (deps: DashboardAppsDeps) => {
  const apps = createDashboardApps(deps);
  const body = (event: APIGatewayProxyEvent) => readJsonBody(event, INGEST_LIMITS.maxBodyBytes);
  const appOf = (event: APIGatewayProxyEvent) => principalOf(event, "apps").appId;
  return {
    listApps: httpRoute(async (event) =>
      jsonResponse(200, { apps: await apps.list(sessionOf(event, "apps").user) }),
    ),
    createApp: httpRoute(async (event) =>
      jsonResponse(201, { app: await apps.create(sessionOf(event, "apps").user, body(event)) }),
    ),
    getApp: httpRoute(async (event) => jsonResponse(200, { app: await apps.get(appOf(event)) })),
    updateApp: httpRoute(async (event) =>
      jsonResponse(200, {
        app: await apps.update(sessionOf(event, "apps").user, appOf(event), body(event)),
      }),
    ),
    listKeys: httpRoute(async (event) =>
      jsonResponse(200, { keys: await apps.keys(appOf(event)) }),
    ),
    createKey: httpRoute(async (event) =>
      jsonResponse(201, { key: await apps.issueKey(appOf(event), body(event)) }),
    ),
    revokeKey: httpRoute(async (event) => {
      const appId = appOf(event);
      const keyId = pathParam(event, "key_id", keyIdParam);
      return jsonResponse(200, { key: await apps.revokeKey(appId, keyId) });
    }),
  };
};

/** The app routes share one composition. */
const appHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"list-apps">>["uses"]>, runtime: Runtime) =>
    createAppHandlers({
      apps: runtime.apps(adapters.tables.apps),
      keys: adapters.tables.keys,
      users: adapters.tables.users,
      keyWrapper: adapters.keyWrapper,
      linkBaseUrl: adapters.linkBaseUrl,
      servedLinkHosts: adapters.servedLinkHosts,
      dns: adapters.dns,
      ...(runtime.onAdminChange ? { onChange: runtime.onAdminChange } : {}),
    }),
);

export const listAppsFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("list-apps"),
  (adapters, runtime) => appHandlers(adapters, runtime).listApps,
);
export const createAppFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("create-app"),
  (adapters, runtime) => appHandlers(adapters, runtime).createApp,
);
export const getAppFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("get-app"),
  (adapters, runtime) => appHandlers(adapters, runtime).getApp,
);
export const updateAppFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("update-app"),
  (adapters, runtime) => appHandlers(adapters, runtime).updateApp,
);
export const listKeysFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("list-keys"),
  (adapters, runtime) => appHandlers(adapters, runtime).listKeys,
);
export const createKeyFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("create-key"),
  (adapters, runtime) => appHandlers(adapters, runtime).createKey,
);
export const revokeKeyFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("revoke-key"),
  (adapters, runtime) => appHandlers(adapters, runtime).revokeKey,
);
