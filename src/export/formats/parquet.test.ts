import { parquetMetadata } from "hyparquet";
import { describe, expect, it } from "vitest";
import { COLUMN_NAMES, EXPORT_COLUMNS, type ExportType } from "../../record/columns.ts";
import {
  ALL_SET,
  CONTROL_CHARS,
  collect,
  duckdb,
  probeStreaming,
  type QueryResult,
  RECORDS,
  recordAt,
  source,
  sqlString,
  withTempFile,
} from "./fixtures.test-support.ts";
import { parquet, ROW_GROUP_SIZE } from "./parquet.ts";

const read = (bytes: Buffer): Promise<QueryResult> =>
  withTempFile("page.parquet", bytes, (path) =>
    duckdb(`SELECT * FROM read_parquet(${sqlString(path)})`),
  );

/** The file's own footer, read with hyparquet (DuckDB already checks the data). */
const metadata = (bytes: Buffer) => parquetMetadata(bytes);

const DUCKDB_TYPE: Record<ExportType, string> = {
  string: "VARCHAR",
  integer: "INTEGER",
  number: "DOUBLE",
};

const PHYSICAL_TYPE: Record<ExportType, string> = {
  string: "BYTE_ARRAY",
  integer: "INT32",
  number: "DOUBLE",
};

describe("parquet writer", () => {
  it("round-trips every record through DuckDB with column order, types and nulls", async () => {
    const records = [...RECORDS, CONTROL_CHARS];
    const result = await read(await collect(parquet.write(source(records))));
    expect(result.names).toEqual(COLUMN_NAMES);
    expect(result.types).toEqual(EXPORT_COLUMNS.map((column) => DUCKDB_TYPE[column.type]));
    expect(result.rows).toEqual(records);
  });

  it("derives an all-optional schema from the columns and compresses with snappy", async () => {
    const meta = metadata(await collect(parquet.write(source(RECORDS))));
    const [root, ...fields] = meta.schema;
    expect(root?.num_children).toBe(EXPORT_COLUMNS.length);
    expect(fields.map((field) => field.name)).toEqual(COLUMN_NAMES);
    expect(fields.map((field) => field.type)).toEqual(
      EXPORT_COLUMNS.map((column) => PHYSICAL_TYPE[column.type]),
    );
    expect(fields.every((field) => field.repetition_type === "OPTIONAL")).toBe(true);
    for (const [i, column] of EXPORT_COLUMNS.entries()) {
      if (column.type === "string") {
        expect(fields[i]?.converted_type).toBe("UTF8");
        expect(fields[i]?.logical_type).toEqual({ type: "STRING" });
      }
    }
    const codecs = meta.row_groups.flatMap((group) =>
      group.columns.map((chunk) => chunk.meta_data?.codec),
    );
    expect(new Set(codecs)).toEqual(new Set(["SNAPPY"]));
  });

  it("writes a valid file with the schema and no rows for no rows", async () => {
    const output = await collect(parquet.write(source([])));
    const result = await read(output);
    expect(result.names).toEqual(COLUMN_NAMES);
    expect(result.types).toEqual(EXPORT_COLUMNS.map((column) => DUCKDB_TYPE[column.type]));
    expect(result.rows).toEqual([]);
    expect(metadata(output).num_rows).toBe(0n);
  });

  it("fails the stream rather than wrap an integer outside int32", async () => {
    const stream = parquet.write(source([{ ...ALL_SET, click_to_first_open_hours: 2 ** 31 }]));
    await expect(collect(stream)).rejects.toThrow(/int32/);
  });

  it("streams: one row group per ROW_GROUP_SIZE rows, sent as each fills", async () => {
    const probe = await probeStreaming(parquet);
    expect(probe.rowsBeforeFirstChunk).toBeLessThan(10_000);
    const meta = metadata(probe.output);
    const groups = meta.row_groups.map((group) => Number(group.num_rows));
    expect(groups).toEqual([...Array(4).fill(ROW_GROUP_SIZE), 10_000 - 4 * ROW_GROUP_SIZE]);
    // Every full row group had gone out before the source yielded its last row: the bytes
    // received by then reach the start of the last group.
    const lastGroupStart = Math.min(
      ...(meta.row_groups[4]?.columns ?? []).map((chunk) =>
        Number(chunk.meta_data?.dictionary_page_offset ?? chunk.meta_data?.data_page_offset),
      ),
    );
    expect(probe.bytesBeforeLastRow).toBeGreaterThanOrEqual(lastGroupStart);
    const result = await read(probe.output);
    expect(result.rows).toEqual(Array.from({ length: 10_000 }, (_, i) => recordAt(i)));
  });
});
