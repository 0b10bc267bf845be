/** `GET /v1/deletions/{request_id}` on AWS: a deletion request's progress. */
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { lambda } from "../src/aws/lambda.ts";
import { deletionStatusFunction } from "../src/http/handlers/deletions.ts";

export const handler = await lambda(deletionStatusFunction, {
  tables: { deletions: createDeletionStore },
});
