/** The dashboard's reports: Athena over the lake, briefly cached per execution environment. */
import { createAthenaReportEngine } from "../adapters/athena/reports.ts";
import { cachedReportEngine } from "../adapters/cache/cached-reports.ts";
import { athena, s3 } from "./clients.ts";
import { type Provider, variable } from "./provider.ts";

export const athenaReports: Provider = (env) => ({
  reports: cachedReportEngine(
    createAthenaReportEngine({
      athena,
      s3,
      workGroup: variable(env, "ATHENA_WORKGROUP"),
      database: variable(env, "GLUE_DATABASE"),
      resultsBucket: variable(env, "RESULTS_BUCKET"),
    }),
  ),
});
