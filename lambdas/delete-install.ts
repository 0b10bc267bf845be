/** `DELETE /v1/installs/{service_id}` on AWS: records the deletion request (a tombstone). */
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { lambda } from "../src/aws/lambda.ts";
import { deleteInstallFunction } from "../src/http/handlers/deletions.ts";

export const handler = await lambda(deleteInstallFunction, {
  tables: { deletions: createDeletionStore },
});
