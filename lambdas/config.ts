/** `GET /v1/config` on AWS: the app's remote configuration from DynamoDB. */
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { configFunction } from "../src/http/handlers/config.ts";

export const handler = await lambda(configFunction, { tables: { apps: createAppStore } });
