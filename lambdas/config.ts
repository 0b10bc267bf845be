/** `GET /v1/config` on AWS: the app's remote configuration from DynamoDB. */
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { functionEnv } from "../src/functions/env.ts";
import { createConfigHandler } from "../src/http/handlers/config.ts";
import { routeOf } from "../src/http/routes.ts";
import { dynamoDocument } from "./clients.ts";
import { logged } from "./logged.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = functionEnv(routeOf("config"));

export const handler = logged(
  createConfigHandler({ apps: createAppStore(dynamoDocument, env.APPS_TABLE) }),
);
