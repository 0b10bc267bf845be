/** The API's Lambda authorizer on AWS: API keys checked against DynamoDB. */
import { createAppStore, createKeyStore } from "../src/adapters/dynamodb/stores.ts";
import { authorizerEnv, parseEnv } from "../src/config/aws-env.ts";
import { createAuthorizerHandler } from "../src/http/handlers/authorizer.ts";
import { dynamoDocument } from "./clients.ts";
import { logged } from "./logged.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = parseEnv(authorizerEnv, process.env);

export const handler = logged(
  createAuthorizerHandler({
    apps: createAppStore(dynamoDocument, env.APPS_TABLE),
    keys: createKeyStore(dynamoDocument, env.KEYS_TABLE),
  }),
);
