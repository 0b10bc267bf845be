/**
 * The reports on the embedded runtime: DuckDB over the lake folder's Parquet files, each query
 * opening the files of the days it asks for only (the partitions of the window, and for the
 * overview's deep link paths the touches of the days its installs' clicks may lie on). Lake
 * files are read under the read side of the lock a purge writes under, as snapshots are.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import {
  APPLE_POSTBACKS_TABLE,
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeTable,
  SESSIONS_TABLE,
  TOUCHES_TABLE,
} from "../../lake/lake-tables.ts";
import type { ReportEngine } from "../../ports/reports.ts";
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import {
  buildRenamedCampaignsQuery,
  renamedCampaignsOf,
} from "../../reports/campaign-names-query.ts";
import { buildCohortQuery, cohortDaysOf } from "../../reports/cohort-query.ts";
import { cohortRowOf } from "../../reports/cohorts.ts";
import { overviewReport, overviewRowOf } from "../../reports/overview.ts";
import {
  buildLatestEventsQuery,
  buildOverviewQuery,
  eventDaysOf,
  latestEventDays,
  partitionsOfDays,
  reportDays,
  touchDaysOf,
} from "../../reports/queries.ts";
import {
  applePostbackGroupOf,
  buildSkadnetworkQuery,
  skadnetworkDaysOf,
} from "../../skadnetwork/report-query.ts";
import { appDir, appParquetFiles, filesRelation, parquetFilesUnder } from "./lake-sql.ts";
import { countLinkClicks } from "./link-clicks.ts";
import type { ReadWriteLock } from "./read-write-lock.ts";
import { resultRows } from "./result-rows.ts";

export interface DuckDbReportOptions {
  readonly duckdb: DuckDBInstance;
  readonly lakeDir: string;
  /** The lock the purge replaces lake files under (see query-engine.ts). */
  readonly lakeFiles: ReadWriteLock;
}

/** An exported record from a row of the export's columns, as DuckDB's JS values give them. */
const exportRecordOf = (row: Readonly<Record<string, unknown>>): ExportRecord => {
  const record: Record<string, unknown> = {};
  for (const name of COLUMN_NAMES) {
    const value = row[name] ?? null;
    record[name] = typeof value === "bigint" ? Number(value) : value;
  }
  // The columns are the export query's, typed from EXPORT_COLUMNS as ExportRecord is.
  return record as ExportRecord;
};

/** A table's Parquet files that may hold the app's rows of the days `from` to `to`, as a relation. */
export const reportDayFiles = async (
  lakeDir: string,
  table: LakeTable,
  appId: string,
  days: { from: string; to: string },
): Promise<string> => {
  const { from, to } = partitionsOfDays(days.from, days.to);
  const app = appDir(lakeDir, table, appId);
  const names = (await readdir(app).catch(() => [])).filter(
    (name) => name.startsWith("dt=") && name >= `dt=${from}` && name <= `dt=${to}`,
  );
  const files = await Promise.all(names.map((name) => parquetFilesUnder(join(app, name))));
  return filesRelation(table, files.flat());
};

export const createDuckDbReportEngine = (options: DuckDbReportOptions): ReportEngine => {
  const { duckdb, lakeDir, lakeFiles } = options;

  const dayFiles = (table: LakeTable, appId: string, days: { from: string; to: string }) =>
    reportDayFiles(lakeDir, table, appId, days);

  /** A query's rows, each read as the report's own row (./result-rows.ts). */
  const rowsOf = <T>(query: () => Promise<string>, rowOf: (values: Record<string, unknown>) => T) =>
    lakeFiles.read(async () => {
      const connection = await duckdb.connect();
      try {
        return await resultRows(connection, await query(), rowOf);
      } finally {
        connection.closeSync();
      }
    });

  const attributionsOf = async (appId: string) =>
    filesRelation(ATTRIBUTIONS_TABLE, await appParquetFiles(lakeDir, ATTRIBUTIONS_TABLE, appId));

  return {
    async renamedCampaigns({ appId, from, to, timeZone }) {
      const days = reportDays("duckdb", timeZone);
      const rows = await rowsOf(
        async () =>
          buildRenamedCampaignsQuery({
            dialect: "duckdb",
            appId,
            from,
            to,
            timeZone,
            touches: await dayFiles(TOUCHES_TABLE, appId, touchDaysOf(from, to, days)),
          }),
        (values) => values,
      );
      return renamedCampaignsOf(rows);
    },

    async overview({ appId, from, to, timeZone, filters, excludeServiceIds, renamed }) {
      const days = reportDays("duckdb", timeZone);
      const rows = await rowsOf(
        async () =>
          buildOverviewQuery({
            dialect: "duckdb",
            appId,
            from,
            to,
            timeZone,
            filters,
            sources: {
              events: await dayFiles(EVENTS_TABLE, appId, eventDaysOf(from, to, days)),
              attributions: await attributionsOf(appId),
              touches: await dayFiles(TOUCHES_TABLE, appId, touchDaysOf(from, to, days)),
            },
            exclude: { serviceIds: excludeServiceIds },
            renamed,
          }),
        overviewRowOf,
      );
      return overviewReport({ from, to }, rows);
    },

    async cohorts(query) {
      const { appId, from, to, timeZone, groupBy, filters, costKeys, excludeServiceIds } = query;
      const local = reportDays("duckdb", timeZone);
      const cohortDays = cohortDaysOf(from, to);
      const days = local.utcDays(cohortDays.from, cohortDays.to);
      const rows = await rowsOf(
        async () =>
          buildCohortQuery({
            dialect: "duckdb",
            appId,
            from,
            to,
            timeZone,
            groupBy,
            filters,
            costKeys,
            sources: {
              events: await dayFiles(
                EVENTS_TABLE,
                appId,
                eventDaysOf(cohortDays.from, cohortDays.to, local),
              ),
              attributions: await attributionsOf(appId),
              sessions: await dayFiles(SESSIONS_TABLE, appId, days),
              touches: await dayFiles(TOUCHES_TABLE, appId, local.utcDays(from, to)),
            },
            exclude: { serviceIds: excludeServiceIds },
            renamed: query.renamed,
          }),
        cohortRowOf,
      );
      return rows;
    },

    async skadnetwork({ appId, from, to }) {
      const rows = await rowsOf(
        async () =>
          buildSkadnetworkQuery({
            dialect: "duckdb",
            appId,
            from,
            to,
            // The days either side too: a transaction's row is chosen among all of its copies.
            source: await dayFiles(APPLE_POSTBACKS_TABLE, appId, skadnetworkDaysOf(from, to)),
            now: new Date(),
          }),
        applePostbackGroupOf,
      );
      return rows;
    },

    async latestEvents({ appId, limit, today, excludeServiceIds }) {
      const { from, to } = latestEventDays(today);
      const rows = await rowsOf(
        async () =>
          buildLatestEventsQuery({
            dialect: "duckdb",
            appId,
            limit,
            today,
            sources: {
              events: await dayFiles(
                EVENTS_TABLE,
                appId,
                eventDaysOf(from, to, reportDays("duckdb")),
              ),
              attributions: await attributionsOf(appId),
            },
            exclude: { serviceIds: excludeServiceIds },
          }),
        exportRecordOf,
      );
      return rows;
    },

    // Under the read side too: a compaction's merge is put in place as several steps.
    linkClicks: (appId) => lakeFiles.read(() => countLinkClicks(lakeDir, appId)),
  };
};
