/** A DuckDB query's rows, read as the caller's own rows a chunk at a time. */
import type { DuckDBConnection } from "@duckdb/node-api";

/**
 * Runs `sql` whole (a query that fails anywhere rejects: a streamed result that fails after
 * its first chunk only ends, its rows cut short) and reads its chunks one at a time into
 * `rowOf`'s rows: the whole result as DuckDB's objects beside the caller's rows would hold the
 * rows twice at once (a cohorts report of 10 million events is some 70,000 rows).
 */
export const resultRows = async <T>(
  connection: DuckDBConnection,
  sql: string,
  rowOf: (values: Record<string, unknown>) => T,
): Promise<T[]> => {
  const result = await connection.run(sql);
  const rows: T[] = [];
  for await (const chunk of result.yieldRowObjectJs()) {
    for (const values of chunk) rows.push(rowOf(values));
  }
  return rows;
};
