/**
 * The API's Lambda authorizer: a TOKEN authorizer on the Authorization header for the routes
 * only keys call, and a REQUEST authorizer for the routes the dashboard calls too, where the
 * caller is a key or a signed-in person's session cookie (with its CSRF header on changes).
 */
import middy from "@middy/core";
import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEvent,
  APIGatewayTokenAuthorizerEvent,
} from "aws-lambda";
import { authenticate, authenticateSession, type Principal } from "../../apps/authenticate.ts";
import { CSRF_HEADER, cookieValue, SESSION_COOKIE } from "../../domain/sessions.ts";
import { composition } from "../../functions/adapters.ts";
import type { AppStore, KeyStore } from "../../ports/apps.ts";
import type { SessionStore, UserStore } from "../../ports/users.ts";
import { policyFor } from "../policy.ts";
import { toAuthorizerContext } from "../principal.ts";
import { AUTHORIZER } from "../routes.ts";
import { usageKeyOf } from "../usage-keys.ts";

export interface AuthorizerDeps {
  readonly apps: AppStore;
  readonly keys: KeyStore;
  readonly users: UserStore;
  readonly sessions: SessionStore;
}

export type AuthorizerEvent = APIGatewayTokenAuthorizerEvent | APIGatewayRequestAuthorizerEvent;

/** API Gateway answers 401 only when the authorizer fails with exactly this message. */
export const UNAUTHORIZED = "Unauthorized";

/** A header of a REQUEST event, whatever its case. */
const headerOf = (event: APIGatewayRequestAuthorizerEvent, name: string): string | undefined => {
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === name && value) return value;
  }
  return undefined;
};

const principalOf = async (
  event: AuthorizerEvent,
  deps: AuthorizerDeps,
): Promise<Principal | undefined> => {
  if (event.type === "TOKEN") return authenticate(event.authorizationToken, deps);
  const authorization = headerOf(event, "authorization");
  if (authorization) return authenticate(authorization, deps);
  const token = cookieValue(headerOf(event, "cookie"), SESSION_COOKIE);
  if (!token) return undefined;
  return authenticateSession(
    token,
    {
      method: event.httpMethod,
      csrfToken: headerOf(event, CSRF_HEADER),
      appId: event.pathParameters?.app_id ?? event.queryStringParameters?.app_id ?? undefined,
    },
    deps,
  );
};

export const createAuthorizerHandler = (deps: AuthorizerDeps) =>
  middy<AuthorizerEvent, APIGatewayAuthorizerResult>().handler(async (event) => {
    const principal = await principalOf(event, deps);
    if (!principal) throw new Error(UNAUTHORIZED);
    return {
      principalId: principal.user ?? principal.keyId,
      policyDocument: policyFor(event.methodArn, principal.scopes),
      context: toAuthorizerContext(principal),
      // The usage-plan key this request counts against: its app's (lib/usage-plans.ts).
      usageIdentifierKey: usageKeyOf(event.methodArn, principal),
    };
  });

export const authorizerFunction = /* @__PURE__ */ composition(AUTHORIZER, ({ tables }, runtime) =>
  createAuthorizerHandler({
    apps: runtime.apps(tables.apps),
    keys: tables.keys,
    users: tables.users,
    sessions: tables.sessions,
  }),
);
