/** Rewriting Parquet files unchanged but for the rows dropped, or refusing to. */
import type { FileMetaData, SchemaElement } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { EVENTS_TABLE } from "../../lake/lake-tables.ts";
import { duckdbRows, firehoseSchema } from "./lake-files.test-support.ts";
import {
  assertRewritable,
  type FileLayout,
  int96Bytes,
  layoutOf,
  readColumns,
  readMetadata,
  UnsupportedParquetError,
  verifyRewrite,
  writeParquet,
} from "./parquet-rewrite.ts";
import { memoryAsyncBuffer } from "./s3-buffer.ts";

const fileOf = (bytes: Uint8Array) =>
  memoryAsyncBuffer(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  );

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("INT96 encoding", () => {
  it("stores nanoseconds of the day, then the Julian day, little-endian", () => {
    // 1970-01-01T00:00:00Z is Julian day 2440588 (0x253d8c).
    expect(hex(int96Bytes(0n))).toBe(`${"00".repeat(8)}8c3d2500`);
    // One nanosecond before: the day's last nanosecond (86,399,999,999,999 = 0x4e94914effff).
    expect(hex(int96Bytes(-1n))).toBe("ffff4e91944e00008b3d2500");
    // 2026-11-01T10:00:00.123456789Z
    const at = 1_793_527_200_123_456_789n;
    const view = new DataView(int96Bytes(at).buffer);
    expect(view.getBigUint64(0, true)).toBe(36_000_123_456_789n);
    expect(view.getUint32(8, true)).toBe(2_440_588 + 20_758);
  });
});

describe("what can be rewritten", () => {
  const leaf = (extra: Partial<SchemaElement>): SchemaElement[] => [
    { name: "root", num_children: 1 },
    { name: "c", repetition_type: "OPTIONAL", type: "INT32", ...extra },
  ];

  it("accepts Firehose's lake schemas with either timestamp encoding", () => {
    expect(() => assertRewritable(firehoseSchema(EVENTS_TABLE, "INT96"), "f")).not.toThrow();
    expect(() => assertRewritable(firehoseSchema(EVENTS_TABLE, "INT64"), "f")).not.toThrow();
  });

  it.each([
    ["a DECIMAL", leaf({ converted_type: "DECIMAL", scale: 2, precision: 9 })],
    ["a JSON string", leaf({ type: "BYTE_ARRAY", converted_type: "JSON" })],
    ["an unsigned integer", leaf({ converted_type: "UINT_32" })],
    // hyparquet-writer would write its bitWidth as an i32, which DuckDB's reader rejects.
    [
      "an INTEGER logical type",
      leaf({ logical_type: { type: "INTEGER", bitWidth: 8, isSigned: true } }),
    ],
    ["a fixed-length array", leaf({ type: "FIXED_LEN_BYTE_ARRAY", type_length: 16 })],
    ["a repeated column", leaf({ repetition_type: "REPEATED" })],
    [
      "a nested group",
      [
        { name: "root", num_children: 2 },
        { name: "g", repetition_type: "OPTIONAL", num_children: 1 },
        { name: "c", repetition_type: "OPTIONAL", type: "INT32" },
      ] as SchemaElement[],
    ],
    [
      "a root whose children are not its columns",
      [
        { name: "root", num_children: 2 },
        { name: "c", repetition_type: "OPTIONAL", type: "INT32" },
      ] as SchemaElement[],
    ],
  ])("refuses %s", (_, schema) => {
    expect(() => assertRewritable(schema, "s3://lake/f")).toThrow(UnsupportedParquetError);
    expect(() => assertRewritable(schema, "s3://lake/f")).toThrow(
      /^s3:\/\/lake\/f: cannot rewrite/,
    );
  });
});

