/** `POST /v1/links` on AWS: makes a link for ads. */
import { createLinkStore } from "../src/adapters/dynamodb/links.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { createLinkFunction } from "../src/http/handlers/links.ts";

export const handler = await lambda(createLinkFunction, {
  tables: { apps: createAppStore, links: createLinkStore },
});
