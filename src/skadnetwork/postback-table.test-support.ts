/** The lake's `apple_postbacks` rows as a DuckDB table, as the report's query and the docs' read them. */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../lake/export-query.ts";
import { APPLE_POSTBACKS_TABLE } from "../lake/lake-tables.ts";
import type { LakeRecord } from "../ports/lake.ts";

const TYPES: Record<string, string> = { timestamp: "TIMESTAMP", int: "INTEGER", string: "VARCHAR" };
const COLUMNS = ["app_id", "dt", ...APPLE_POSTBACKS_TABLE.columns.map((column) => column.name)];

const literal = (value: unknown): string =>
  value === null || value === undefined
    ? "NULL"
    : typeof value === "number"
      ? String(value)
      : sqlString(String(value));

/** Table `name` of `rows` (`applePostbackRow`'s), each in the partition of its day received. */
export const createPostbackTable = async (
  connection: DuckDBConnection,
  name: string,
  rows: readonly LakeRecord[],
): Promise<void> => {
  const types = APPLE_POSTBACKS_TABLE.columns.map((c) => `${c.name} ${TYPES[c.type]}`);
  await connection.run(`CREATE TABLE ${name} (app_id VARCHAR, dt VARCHAR, ${types.join(", ")})`);
  for (const lakeRow of rows) {
    const receivedAt = String(lakeRow.received_at);
    const values: LakeRecord = {
      ...lakeRow,
      dt: receivedAt.slice(0, 10),
      received_at: receivedAt.replace("Z", ""),
    };
    await connection.run(
      `INSERT INTO ${name} (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => literal(values[c])).join(", ")})`,
    );
  }
};
