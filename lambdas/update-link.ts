/** `PATCH /v1/links/{deeplink_id}` on AWS: disables or enables a link. */
import { createLinkStore } from "../src/adapters/dynamodb/links.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { updateLinkFunction } from "../src/http/handlers/links.ts";

export const handler = await lambda(updateLinkFunction, {
  tables: { apps: createAppStore, links: createLinkStore },
});
