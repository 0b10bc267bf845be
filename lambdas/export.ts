/** `GET /api/v1/export` on AWS: Athena snapshots read from S3, streamed with Lambda response streaming. */
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createSnapshotCatalog } from "../src/adapters/dynamodb/stores.ts";
import { athenaEngine } from "../src/aws/athena-engine.ts";
import { lambda } from "../src/aws/lambda.ts";
import { exportFunction } from "../src/http/handlers/export.ts";

export const handler = await lambda(exportFunction, {
  tables: { snapshots: createSnapshotCatalog, deletions: createDeletionStore },
  queries: athenaEngine,
});
