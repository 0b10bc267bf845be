/**
 * The reports on AWS: each one Athena query over the lake's Glue tables (partition projection
 * prunes them to the days the query names), its small CSV result read back from S3. The
 * installs to leave out go to the results bucket as a list Athena reads (exclusions.ts), as
 * the export's do; link clicks are the CLI's count (link-clicks.ts).
 */
import { createHash, randomUUID } from "node:crypto";
import type { AthenaClient } from "@aws-sdk/client-athena";
import type { S3Client } from "@aws-sdk/client-s3";
import {
  APPLE_POSTBACKS_TABLE,
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  SESSIONS_TABLE,
  TOUCHES_TABLE,
} from "../../lake/lake-tables.ts";
import type { ReportEngine } from "../../ports/reports.ts";
import type { ExportRecord } from "../../record/columns.ts";
import {
  buildRenamedCampaignsQuery,
  renamedCampaignsOf,
} from "../../reports/campaign-names-query.ts";
import { buildCohortQuery } from "../../reports/cohort-query.ts";
import { cohortRowOf } from "../../reports/cohorts.ts";
import { overviewReport, overviewRowOf } from "../../reports/overview.ts";
import { buildLatestEventsQuery, buildOverviewQuery } from "../../reports/queries.ts";
import { applePostbackGroupOf, buildSkadnetworkQuery } from "../../skadnetwork/report-query.ts";
import { uploadExclusion } from "./exclusions.ts";
import { athenaLinkClicks } from "./link-clicks.ts";
import { assertHeader, csvRows, toExportRecord } from "./result-csv.ts";
import { runQuery } from "./run-query.ts";
import { openObject, parseS3Uri } from "./s3-object.ts";

export interface AthenaReportOptions {
  readonly athena: AthenaClient;
  readonly s3: S3Client;
  readonly workGroup: string;
  /** The Glue database holding the lake tables. */
  readonly database: string;
  /** The bucket Athena writes results to, where the lists of installs to leave out go too. */
  readonly resultsBucket: string;
  /** First wait between status polls; it doubles up to 2 s. Default 250 ms. */
  readonly pollIntervalMs?: number;
  readonly now?: () => Date;
}

const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

export const createAthenaReportEngine = (options: AthenaReportOptions): ReportEngine => {
  const { athena, s3, workGroup, database, resultsBucket } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const now = options.now ?? (() => new Date());
  const table = (name: string) => `${quoteIdentifier(database)}.${quoteIdentifier(name)}`;
  const sources = {
    events: table(EVENTS_TABLE.name),
    attributions: table(ATTRIBUTIONS_TABLE.name),
    touches: table(TOUCHES_TABLE.name),
    sessions: table(SESSIONS_TABLE.name),
  };

  /** Where the query reads the installs to leave out (see exclusions.ts). */
  const excluded = (serviceIds: readonly string[]) =>
    uploadExclusion({ s3, resultsBucket, qualified: table }, serviceIds);

  /**
   * Runs a query and reads its result: the header's names, then each row's fields. The same
   * query asked again within a minute (a page of charts, a reload) joins the same run; a live
   * one (`fresh`) is run anew each time it is asked, on the lake as it is then.
   */
  const run = async function* (queryString: string, fresh = false) {
    const digest = createHash("sha256").update(queryString).digest("hex");
    const { location } = await runQuery(athena, {
      queryString,
      workGroup,
      database,
      idempotencyKey: fresh
        ? `reports/live/${randomUUID()}`
        : `reports/${now().toISOString().slice(0, 16)}/${digest}`,
      pollIntervalMs,
      fresh,
    });
    const { body } = await openObject(s3, parseS3Uri(location));
    yield* csvRows(body);
  };

  /** A query's rows, each read by its header's names. */
  const named = async <T>(
    query: string,
    rowOf: (values: Readonly<Record<string, unknown>>) => T,
    fresh = false,
  ): Promise<T[]> => {
    let header: readonly (string | null)[] | undefined;
    const rows: T[] = [];
    for await (const { fields } of run(query, fresh)) {
      if (header === undefined) {
        header = fields;
        continue;
      }
      const names = header;
      rows.push(rowOf(Object.fromEntries(fields.map((value, i) => [names[i], value]))));
    }
    return rows;
  };

  return {
    renamedCampaigns: async (query) =>
      renamedCampaignsOf(
        await named(
          buildRenamedCampaignsQuery({ ...query, dialect: "athena", touches: sources.touches }),
          (values) => values,
        ),
      ),

    // The report's query as asked of the engine, over the Glue tables, the installs left out
    // read from the list uploaded for them.
    overview: async (query) =>
      overviewReport(
        query,
        await named(
          buildOverviewQuery({
            ...query,
            dialect: "athena",
            sources,
            exclude: await excluded(query.excludeServiceIds),
          }),
          overviewRowOf,
        ),
      ),

    cohorts: async (query) =>
      named(
        buildCohortQuery({
          ...query,
          dialect: "athena",
          sources,
          exclude: await excluded(query.excludeServiceIds),
        }),
        cohortRowOf,
      ),

    skadnetwork: ({ appId, from, to }) =>
      named(
        buildSkadnetworkQuery({
          dialect: "athena",
          appId,
          from,
          to,
          source: table(APPLE_POSTBACKS_TABLE.name),
          now: now(),
        }),
        applePostbackGroupOf,
        true,
      ),

    async latestEvents({ appId, limit, today, excludeServiceIds }) {
      const query = buildLatestEventsQuery({
        dialect: "athena",
        appId,
        limit,
        today,
        sources,
        exclude: await excluded(excludeServiceIds),
      });
      const records: ExportRecord[] = [];
      let header = true;
      for await (const { fields } of run(query, true)) {
        if (header) {
          assertHeader(fields);
          header = false;
        } else {
          records.push(toExportRecord(fields));
        }
      }
      return records;
    },

    linkClicks: athenaLinkClicks({ athena, s3, workGroup, database, pollIntervalMs }),
  };
};
