/** Dashboard passwords: the stack's Cognito user pool. */
import { createCognitoCredentials } from "../adapters/cognito/cognito-credentials.ts";
import { cognito } from "./clients.ts";
import { type Provider, variable } from "./provider.ts";

export const cognitoCredentials: Provider = (env) => ({
  credentials: createCognitoCredentials({
    client: cognito,
    userPoolId: variable(env, "USER_POOL_ID"),
    clientId: variable(env, "USER_POOL_CLIENT_ID"),
  }),
});
