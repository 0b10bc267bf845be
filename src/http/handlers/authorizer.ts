/** The API's Lambda authorizer (TOKEN type, on the Authorization header). */
import middy from "@middy/core";
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from "aws-lambda";
import { authenticate } from "../../apps/authenticate.ts";
import { composition } from "../../functions/adapters.ts";
import type { AppStore, KeyStore } from "../../ports/apps.ts";
import { policyFor } from "../policy.ts";
import { toAuthorizerContext } from "../principal.ts";
import { AUTHORIZER } from "../routes.ts";

export interface AuthorizerDeps {
  readonly apps: AppStore;
  readonly keys: KeyStore;
}

/** API Gateway answers 401 only when the authorizer fails with exactly this message. */
export const UNAUTHORIZED = "Unauthorized";

export const createAuthorizerHandler = (deps: AuthorizerDeps) =>
  middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>().handler(async (event) => {
    const principal = await authenticate(event.authorizationToken, deps);
    if (!principal) throw new Error(UNAUTHORIZED);
    return {
      principalId: principal.keyId,
      policyDocument: policyFor(event.methodArn, principal.scopes),
      context: toAuthorizerContext(principal),
    };
  });

export const authorizerFunction = /* @__PURE__ */ composition(AUTHORIZER, ({ tables }, runtime) =>
  createAuthorizerHandler({ apps: runtime.apps(tables.apps), keys: tables.keys }),
);