describe("rewriting", () => {
  // Every supported annotation, required and optional, with field ids: all must survive.
  const schema: SchemaElement[] = [
    { name: "spark_schema", num_children: 9 },
    {
      name: "id",
      type: "BYTE_ARRAY",
      converted_type: "UTF8",
      logical_type: { type: "STRING" },
      repetition_type: "REQUIRED",
      field_id: 1,
    },
    { name: "flag", type: "BOOLEAN", repetition_type: "OPTIONAL", field_id: 2 },
    { name: "tiny", type: "INT32", converted_type: "INT_8", repetition_type: "OPTIONAL" },
    {
      name: "day",
      type: "INT32",
      converted_type: "DATE",
      logical_type: { type: "DATE" },
      repetition_type: "OPTIONAL",
    },
    { name: "ms", type: "INT64", converted_type: "TIMESTAMP_MILLIS", repetition_type: "OPTIONAL" },
    {
      name: "ns",
      type: "INT64",
      logical_type: { type: "TIMESTAMP", isAdjustedToUTC: false, unit: "NANOS" },
      repetition_type: "OPTIONAL",
    },
    { name: "ratio", type: "FLOAT", repetition_type: "OPTIONAL" },
    { name: "score", type: "DOUBLE", repetition_type: "REQUIRED" },
    { name: "blob", type: "BYTE_ARRAY", repetition_type: "OPTIONAL" },
  ];
  const rows = 12;
  const values = (i: number) => ({
    id: `r${i}`,
    flag: i % 3 === 0 ? null : i % 2 === 0,
    tiny: i % 4 === 0 ? null : -i,
    day: i % 5 === 0 ? null : 20_000 + i,
    ms: i % 6 === 0 ? null : 1_793_527_200_000n + BigInt(i),
    ns: i % 7 === 0 ? null : 1_793_527_200_000_000_001n + BigInt(i * 1_000_003),
    ratio: i % 2 ? null : i / 4,
    score: i === 3 ? Number.NaN : i === 4 ? -0 : i * 1.5,
    blob: i % 3 ? new Uint8Array([0xff, 0x00, i]) : null,
  });
  const input = () => {
    const data = Array.from({ length: rows }, (_, i) => values(i));
    const columnData = schema.slice(1).map((e) => ({
      name: e.name,
      data: data.map((row) => row[e.name as keyof typeof row]),
    }));
    return new Uint8Array(
      parquetWriteBuffer({
        columnData,
        schema,
        rowGroupSize: 5,
        kvMetadata: [{ key: "origin", value: "test" }],
      }),
    );
  };

  it("keeps the schema, the key-value metadata and every kept value bit for bit", async () => {
    const original = fileOf(input());
    const metadata = await readMetadata(original);
    const columns = await readColumns(original, metadata);
    const keep = [0, 2, 3, 4, 7, 11];
    const bytes = await writeParquet(layoutOf(metadata), columns, keep);
    await verifyRewrite(bytes, metadata, columns, keep, "f");

    const written = await readMetadata(fileOf(bytes));
    expect(written.schema).toEqual(metadata.schema);
    expect(written.key_value_metadata).toEqual([{ key: "origin", value: "test" }]);
    expect(written.row_groups.map((g) => g.num_rows)).toEqual([5n, 1n]);
    const back = await readColumns(fileOf(bytes), written);
    for (const [name, column] of columns) {
      expect(back.get(name), name).toEqual(keep.map((i) => column[i]));
    }
    expect(
      await duckdbRows(
        bytes,
        "SELECT id, typeof(tiny), typeof(day), typeof(ms), typeof(ns), isnan(score) FROM $file",
      ),
    ).toEqual([
      ["r0", "TINYINT", "DATE", "TIMESTAMP", "TIMESTAMP_NS", false],
      ["r2", "TINYINT", "DATE", "TIMESTAMP", "TIMESTAMP_NS", false],
      ["r3", "TINYINT", "DATE", "TIMESTAMP", "TIMESTAMP_NS", true],
      ["r4", "TINYINT", "DATE", "TIMESTAMP", "TIMESTAMP_NS", false],
      ["r7", "TINYINT", "DATE", "TIMESTAMP", "TIMESTAMP_NS", false],
      ["r11", "TINYINT", "DATE", "TIMESTAMP", "TIMESTAMP_NS", false],
    ]);
  });

  it("compresses with Snappy, as Firehose does", async () => {
    const original = fileOf(input());
    const metadata = await readMetadata(original);
    const bytes = await writeParquet(layoutOf(metadata), await readColumns(original, metadata));
    const written = await readMetadata(fileOf(bytes));
    const codecs = written.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec));
    expect(new Set(codecs)).toEqual(new Set(["SNAPPY"]));
  });

  it("refuses to write a column it was not given, or an INT96 value that is no integer", async () => {
    const original = fileOf(input());
    const metadata = await readMetadata(original);
    const columns = new Map(await readColumns(original, metadata));
    columns.delete("blob");
    await expect(writeParquet(layoutOf(metadata), columns)).rejects.toThrow(
      "column blob was not read",
    );
    const int96: FileLayout = {
      schema: [
        { name: "root", num_children: 1 },
        { name: "at", type: "INT96", repetition_type: "OPTIONAL" },
      ],
      rowGroupSize: 1,
    };
    await expect(writeParquet(int96, new Map([["at", [1_000]]]))).rejects.toThrow(
      UnsupportedParquetError,
    );
    expect(
      (await writeParquet(int96, new Map([["at", [1_000n, null]]]))).byteLength,
    ).toBeGreaterThan(0);
  });

  it("notices a rewrite that does not hold exactly the kept rows", async () => {
    const original = fileOf(input());
    const metadata = await readMetadata(original);
    const columns = await readColumns(original, metadata);
    const bytes = await writeParquet(layoutOf(metadata), columns, [0, 1]);
    await expect(verifyRewrite(bytes, metadata, columns, [0, 2], "f")).rejects.toThrow(
      /f: column id row 1 changed/,
    );
    await expect(verifyRewrite(bytes, metadata, columns, [0, 1, 2], "f")).rejects.toThrow(
      /has 2 rows, not 3/,
    );
    const other: FileMetaData = { ...metadata, schema: metadata.schema.slice(0, -1) };
    await expect(verifyRewrite(bytes, other, columns, [0, 1], "f")).rejects.toThrow(
      /schema differs/,
    );
  });
});
