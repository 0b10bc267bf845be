/**
 * The daily rates job on AWS (an EventBridge schedule, not an API route): merges the ECB's
 * 90-day feed into the rate table the ingestion functions read (src/fx/refresh-rates.ts).
 */
import { lambdaJob } from "../src/aws/lambda-job.ts";
import { s3RatesJob } from "../src/aws/rates-job.ts";
import { fxRatesJob } from "../src/fx/refresh-rates.ts";

export const handler = await lambdaJob(fxRatesJob, { rates: s3RatesJob });
