/**
 * Rewriting a Parquet file without some of its rows, keeping its schema exactly: the schema
 * elements are the file's own (names, physical types, converted and logical types,
 * repetition, field ids), its key-value metadata is kept (Hive's `writer.time.zone` decides how
 * Hive reads INT96), and values are read as stored (raw bytes, raw integers) so they are
 * written back bit for bit. The result is read back and compared before it is used.
 *
 * INT96 (Hive's timestamps, which Firehose's Parquet conversion writes): hyparquet-writer has
 * no INT96 encoder. A 12-byte FIXED_LEN_BYTE_ARRAY has the same PLAIN and dictionary encoding
 * (12 bytes per value, no length prefix), so such columns are written as that and the footer is
 * relabelled INT96 before it is written, without statistics (INT96 has no defined sort order;
 * parquet-mr does not write them either). Any type outside the list below is refused.
 */
import {
  type AsyncBuffer,
  type FileMetaData,
  type ParquetParsers,
  parquetMetadataAsync,
  parquetRead,
  type SchemaElement,
} from "hyparquet";
import { ByteWriter, type ColumnSource, ParquetWriter } from "hyparquet-writer";
import { memoryAsyncBuffer } from "./s3-buffer.ts";

/** A file this module cannot rewrite without changing it. */
export class UnsupportedParquetError extends Error {
  override readonly name = "UnsupportedParquetError";
}

const raw = <T>(value: T): T => value;

/** Every value as stored: integers for dates and timestamps, bytes for strings. */
const RAW: ParquetParsers = {
  timestampFromMilliseconds: raw,
  timestampFromMicroseconds: raw,
  timestampFromNanoseconds: raw,
  dateFromDays: raw,
  stringFromBytes: raw,
  jsonFromBytes: raw,
  geometryFromBytes: raw,
  geographyFromBytes: raw,
  uuidFromBytes: raw,
};

export type Columns = ReadonlyMap<string, readonly unknown[]>;

export const readMetadata = (file: AsyncBuffer): Promise<FileMetaData> =>
  parquetMetadataAsync(file, { parsers: RAW, geoparquet: false });

/** The named columns (all by default) of every row, nulls as null. */
export const readColumns = async (
  file: AsyncBuffer,
  metadata: FileMetaData,
  columns?: readonly string[],
): Promise<Columns> => {
  const rows = Number(metadata.num_rows);
  const names = columns ?? metadata.schema.slice(1).map((e) => e.name);
  const out = new Map(names.map((name) => [name, new Array<unknown>(rows).fill(null)]));
  await parquetRead({
    file,
    metadata,
    columns: [...names],
    utf8: false,
    parsers: RAW,
    geoparquet: false,
    onChunk: ({ columnName, columnData, rowStart }) => {
      const target = out.get(columnName);
      if (!target) return;
      for (let i = 0; i < columnData.length; i++) target[rowStart + i] = columnData[i] ?? null;
    },
  });
  return out;
};

/**
 * The (physical type, annotation) pairs whose values and annotations this module reads and
 * writes unchanged. Not the INTEGER logical type: hyparquet-writer 0.17 encodes its bitWidth
 * as a thrift i32 where the format says i8, a footer strict readers (DuckDB) reject.
 */
const SUPPORTED: Record<string, { converted: readonly string[]; logical: readonly string[] }> = {
  BOOLEAN: { converted: [], logical: [] },
  INT32: { converted: ["INT_8", "INT_16", "INT_32", "DATE"], logical: ["DATE"] },
  INT64: {
    converted: ["INT_64", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS"],
    logical: ["TIMESTAMP"],
  },
  INT96: { converted: [], logical: [] },
  FLOAT: { converted: [], logical: [] },
  DOUBLE: { converted: [], logical: [] },
  BYTE_ARRAY: { converted: ["UTF8"], logical: ["STRING"] },
};

/** Throws unless every column is a flat, non-repeated column of a supported type. */
export const assertRewritable = (schema: readonly SchemaElement[], where: string): void => {
  const [root, ...leaves] = schema;
  const refuse = (why: string): never => {
    throw new UnsupportedParquetError(`${where}: cannot rewrite it unchanged: ${why}`);
  };
  if (!root || root.num_children !== leaves.length) refuse("its schema is not flat");
  for (const e of leaves) {
    const supported = e.type ? SUPPORTED[e.type] : undefined;
    const logical = e.logical_type?.type;
    // A group has no physical type, so `supported` is undefined for one.
    if (
      !supported ||
      e.repetition_type === "REPEATED" ||
      (e.converted_type !== undefined && !supported.converted.includes(e.converted_type)) ||
      (logical !== undefined && !supported.logical.includes(logical))
    ) {
      const annotation = [e.converted_type, logical].filter(Boolean).join("/");
      refuse(`column ${e.name} is ${e.repetition_type ?? ""} ${e.type ?? "a group"} ${annotation}`);
    }
  }
};

const NANOS_PER_DAY = 86_400_000_000_000n;
const JULIAN_UNIX_EPOCH = 2_440_588n;

/** INT96 as Hive stores it: nanoseconds of the day (8 bytes LE), then the Julian day (4 bytes LE). */
export const int96Bytes = (nanosSinceEpoch: bigint): Uint8Array => {
  let days = nanosSinceEpoch / NANOS_PER_DAY;
  let nanos = nanosSinceEpoch - days * NANOS_PER_DAY;
  if (nanos < 0n) {
    nanos += NANOS_PER_DAY;
    days -= 1n;
  }
  const bytes = new Uint8Array(12);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, nanos, true);
  view.setUint32(8, Number(days + JULIAN_UNIX_EPOCH), true);
  return bytes;
};

