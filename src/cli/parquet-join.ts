/**
 * Joins Parquet files of one schema into one file by copying their row groups as they are: each
 * file's column chunks are appended byte for byte, and one footer lists every row group, its
 * offsets moved by where its bytes now start. Nothing is decoded or encoded again, so joining
 * the pages of a whole window costs about as much as copying them, where reading and writing
 * them again through a query engine cost more than making the pages.
 *
 * The footer is hyparquet's reading of each file's, written back by hyparquet-writer, without
 * the column chunks' min/max statistics (they would be converted to values and back, and a
 * reader only loses the row groups it could have skipped with them) or anything else optional
 * a reader does not need to find and decode the chunks.
 */
import { open, readFile } from "node:fs/promises";
import { type ColumnChunk, type FileMetaData, parquetMetadata, type RowGroup } from "hyparquet";
import { ByteWriter } from "hyparquet-writer";
import { writeMetadata } from "hyparquet-writer/src/metadata.js";

const MAGIC = Buffer.from("PAR1");
/** A footer's length and the closing magic. */
const TAIL_BYTES = 8;

const moved = (offset: bigint | undefined, by: bigint): bigint | undefined =>
  offset === undefined ? undefined : offset + by;

/**
 * A window's pages hold thousands of row groups of a few dozen columns each, all listed in the
 * footer at once: each chunk keeps only what the footer needs (no statistics, no page encoding
 * counts), and the lists every page repeats (a column's path and encodings) are shared.
 */
const compact = (shared: Map<string, string[]>) => {
  const one = (list: string[]) => {
    const key = list.join("\u0000");
    const known = shared.get(key);
    if (known) return known;
    shared.set(key, list);
    return list;
  };
  return (chunk: ColumnChunk, by: bigint): ColumnChunk => {
    const meta = chunk.meta_data;
    return {
      file_offset: chunk.file_offset + by,
      offset_index_offset: moved(chunk.offset_index_offset, by),
      offset_index_length: chunk.offset_index_length,
      column_index_offset: moved(chunk.column_index_offset, by),
      column_index_length: chunk.column_index_length,
      meta_data: meta && {
        type: meta.type,
        encodings: one(meta.encodings) as typeof meta.encodings,
        path_in_schema: one(meta.path_in_schema),
        codec: meta.codec,
        num_values: meta.num_values,
        total_uncompressed_size: meta.total_uncompressed_size,
        total_compressed_size: meta.total_compressed_size,
        data_page_offset: meta.data_page_offset + by,
        index_page_offset: moved(meta.index_page_offset, by),
        dictionary_page_offset: moved(meta.dictionary_page_offset, by),
        bloom_filter_offset: moved(meta.bloom_filter_offset, by),
        bloom_filter_length: meta.bloom_filter_length,
      },
    };
  };
};

const schemaText = (metadata: FileMetaData) =>
  JSON.stringify(metadata.schema, (_key, value) =>
    typeof value === "bigint" ? value.toString() : value,
  );

/** Writes `files`' rows, in order, into `output`; returns how many. */
export const joinParquet = async (files: readonly string[], output: string): Promise<number> => {
  const out = await open(output, "w");
  try {
    let position = 0;
    const append = async (bytes: Uint8Array) => {
      await out.write(bytes);
      position += bytes.length;
    };
    await append(MAGIC);
    let first: FileMetaData | undefined;
    let firstSchema = "";
    const groups: RowGroup[] = [];
    const chunk = compact(new Map());
    let rows = 0n;
    for (const file of files) {
      const bytes = await readFile(file);
      const metadata = parquetMetadata(bytes, { geoparquet: false });
      const schema = schemaText(metadata);
      if (first === undefined) {
        first = metadata;
        firstSchema = schema;
      } else if (schema !== firstSchema) {
        throw new Error(`${file} has another schema than ${files[0]}`);
      }
      const footer = bytes.readUInt32LE(bytes.length - TAIL_BYTES);
      // Its chunks move from just after its magic to where the output is now.
      const by = BigInt(position - MAGIC.length);
      await append(bytes.subarray(MAGIC.length, bytes.length - TAIL_BYTES - footer));
      for (const group of metadata.row_groups) {
        groups.push({
          num_rows: group.num_rows,
          total_byte_size: group.total_byte_size,
          total_compressed_size: group.total_compressed_size,
          file_offset: moved(group.file_offset, by),
          columns: group.columns.map((column) => chunk(column, by)),
        });
      }
      rows += metadata.num_rows;
    }
    if (first === undefined) throw new Error("There are no Parquet files to join");
    const footer = new ByteWriter();
    writeMetadata(footer, { ...first, num_rows: rows, row_groups: groups });
    await append(new Uint8Array(footer.getBuffer()));
    await append(MAGIC);
    return Number(rows);
  } finally {
    await out.close();
  }
};
