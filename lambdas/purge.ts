/**
 * The scheduled purge of deleted installs on AWS (an EventBridge schedule, not an API route):
 * completes every deletion request old enough (see src/adapters/s3-lake/purge-job.ts).
 */
import middy from "@middy/core";
import { createS3PurgeJob } from "../src/adapters/s3-lake/purge-job.ts";
import { parseEnv, purgeEnv } from "../src/config/aws-env.ts";
import { logger } from "../src/logging/logger.ts";
import { dynamoDocument, s3 } from "./clients.ts";
import { logged } from "./logged.ts";

// At start-up, so a bad deployment fails on its first cold start, naming the variable.
const env = parseEnv(purgeEnv, process.env);

const run = createS3PurgeJob({ doc: dynamoDocument, s3, env });

export const handler = logged(
  middy().handler(async (): Promise<{ completed: number }> => {
    const completed = await run();
    logger.info("purge deletions", { completed });
    return { completed };
  }),
);
