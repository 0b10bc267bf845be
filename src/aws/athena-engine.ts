/** The export's query engine: Athena over the lake, snapshots and results in S3. */
import { createAthenaQueryEngine } from "../adapters/athena/query-engine.ts";
import { logger } from "../logging/logger.ts";
import { athena, s3 } from "./clients.ts";
import { type Provider, variable } from "./provider.ts";

export const athenaEngine: Provider = (env) => ({
  engine: createAthenaQueryEngine({
    athena,
    s3,
    workGroup: variable(env, "ATHENA_WORKGROUP"),
    database: variable(env, "GLUE_DATABASE"),
    resultsBucket: variable(env, "RESULTS_BUCKET"),
    // Pages are still served without checkpoints, only slower: worth a log line, not a failure.
    onCheckpointError: (error) => logger.warn("export page checkpoints unavailable", { error }),
  }),
});
