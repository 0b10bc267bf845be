/**
 * Clicks per link, counted by DuckDB from the lake's touches table: every tap through the link
 * host that was counted, as delivered so far (the embedded stream delivers every few seconds).
 * It reads Parquet files only, which delivery renames into place whole, so it may run beside
 * the service (the CLI's count). One taken in the milliseconds in which the service's
 * compaction puts a merge in place may miss that merge's rows or fail; run again, it counts
 * them. The service's own count takes the lake's read side (reports.ts).
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { TOUCHES_TABLE } from "../../lake/lake-tables.ts";
import { linkClicksQuery } from "../../lake/link-clicks-query.ts";
import { appFilesRelation, appParquetFiles } from "./lake-sql.ts";

export const countLinkClicks = async (
  lakeDir: string,
  appId: string,
): Promise<Map<string, number>> => {
  if ((await appParquetFiles(lakeDir, TOUCHES_TABLE, appId)).length === 0) return new Map();
  const duckdb = await DuckDBInstance.create(":memory:");
  try {
    const connection = await duckdb.connect();
    const reader = await connection.runAndReadAll(
      linkClicksQuery(appFilesRelation(lakeDir, TOUCHES_TABLE, appId), appId),
    );
    const counts = new Map<string, number>();
    for (const row of reader.getRowObjects()) {
      counts.set(String(row.deeplink_id), Number(row.clicks));
    }
    connection.closeSync();
    return counts;
  } finally {
    duckdb.closeSync();
  }
};
