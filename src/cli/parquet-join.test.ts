import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinParquet } from "./parquet-join.ts";

/** Rows [from, to) of a table with the kinds of columns an export page has, nulls included. */
const rows = (from: number, to: number) => `
  SELECT 'e-' || i AS event_id,
    TIMESTAMP '2026-11-01' + to_seconds(i) AS event_time,
    CASE WHEN i % 3 = 0 THEN NULL ELSE i * 1.5 END AS revenue,
    CASE WHEN i % 5 = 0 THEN '' WHEN i % 7 = 0 THEN NULL ELSE 'name ' || (i % 4) END AS name,
    CAST(i AS INTEGER) AS level
  FROM range(${from}, ${to}) AS r(i)`;

describe("joining Parquet files by their row groups", () => {
  let dir: string;
  let duckdb: DuckDBInstance;
  let connection: DuckDBConnection;
  const all = async (sql: string) => (await connection.runAndReadAll(sql)).getRowsJS();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "parquet-join-"));
    duckdb = await DuckDBInstance.create(":memory:");
    connection = await duckdb.connect();
  });

  afterAll(async () => {
    connection.closeSync();
    duckdb.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it("holds every row of the files, in their order, as DuckDB and hyparquet read them", async () => {
    // Pages of different sizes, one of several row groups, one with a single row.
    const ranges: [number, number, string][] = [
      [0, 700, "ROW_GROUP_SIZE 2048"],
      [700, 5000, "ROW_GROUP_SIZE 2048"],
      [5000, 5001, "COMPRESSION uncompressed"],
      [5001, 6000, "COMPRESSION snappy"],
    ];
    const files: string[] = [];
    for (const [from, to, options] of ranges) {
      const file = join(dir, `page-${from}.parquet`);
      await connection.run(`COPY (${rows(from, to)}) TO '${file}' (FORMAT parquet, ${options})`);
      files.push(file);
    }
    const output = join(dir, "joined.parquet");
    expect(await joinParquet(files, output)).toBe(6000);

    const expected = await all(rows(0, 6000));
    expect(await all(`SELECT * FROM read_parquet('${output}')`)).toEqual(expected);
    // The footer lists each file's row groups in order, each where its bytes now are.
    const groups = await all(
      `SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata('${output}') ORDER BY 1`,
    );
    expect(groups.map(([, count]) => Number(count))).toEqual([700, 2048, 2048, 204, 1, 999]);
    const bytes = await readFile(output);
    const read = await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    });
    expect(read.map((row) => row.event_id)).toEqual(expected.map(([id]) => id));
    expect(read[4]).toMatchObject({ revenue: 6, name: "name 0", level: 4 });
    expect(read[0]).toMatchObject({ revenue: null, name: "" });

    // Every offset a row group and its chunks give moved as far as its pages did.
    const joined = parquetMetadata(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    );
    const sources = await Promise.all(
      files.map(async (file) => {
        const source = await readFile(file);
        return parquetMetadata(
          source.buffer.slice(source.byteOffset, source.byteOffset + source.byteLength),
        );
      }),
    );
    const before = sources.flatMap((source) => source.row_groups);
    expect(joined.row_groups).toHaveLength(before.length);
    for (const [index, group] of joined.row_groups.entries()) {
      const source = before[index];
      const moved = group.columns[0]?.meta_data?.data_page_offset ?? 0n;
      const by = moved - (source?.columns[0]?.meta_data?.data_page_offset ?? 0n);
      for (const [column, chunk] of group.columns.entries()) {
        const was = source?.columns[column];
        expect(chunk.file_offset - (was?.file_offset ?? 0n)).toBe(by);
        expect(
          (chunk.meta_data?.data_page_offset ?? 0n) - (was?.meta_data?.data_page_offset ?? 0n),
        ).toBe(by);
      }
      if (source?.file_offset !== undefined) {
        expect((group.file_offset ?? 0n) - source.file_offset).toBe(by);
      }
    }
  });

  it("refuses to join no file", async () => {
    await expect(joinParquet([], join(dir, "none.parquet"))).rejects.toThrow(
      "There are no Parquet files to join",
    );
  });

  it("refuses files of different schemas rather than write a file no reader can use", async () => {
    const a = join(dir, "a.parquet");
    const b = join(dir, "b.parquet");
    await connection.run(`COPY (${rows(0, 10)}) TO '${a}' (FORMAT parquet)`);
    await connection.run(`COPY (SELECT 1 AS other) TO '${b}' (FORMAT parquet)`);
    await expect(joinParquet([a, b], join(dir, "mixed.parquet"))).rejects.toThrow(/another schema/);
  });
});
