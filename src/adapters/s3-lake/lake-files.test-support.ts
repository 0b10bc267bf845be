/**
 * Lake files shaped like Firehose's: its Parquet conversion goes through Hive's Parquet SerDe
 * with the Glue table's schema, so every column is OPTIONAL under a `hive_schema` root, strings
 * are BYTE_ARRAY/UTF8, `int` INT32, `double` DOUBLE and `timestamp` INT96 (Hive's default).
 * The INT64 variant (TIMESTAMP_MICROS with the TIMESTAMP logical type, as DuckDB and Spark
 * write) is built with hyparquet-writer's own API, independently of the code under test.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import type { SchemaElement } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import type { LakeTable, LakeType } from "../../lake/lake-tables.ts";
import { readColumns, readMetadata, writeParquet } from "./parquet-rewrite.ts";
import { memoryAsyncBuffer } from "./s3-buffer.ts";

export type TimestampEncoding = "INT96" | "INT64";

/** A row as the tests see it: strings, numbers, and timestamps as nanoseconds since the epoch. */
export type LakeRow = Record<string, string | number | bigint | null>;

const element = (name: string, type: LakeType, timestamps: TimestampEncoding): SchemaElement => {
  const optional = { name, repetition_type: "OPTIONAL" } as const;
  switch (type) {
    case "string":
      return { ...optional, type: "BYTE_ARRAY", converted_type: "UTF8" };
    case "int":
      return { ...optional, type: "INT32" };
    case "double":
      return { ...optional, type: "DOUBLE" };
    case "timestamp":
      return timestamps === "INT96"
        ? { ...optional, type: "INT96" }
        : {
            ...optional,
            type: "INT64",
            converted_type: "TIMESTAMP_MICROS",
            logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MICROS" },
          };
  }
};

export const firehoseSchema = (
  table: LakeTable,
  timestamps: TimestampEncoding,
): SchemaElement[] => [
  { name: "hive_schema", num_children: table.columns.length },
  ...table.columns.map((c) => element(c.name, c.type, timestamps)),
];

/** Hive records the writer's time zone; a rewrite must keep it (it governs INT96 reads). */
export const HIVE_KV = [{ key: "writer.time.zone", value: "UTC" }];

const NANOS = 1_000_000_000n;
/** 2026-11-01T10:00:00Z plus `i` seconds and some nanoseconds, as nanoseconds. */
export const timestampAt = (i: number, timestamps: TimestampEncoding): bigint => {
  const nanos = (1_793_527_200n + BigInt(i)) * NANOS + BigInt(i % 7) * 1_001_000n;
  // INT64 micros cannot hold the last three digits.
  return timestamps === "INT96" ? nanos + BigInt(i % 3) : nanos;
};

/** Rows of a table, every fifth value of a column null, and a given install per row. */
export const lakeRows = (
  table: LakeTable,
  serviceIds: readonly string[],
  timestamps: TimestampEncoding,
  seed = 0,
): LakeRow[] =>
  serviceIds.map((serviceId, row) => {
    const i = row + seed;
    const values: LakeRow = {};
    table.columns.forEach((column, c) => {
      const isNull = (i + c) % 5 === 0;
      values[column.name] = isNull
        ? null
        : column.type === "string"
          ? `${column.name}-${i} ☕`
          : column.type === "int"
            ? i * 3 - 7
            : column.type === "double"
              ? i + 0.125
              : timestampAt(i, timestamps);
    });
    values.service_id = serviceId;
    return values;
  });

/** A Firehose-like Parquet file of these rows. */
export const lakeFile = async (
  table: LakeTable,
  rows: readonly LakeRow[],
  timestamps: TimestampEncoding,
  rowGroupSize: number,
): Promise<Uint8Array> => {
  const schema = firehoseSchema(table, timestamps);
  const column = (name: string) => rows.map((row) => row[name] ?? null);
  if (timestamps === "INT64") {
    const micros = (v: unknown) => (typeof v === "bigint" ? v / 1000n : v);
    const columnData = table.columns.map((c) => ({
      name: c.name,
      data: c.type === "timestamp" ? column(c.name).map(micros) : column(c.name),
    }));
    return new Uint8Array(
      parquetWriteBuffer({ columnData, schema, kvMetadata: HIVE_KV, rowGroupSize }),
    );
  }
  // hyparquet-writer has no INT96 of its own: the module under test writes it, and DuckDB
  // reading the expected timestamps back (purge.test.ts) is the independent check.
  const columns = new Map(table.columns.map((c) => [c.name, column(c.name)]));
  return writeParquet({ schema, keyValueMetadata: HIVE_KV, rowGroupSize }, columns);
};

const decoder = new TextDecoder("utf-8", { fatal: true });

/** A file's schema and rows as hyparquet reads them (strings decoded, timestamps in ns). */
export const readLakeFile = async (bytes: Uint8Array) => {
  const file = memoryAsyncBuffer(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  );
  const metadata = await readMetadata(file);
  const columns = await readColumns(file, metadata);
  const leaves = metadata.schema.slice(1);
  const rows: LakeRow[] = Array.from({ length: Number(metadata.num_rows) }, (_, row) =>
    Object.fromEntries(
      leaves.map((e) => {
        const value = columns.get(e.name)?.[row] ?? null;
        if (value instanceof Uint8Array) return [e.name, decoder.decode(value)];
        // INT64 micros as nanoseconds, like INT96 reads.
        if (typeof value === "bigint" && e.type === "INT64") return [e.name, value * 1000n];
        return [e.name, value as LakeRow[string]];
      }),
    ),
  );
  return { metadata, rows };
};

/**
 * Runs a DuckDB query over the bytes, `$file` in it standing for `read_parquet(<path>)` and
 * `$path` for the quoted path; rows as JS values.
 */
export const duckdbRows = async (bytes: Uint8Array, sql: string): Promise<unknown[][]> => {
  const dir = await mkdtemp(join(tmpdir(), "purge-duckdb-"));
  const path = join(dir, "file.parquet");
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    await writeFile(path, bytes);
    const quoted = `'${path.replaceAll("'", "''")}'`;
    const reader = await connection.runAndReadAll(
      sql.replaceAll("$file", `read_parquet(${quoted})`).replaceAll("$path", quoted),
    );
    return reader.getRowsJS();
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
};
