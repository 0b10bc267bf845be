/** How the lake tables read and write in DuckDB, derived from the table definitions. */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { sqlString } from "../../lake/export-query.ts";
import { type LakeTable, type LakeType, PARTITION_KEYS } from "../../lake/lake-tables.ts";

export const DUCKDB_TYPES: Record<LakeType, string> = {
  string: "VARCHAR",
  int: "INTEGER",
  double: "DOUBLE",
  timestamp: "TIMESTAMP",
};

/** The folder of one table, laid out like the bucket: `<lake>/<table>/app_id=…/dt=…/`. */
export const tableDir = (lakeDir: string, table: LakeTable): string => `${lakeDir}/${table.name}`;

/** A typed relation with the table's columns and no rows, for an app with no files yet. */
export const emptyRelation = (table: LakeTable): string => {
  const columns = [...table.columns, ...PARTITION_KEYS].map(
    (c) => `CAST(NULL AS ${DUCKDB_TYPES[c.type]}) AS ${c.name}`,
  );
  return `(SELECT ${columns.join(", ")} WHERE false)`;
};

/** A partition's folder under a table's, in the Hive layout: `app_id=…`, then `dt=…` if given. */
export const partitionPath = (appId: string, dt?: string): string =>
  dt === undefined ? `app_id=${appId}` : join(`app_id=${appId}`, `dt=${dt}`);

/** The folder of one app's partitions of a table: `<lake>/<table>/app_id=…/`. */
export const appDir = (lakeDir: string, table: LakeTable, appId: string): string =>
  join(tableDir(lakeDir, table), partitionPath(appId));

/** The Parquet files anywhere under a folder; none when there is no such folder yet. */
export const parquetFilesUnder = async (dir: string): Promise<string[]> => {
  const names = await readdir(dir, { recursive: true }).catch(() => []);
  return names.filter((name) => name.endsWith(".parquet")).map((name) => join(dir, name));
};

/** The Parquet files of one app's partitions of a table. */
export const appParquetFiles = (lakeDir: string, table: LakeTable, appId: string) =>
  parquetFilesUnder(appDir(lakeDir, table, appId));

/**
 * `app_id` and `dt` read from a file's path: the app id as the text it is (DuckDB would make an
 * id of digits, hex or a date a number or a date), the day as a date.
 */
const HIVE_COLUMNS = "hive_partitioning = true, hive_types = {'app_id': VARCHAR}";

/** The Parquet files of one app's partitions, with `app_id` and `dt` read from the path. */
export const appFilesRelation = (lakeDir: string, table: LakeTable, appId: string): string =>
  `read_parquet(${sqlString(`${appDir(lakeDir, table, appId)}/*/*.parquet`)}, ${HIVE_COLUMNS}, union_by_name = true)`;

/**
 * Listed Parquet files of one table, with `app_id` and `dt` read from their paths: a query
 * over a window's days opens those days' files only, however much history the app has.
 */
export const filesRelation = (table: LakeTable, files: readonly string[]): string =>
  files.length === 0
    ? emptyRelation(table)
    : `read_parquet([${files.map(sqlString).join(", ")}], ${HIVE_COLUMNS}, union_by_name = true)`;

/**
 * A lake file as listed. A rewrite of the lake (a purge, a compaction) reads a file, writes
 * what replaces it beside, and puts that in place only if the file is still the one it read:
 * another rewrite that put a file at the same path, or removed it, meanwhile changes these.
 */
export interface Listed {
  readonly path: string;
  readonly size: number;
  readonly ino: number;
  readonly mtimeMs: number;
}

/** The file as it is now; undefined when there is none. */
export const listedFile = async (path: string): Promise<Listed | undefined> => {
  const info = await stat(path).catch(() => undefined);
  return info && { path, size: info.size, ino: info.ino, mtimeMs: info.mtimeMs };
};

/** Whether the file at the listed path is still the one listed. */
export const sameFile = async (file: Listed): Promise<boolean> => {
  const now = await listedFile(file.path);
  return now?.ino === file.ino && now.size === file.size && now.mtimeMs === file.mtimeMs;
};
