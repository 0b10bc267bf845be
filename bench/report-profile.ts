/**
 * A report's query as the embedded service builds it (src/adapters/duckdb/reports.ts: the
 * window's days' files listed, every attributions file of the app), run alone under DuckDB's
 * profiler on an instance set as the service's reports instance is (src/embedded/runtime.ts:
 * ATTRIBUTION_REPORT_MEMORY, spilling to the data folder; on as many threads as asked): the
 * query's own time with no time limit, what it spilled, and the operators that took the most.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DuckDBInstance } from "@duckdb/node-api";
import { appParquetFiles, filesRelation } from "../src/adapters/duckdb/lake-sql.ts";
import { reportDayFiles } from "../src/adapters/duckdb/reports.ts";
import { embeddedConfig } from "../src/config/embedded.ts";
import { dataPaths } from "../src/embedded/data-dir.ts";
import { sqlString } from "../src/lake/export-query.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeTable,
  SESSIONS_TABLE,
  TOUCHES_TABLE,
} from "../src/lake/lake-tables.ts";
import { buildCohortQuery, cohortDaysOf } from "../src/reports/cohort-query.ts";
import { buildOverviewQuery, reportDays, touchDaysOf } from "../src/reports/queries.ts";

export interface OperatorTime {
  /** What the operator does, as the plan says it: `group by service_id, event_id`. */
  readonly what: string;
  readonly rows: number;
  readonly seconds: number;
}

export interface QueryProfile {
  readonly report: string;
  readonly threads: number;
  readonly seconds: number;
  /** The most the query wrote to DuckDB's spill files at once, and held in its buffers. */
  readonly spillBytes: number;
  readonly bufferBytes: number;
  /** The operators that took the most, most first. */
  readonly top: readonly OperatorTime[];
}

interface PlanNode {
  readonly operator_type?: string;
  readonly operator_timing?: number;
  readonly operator_cardinality?: number;
  readonly extra_info?: Record<string, string | string[]>;
  readonly children?: readonly PlanNode[];
}

const listOf = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : value.split(", ");

/** The operator in words, its positional columns (`#1`) named by its input's projection. */
const describe = (node: PlanNode): string => {
  const info = node.extra_info ?? {};
  const type = node.operator_type ?? "?";
  const input = listOf(node.children?.[0]?.extra_info?.Projections);
  const named = (columns: string[]) =>
    columns.map((c) => (/^#\d+$/.test(c) ? (input[Number(c.slice(1))] ?? c) : c)).join(", ");
  if (type === "TABLE_SCAN" || info.Function === "READ_PARQUET") {
    const files = listOf(info["Filename(s)"]);
    const table = /\/([a-z_]+)\/app_id=/.exec(files[0] ?? "")?.[1] ?? "?";
    const columns = listOf(info.Projections);
    const shown = columns.slice(0, 4).join(", ") + (columns.length > 4 ? ", …" : "");
    return `read ${table} (${info["Total Files Read"] ?? files.length} files): ${shown}`;
  }
  if (type === "HASH_GROUP_BY") return `group by ${named(listOf(info.Groups))}`;
  if (type === "HASH_JOIN") {
    return `${String(info["Join Type"] ?? "").toLowerCase()} join on ${String(info.Conditions ?? "")}`;
  }
  return type.toLowerCase();
};

const operators = (node: PlanNode): OperatorTime[] => [
  ...(node.operator_type
    ? [
        {
          what: describe(node),
          rows: node.operator_cardinality ?? 0,
          seconds: node.operator_timing ?? 0,
        },
      ]
    : []),
  ...(node.children ?? []).flatMap(operators),
];

/** The overview (or the cohorts report by country) of `from` to `to`, profiled. */
export const profileReport = async (
  dataDir: string,
  appId: string,
  report: "overview" | "cohorts",
  window: { from: string; to: string },
  options: { threads?: number; topOperators?: number; timeZone?: string } = {},
): Promise<QueryProfile> => {
  const { threads = 1, topOperators = 6, timeZone } = options;
  // The days of the app's time zone, read from the UTC days either side of them too.
  const days = reportDays("duckdb", timeZone);
  const cohortDays = cohortDaysOf(window.from, window.to);
  const paths = dataPaths(dataDir);
  const lakeDir = paths.lake;
  // The service's own: the partitions that may hold the days' rows.
  const dayFiles = (table: LakeTable, days: { from: string; to: string }) =>
    reportDayFiles(lakeDir, table, appId, days);
  const attributions = filesRelation(
    ATTRIBUTIONS_TABLE,
    await appParquetFiles(lakeDir, ATTRIBUTIONS_TABLE, appId),
  );
  const { from, to } = window;
  const exclude = { serviceIds: [] };
  const sql =
    report === "overview"
      ? buildOverviewQuery({
          dialect: "duckdb",
          appId,
          from,
          to,
          timeZone,
          sources: {
            events: await dayFiles(EVENTS_TABLE, days.utcDays(from, to)),
            attributions,
            touches: await dayFiles(TOUCHES_TABLE, touchDaysOf(from, to, days)),
          },
          exclude,
        })
      : buildCohortQuery({
          dialect: "duckdb",
          appId,
          from,
          to,
          groupBy: "country",
          filters: {},
          // The bench's app has no cost rows: the rows carry no cost keys.
          costKeys: [],
          timeZone,
          sources: {
            events: await dayFiles(EVENTS_TABLE, days.utcDays(cohortDays.from, cohortDays.to)),
            attributions,
            sessions: await dayFiles(SESSIONS_TABLE, days.utcDays(cohortDays.from, cohortDays.to)),
            touches: await dayFiles(TOUCHES_TABLE, days.utcDays(from, to)),
          },
          exclude,
        });
  const output = join(dataDir, `profile-${report}.json`);
  const instance = await DuckDBInstance.create(":memory:", {
    threads: String(threads),
    memory_limit: embeddedConfig(process.env).reportMemory,
    temp_directory: paths.duckdbTemp,
  });
  const connection = await instance.connect();
  try {
    await connection.run("SET enable_profiling = 'json'");
    await connection.run(`SET profiling_output = ${sqlString(output)}`);
    const started = performance.now();
    await connection.runAndReadAll(sql);
    const seconds = (performance.now() - started) / 1000;
    const plan = JSON.parse(await readFile(output, "utf8")) as PlanNode & {
      system_peak_temp_dir_size?: number;
      system_peak_buffer_memory?: number;
    };
    const top = operators(plan)
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, topOperators);
    return {
      report: timeZone ? `${report} in ${timeZone}` : report,
      threads,
      seconds,
      spillBytes: plan.system_peak_temp_dir_size ?? 0,
      bufferBytes: plan.system_peak_buffer_memory ?? 0,
      top,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(output, { force: true });
  }
};
