/** The API's Lambda authorizer on AWS: API keys checked against DynamoDB. */
import { createAppStore, createKeyStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { authorizerFunction } from "../src/http/handlers/authorizer.ts";

export const handler = await lambda(authorizerFunction, {
  tables: { apps: createAppStore, keys: createKeyStore },
});
