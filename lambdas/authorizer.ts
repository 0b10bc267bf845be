/** The API's Lambda authorizer on AWS: API keys checked against DynamoDB. */
import { createDynamoStores } from "../src/adapters/dynamodb/stores.ts";
import { authorizerEnv, parseEnv } from "../src/config/aws-env.ts";
import { createAuthorizerHandler } from "../src/http/handlers/authorizer.ts";
import { dynamoDocument } from "./clients.ts";
import { NOT_GRANTED_TABLE } from "./tables.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = parseEnv(authorizerEnv, process.env);

const { apps, keys } = createDynamoStores(dynamoDocument, {
  apps: env.APPS_TABLE,
  keys: env.KEYS_TABLE,
  snapshots: NOT_GRANTED_TABLE,
});

export const handler = createAuthorizerHandler({ apps, keys });
