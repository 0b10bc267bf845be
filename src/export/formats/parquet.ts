import { Readable } from "node:stream";
import { ByteWriter, ParquetWriter, type SchemaElement } from "hyparquet-writer";
import {
  type ColumnName,
  EXPORT_COLUMNS,
  type ExportRecord,
  type ExportType,
} from "../../record/columns.ts";
import type { FormatWriter } from "./writer.ts";

/** Rows per row group: the writer holds at most one group in memory. */
export const ROW_GROUP_SIZE = 2048;

// INT32 matches the lake, whose integer columns are Glue `int` (src/lake/lake-tables.ts), so every
// value read from it fits; the library rejects anything outside int32 rather than wrapping it.
const ELEMENT: Record<ExportType, (name: string) => SchemaElement> = {
  string: (name) => ({
    name,
    type: "BYTE_ARRAY",
    converted_type: "UTF8",
    logical_type: { type: "STRING" },
    repetition_type: "OPTIONAL",
  }),
  integer: (name) => ({
    name,
    type: "INT32",
    converted_type: "INT_32",
    repetition_type: "OPTIONAL",
  }),
  number: (name) => ({ name, type: "DOUBLE", repetition_type: "OPTIONAL" }),
};

const SCHEMA: SchemaElement[] = [
  { name: "root", num_children: EXPORT_COLUMNS.length },
  ...EXPORT_COLUMNS.map((column) => ELEMENT[column.type](column.name)),
];

/**
 * Takes what the writer has encoded so far and empties its buffer for the next row group.
 * hyparquet-writer's ParquetWriter writes a file incrementally (one row group per write()
 * call, the footer in finish()) into a ByteWriter, and never reads back bytes it has
 * written: only offsets are kept, which keep counting across the reset. Its own node file
 * writer flushes the same way (resetting `index` after copying out).
 */
function takeBytes(sink: ByteWriter): Buffer {
  const bytes = Buffer.from(sink.buffer.slice(0, sink.index));
  sink.index = 0;
  return bytes;
}

/** One column of the row group being filled. */
interface PendingColumn {
  readonly name: ColumnName;
  readonly data: (string | number | null)[];
}

const emptyGroup = (): PendingColumn[] =>
  EXPORT_COLUMNS.map((column) => ({ name: column.name, data: [] }));

async function* encodeParquet(rows: AsyncIterable<ExportRecord>): AsyncGenerator<Buffer> {
  const sink = new ByteWriter();
  // Column statistics would halve the writer's speed, and a page file is read whole by its
  // consumer, which has no use for min/max pruning.
  const writer = new ParquetWriter({
    writer: sink,
    schema: SCHEMA,
    codec: "SNAPPY",
    statistics: false,
  });
  // Rows are transposed into columns as they arrive, so no row object outlives its group.
  let group = emptyGroup();
  let count = 0;
  const writeGroup = async () => {
    await writer.write({ columnData: group, rowGroupSize: count });
    group = emptyGroup();
    count = 0;
  };
  for await (const row of rows) {
    for (const column of group) column.data.push(row[column.name] ?? null);
    if (++count === ROW_GROUP_SIZE) {
      await writeGroup();
      yield takeBytes(sink);
    }
  }
  if (count > 0) await writeGroup();
  // With no rows this is still a valid file: the schema in the footer, zero row groups.
  await writer.finish();
  yield takeBytes(sink);
}

export const parquet: FormatWriter = {
  contentType: "application/vnd.apache.parquet",
  extension: "parquet",
  attachment: true,
  write: (rows) => Readable.from(encodeParquet(rows), { objectMode: false }),
  engineEncoding: { encoding: "parquet" },
};
