/** `GET /v1/links` on AWS: the app's links, a page at a time. */
import { createLinkStore } from "../src/adapters/dynamodb/links.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { listLinksFunction } from "../src/http/handlers/links.ts";

export const handler = await lambda(listLinksFunction, {
  tables: { apps: createAppStore, links: createLinkStore },
});
