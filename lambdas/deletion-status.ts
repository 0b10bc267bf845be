/** `GET /v1/deletions/{request_id}` on AWS: a deletion request's progress. */
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { functionEnv } from "../src/functions/env.ts";
import { createDeletionHandlers } from "../src/http/handlers/deletions.ts";
import { routeOf } from "../src/http/routes.ts";
import { dynamoDocument } from "./clients.ts";
import { logged } from "./logged.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = functionEnv(routeOf("deletion-status"));

export const handler = logged(
  createDeletionHandlers({ deletions: createDeletionStore(dynamoDocument, env.DELETIONS_TABLE) })
    .deletionStatus,
);
