/** Reading a query's rows a chunk at a time: every row, or the query's error. */
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultRows } from "./result-rows.ts";

describe("a DuckDB query's rows, a chunk at a time", () => {
  let instance: DuckDBInstance;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(":memory:");
  });
  afterAll(() => instance.closeSync());

  it("reads every row of many chunks, each as the caller's row", async () => {
    const connection = await instance.connect();
    try {
      const rows = await resultRows(
        connection,
        "SELECT i, i * 2 AS twice FROM range(100000) t(i)",
        (values) => Number(values.twice),
      );
      expect(rows).toHaveLength(100_000);
      expect(rows.at(-1)).toBe(199_998);
    } finally {
      connection.closeSync();
    }
  });

  it("rejects a query that fails after its first rows, never a result cut short", async () => {
    const connection = await instance.connect();
    try {
      // The failure comes in a later part of the result, as a late branch of a report's query.
      const sql = `SELECT 'a' AS part, i AS n FROM range(100000) t(i)
        UNION ALL SELECT 'c' AS part, CASE WHEN i > 50 THEN error('late failure') END AS n
        FROM range(100) t(i)`;
      await expect(resultRows(connection, sql, (values) => values)).rejects.toThrow(/late failure/);
    } finally {
      connection.closeSync();
    }
  });
});
