/** A queue-driven worker on AWS: its composition behind SQS with partial batch failures. */

import { createSqsWorkerHandler } from "../adapters/sqs/worker-handler.ts";
import type { ComposedRow, Composition } from "../functions/adapters.ts";
import type { WorkHandler } from "../ports/work-queue.ts";
import type { WorkerDefinition } from "../workers/worker.ts";
import { AWS_RUNTIME, awsAdapters, type Providers } from "./lambda.ts";
import { logged } from "./logged.ts";

export const lambdaWorker = async <R extends WorkerDefinition<T> & ComposedRow, T>(
  fn: Composition<R, WorkHandler<T>>,
  providers: Providers<R>,
) =>
  logged(
    createSqsWorkerHandler(fn.row, fn.compose(await awsAdapters(fn.row, providers), AWS_RUNTIME)),
  );
