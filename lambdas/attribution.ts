/** `GET /v1/installs/{service_id}/attribution` on AWS: the SDKs' attribution parameters. */
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { lambda } from "../src/aws/lambda.ts";
import { attributionFunction } from "../src/http/handlers/install-attribution.ts";

export const handler = await lambda(attributionFunction, {
  tables: {
    apps: createAppStore,
    attributions: createAttributionStore,
    deletions: createDeletionStore,
  },
});
