/** `GET /.well-known/assetlinks.json` on the link host's API: Android App Links. */
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { assetLinksFunction } from "../src/http/handlers/link-host.ts";

export const handler = await lambda(assetLinksFunction, { tables: { apps: createAppStore } });
