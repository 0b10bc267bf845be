/** A scheduled job on AWS: its composition's run on each EventBridge invocation. */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import type { ComposedRow, Composition } from "../functions/adapters.ts";
import type { JobRun } from "../jobs/job-run.ts";
import { AWS_RUNTIME, awsAdapters, type Providers } from "./lambda.ts";
import { logged } from "./logged.ts";

export const lambdaJob = async <R extends ComposedRow, T>(
  fn: Composition<R, JobRun<T>>,
  providers: Providers<R>,
) => {
  const job = fn.compose(await awsAdapters(fn.row, providers), AWS_RUNTIME);
  return logged(
    middy().handler(async (_event: unknown, context: Context): Promise<T> => {
      const outcome = await job.run({ remainingMs: () => context.getRemainingTimeInMillis() });
      job.report?.(outcome);
      return outcome;
    }),
  );
};