const int96Column = (value: unknown): Uint8Array | null => {
  if (value === null) return null;
  if (typeof value !== "bigint") throw new UnsupportedParquetError(`INT96 value ${String(value)}`);
  return int96Bytes(value);
};

export interface FileLayout {
  readonly schema: readonly SchemaElement[];
  readonly keyValueMetadata?: FileMetaData["key_value_metadata"];
  /** Rows per row group. */
  readonly rowGroupSize: number;
}

/** A file's schema, key-value metadata and largest row group: what a rewrite keeps. */
export const layoutOf = (metadata: FileMetaData): FileLayout => ({
  schema: metadata.schema,
  keyValueMetadata: metadata.key_value_metadata,
  rowGroupSize: Math.max(1, ...metadata.row_groups.map((g) => Number(g.num_rows))),
});

/** Writes the rows at `keep` (indices into `columns`, all rows by default) in this layout. */
export const writeParquet = async (
  layout: FileLayout,
  columns: Columns,
  keep?: readonly number[],
): Promise<Uint8Array> => {
  const { schema } = layout;
  const int96 = new Set(schema.filter((e) => e.type === "INT96").map((e) => e.name));
  const sink = new ByteWriter();
  const writer = new ParquetWriter({
    writer: sink,
    schema: schema.map((e) =>
      int96.has(e.name) ? { ...e, type: "FIXED_LEN_BYTE_ARRAY", type_length: 12 } : e,
    ),
    codec: "SNAPPY",
    kvMetadata: layout.keyValueMetadata,
    createdBy: "attribution-service purge (hyparquet-writer)",
  });
  const columnData: ColumnSource[] = schema.slice(1).map((element) => {
    const values = columns.get(element.name);
    if (!values) throw new Error(`column ${element.name} was not read`);
    const kept = keep ? keep.map((i) => values[i] ?? null) : values.map((v) => v ?? null);
    return int96.has(element.name)
      ? { name: element.name, data: kept.map(int96Column), statistics: false }
      : { name: element.name, data: kept };
  });
  await writer.write({ columnData, rowGroupSize: layout.rowGroupSize });
  // The footer describes the file's own schema: INT96 columns were encoded as 12-byte arrays.
  writer.schema = [...schema];
  for (const group of writer.row_groups) {
    for (const chunk of group.columns) {
      const path = chunk.meta_data?.path_in_schema;
      if (chunk.meta_data && path?.length === 1 && int96.has(path[0] ?? "")) {
        chunk.meta_data.type = "INT96";
      }
    }
  }
  await writer.finish();
  return new Uint8Array(sink.getBuffer());
};

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

const sameValue = (a: unknown, b: unknown): boolean => {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(b);
  return Object.is(a, b);
};

/** Reads `bytes` back and throws unless they hold exactly the kept rows under the same schema. */
export const verifyRewrite = async (
  bytes: Uint8Array,
  original: FileMetaData,
  columns: Columns,
  keep: readonly number[],
  where: string,
): Promise<void> => {
  const file = memoryAsyncBuffer(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  );
  const written = await readMetadata(file);
  if (canonical(written.schema) !== canonical(original.schema)) {
    throw new UnsupportedParquetError(`${where}: the rewritten file's schema differs`);
  }
  if (Number(written.num_rows) !== keep.length) {
    throw new Error(
      `${where}: the rewritten file has ${written.num_rows} rows, not ${keep.length}`,
    );
  }
  const back = await readColumns(file, written);
  for (const [name, values] of columns) {
    const read = back.get(name) ?? [];
    keep.forEach((from, row) => {
      if (!sameValue(read[row], values[from])) {
        throw new UnsupportedParquetError(
          `${where}: column ${name} row ${row} changed in rewriting`,
        );
      }
    });
  }
};
