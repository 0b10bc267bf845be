/** `GET /api/v1/export` on AWS: Athena snapshots read from S3, streamed with Lambda response streaming. */
import { createAthenaQueryEngine } from "../src/adapters/athena/query-engine.ts";
import { createDeletionStore } from "../src/adapters/dynamodb/deletions.ts";
import { createSnapshotCatalog } from "../src/adapters/dynamodb/stores.ts";
import { functionEnv } from "../src/functions/env.ts";
import { createExportHandler } from "../src/http/handlers/export.ts";
import { routeOf } from "../src/http/routes.ts";
import { logger } from "../src/logging/logger.ts";
import { athena, dynamoDocument, s3 } from "./clients.ts";
import { logged } from "./logged.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = functionEnv(routeOf("export"));

const snapshots = createSnapshotCatalog(dynamoDocument, env.SNAPSHOTS_TABLE);

const engine = createAthenaQueryEngine({
  athena,
  s3,
  workGroup: env.ATHENA_WORKGROUP,
  database: env.GLUE_DATABASE,
  resultsBucket: env.RESULTS_BUCKET,
  // Pages are still served without checkpoints, only slower: worth a log line, not a failure.
  onCheckpointError: (error) => logger.warn("export page checkpoints unavailable", { error }),
});

export const handler = logged(
  createExportHandler(
    {
      engine,
      catalog: snapshots,
      deletions: createDeletionStore(dynamoDocument, env.DELETIONS_TABLE),
      snapshotTtlSeconds: env.SNAPSHOT_TTL_SECONDS,
    },
    { streamifyResponse: true },
  ),
);
