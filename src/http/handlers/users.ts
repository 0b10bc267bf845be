/**
 * The dashboard's people routes (the People page): who may sign in and which apps each sees,
 * managed by an admin. Sessions only: the `users` scope is an admin's session's alone (never a
 * key's, never a viewer's; src/apps/authenticate.ts), and each handler asks for it again. The
 * passwords made here are answered once, with `Cache-Control: no-store`.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import {
  appIdParam,
  createPeople,
  emailParam,
  newPersonBody,
  type PeopleDeps,
} from "../../dashboard/people.ts";
import { type Adapters, composition, type Runtime, sharedBy } from "../../functions/adapters.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { checked } from "../../validation/issues.ts";
import { readJsonBody } from "../json-body.ts";
import { type HttpResponse, httpRoute, jsonResponse } from "../middleware.ts";
import { pathParam } from "../path-param.ts";
import { sessionOf } from "../principal.ts";
import { routeOf } from "../routes.ts";

const noStore = (response: HttpResponse): HttpResponse => ({
  ...response,
  headers: { ...response.headers, "cache-control": "no-store" },
});

/**
 * The email the path names. The page sends it percent-encoded; API Gateway's REST API may hand
 * the parameter over still encoded where the embedded gateway decodes it, so an escape left in
 * it is decoded here (an address with a literal `%` and two hex digits cannot be named).
 */
const emailOf = (event: APIGatewayProxyEvent): string => {
  const given = pathParam(event, "email", emailParam);
  if (!/%[0-9A-Fa-f]{2}/.test(given)) return given;
  try {
    return decodeURIComponent(given);
  } catch {
    return given;
  }
};

export const createUserHandlers = (deps: PeopleDeps) => {
  const people = createPeople(deps);
  const adminOf = (event: APIGatewayProxyEvent) => sessionOf(event, "users").user;
  return {
    listUsers: httpRoute(async (event) => {
      adminOf(event);
      return jsonResponse(200, { users: await people.list() });
    }),
    createUser: httpRoute(async (event) => {
      adminOf(event);
      const body = checked(newPersonBody, readJsonBody(event, INGEST_LIMITS.maxBodyBytes), "body");
      return noStore(jsonResponse(201, await people.add(body)));
    }),
    resetUserPassword: httpRoute(async (event) => {
      const password = await people.resetPassword(adminOf(event), emailOf(event));
      return noStore(jsonResponse(200, { password }));
    }),
    removeUser: httpRoute(async (event) => {
      await people.remove(adminOf(event), emailOf(event));
      return { statusCode: 204, headers: {}, body: "" };
    }),
    grantUserApp: httpRoute(async (event) => {
      adminOf(event);
      const appId = pathParam(event, "app_id", appIdParam);
      return jsonResponse(200, { user: await people.grant(emailOf(event), appId) });
    }),
    revokeUserApp: httpRoute(async (event) => {
      adminOf(event);
      const appId = pathParam(event, "app_id", appIdParam);
      return jsonResponse(200, { user: await people.revoke(emailOf(event), appId) });
    }),
  };
};

/** The people routes share one composition. */
const userHandlers = /* @__PURE__ */ sharedBy(
  (adapters: Adapters<ReturnType<typeof routeOf<"list-users">>["uses"]>, _runtime: Runtime) =>
    createUserHandlers({
      users: adapters.tables.users,
      credentials: adapters.credentials,
      apps: adapters.tables.apps,
    }),
);

export const listUsersFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("list-users"),
  (adapters, runtime) => userHandlers(adapters, runtime).listUsers,
);
export const createUserFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("create-user"),
  (adapters, runtime) => userHandlers(adapters, runtime).createUser,
);
export const resetUserPasswordFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("reset-user-password"),
  (adapters, runtime) => userHandlers(adapters, runtime).resetUserPassword,
);
export const removeUserFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("remove-user"),
  (adapters, runtime) => userHandlers(adapters, runtime).removeUser,
);
export const grantUserAppFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("grant-user-app"),
  (adapters, runtime) => userHandlers(adapters, runtime).grantUserApp,
);
export const revokeUserAppFunction = /* @__PURE__ */ composition(
  /* @__PURE__ */ routeOf("revoke-user-app"),
  (adapters, runtime) => userHandlers(adapters, runtime).revokeUserApp,
);
