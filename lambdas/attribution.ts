/** `GET /v1/installs/{service_id}/attribution` on AWS: the SDKs' attribution parameters. */
import { createAttributionStore } from "../src/adapters/dynamodb/attributions.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { functionEnv } from "../src/functions/env.ts";
import { createAttributionHandler } from "../src/http/handlers/attribution.ts";
import { routeOf } from "../src/http/routes.ts";
import { dynamoDocument } from "./clients.ts";
import { logged } from "./logged.ts";

const env = functionEnv(routeOf("attribution"));

export const handler = logged(
  createAttributionHandler({
    apps: createAppStore(dynamoDocument, env.APPS_TABLE),
    attributions: createAttributionStore(dynamoDocument, env.ATTRIBUTIONS_TABLE),
    deletions: createDeletionStore(dynamoDocument, env.DELETIONS_TABLE),
    // Every read of a waiting request is a strongly consistent read billed on AWS: twice a
    // second keeps a 20 s wait to 40 of them.
    pollIntervalMs: 500,
  }),
);
