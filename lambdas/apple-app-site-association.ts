/** `GET /.well-known/apple-app-site-association` on the link host's API: Universal Links. */
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { appleAppSiteAssociationFunction } from "../src/http/handlers/link-host.ts";

export const handler = await lambda(appleAppSiteAssociationFunction, {
  tables: { apps: createAppStore },
});
