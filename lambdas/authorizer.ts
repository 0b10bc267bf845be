/** The API's Lambda authorizer on AWS: API keys checked against DynamoDB. */
import { createAppStore, createKeyStore } from "../src/adapters/dynamodb/stores.ts";
import { functionEnv } from "../src/functions/env.ts";
import { createAuthorizerHandler } from "../src/http/handlers/authorizer.ts";
import { AUTHORIZER } from "../src/http/routes.ts";
import { dynamoDocument } from "./clients.ts";
import { logged } from "./logged.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = functionEnv(AUTHORIZER);

export const handler = logged(
  createAuthorizerHandler({
    apps: createAppStore(dynamoDocument, env.APPS_TABLE),
    keys: createKeyStore(dynamoDocument, env.KEYS_TABLE),
  }),
);
