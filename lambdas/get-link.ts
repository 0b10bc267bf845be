/** `GET /v1/links/{deeplink_id}` on AWS: one of the app's links. */
import { createLinkStore } from "../src/adapters/dynamodb/links.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { getLinkFunction } from "../src/http/handlers/links.ts";

export const handler = await lambda(getLinkFunction, {
  tables: { apps: createAppStore, links: createLinkStore },
});
