/** Fixtures and helpers shared by the format writers' tests (not used at run time). */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { DuckDBInstance } from "@duckdb/node-api";
import { COLUMN_NAMES, type ExportRecord } from "../../record/columns.ts";
import type { FormatWriter } from "./writer.ts";

// Derived from the column list, so a new column is null here too. The cast is the derivation's:
// Object.fromEntries cannot type each key.
export const ALL_NULL = Object.fromEntries(
  COLUMN_NAMES.map((name) => [name, null]),
) as ExportRecord;

export const ALL_SET: ExportRecord = {
  event_id: "0b6f4e8e-1c2d-4f5a-9b7c-3d2e1f0a9b8c",
  event_time: "2024-05-01T12:34:56.789Z",
  event_name: "af_purchase",
  service_id: "svc-main",
  media_source: "googleadwords_int",
  campaign_id: "cmp-42",
  campaign_name: "Spring Sale",
  adset_id: "as-7",
  adset_name: "Lookalike 1%",
  ad_id: "ad-99",
  ad_name: "Video A",
  matching_type: "id_matching",
  click_to_first_open_hours: 3,
  confidence_score: "high",
  country: "JP",
  os: "ios",
  app_id: "id123456789",
  app_name: "Puzzle Quest",
  install_type: "new_install",
  revenue: 4.99,
  currency: "USD",
  idfv: "6D92078A-8246-4BA4-AE5B-76104861E7DC",
  maid: "38400000-8cf0-11bd-b23e-10b96e40000d",
  customer_user_id: "user-1",
  revenue_usd: 4.99,
};

/** Strings every format must quote or escape, with edge-case numbers. */
export const TRICKY: ExportRecord = {
  ...ALL_SET,
  event_name: 'comma, and "double quotes"',
  campaign_name: "line one\nline two\r\nline three\rline four",
  adset_name: "tab\tinside\tvalue",
  ad_id: "=1+2",
  ad_name: `<tag attr="x">&amp; 'apostrophe' </tag>`,
  matching_type: "",
  click_to_first_open_hours: 2_147_483_647,
  confidence_score: "  padded  ",
  app_name: "パズル クエスト 🧩🚀 广告",
  customer_user_id: "emoji 👩‍👩‍👧 family",
  revenue: -12.345,
  revenue_usd: 0,
};

export const BIG_NUMBERS: ExportRecord = {
  ...ALL_SET,
  click_to_first_open_hours: -2_147_483_648,
  revenue: 9_007_199_254_740_991,
  revenue_usd: 1e-7,
};

/** U+0001 and U+0008 are not allowed anywhere in an XML 1.0 document. */
export const CONTROL_CHARS: ExportRecord = { ...ALL_SET, campaign_name: "bell\u0001here\u0008" };
export const CONTROL_CHARS_DROPPED = "bellhere";

export const RECORDS: readonly ExportRecord[] = [ALL_NULL, ALL_SET, TRICKY, BIG_NUMBERS];

/** A plausible, distinct record for bulk tests. */
export function recordAt(i: number): ExportRecord {
  return {
    ...ALL_SET,
    event_id: `evt-${i}`,
    campaign_name: i % 3 === 0 ? null : `Campaign "${i % 17}", wave ${i % 5}`,
    click_to_first_open_hours: i % 7 === 0 ? null : i % 240,
    revenue: i % 2 === 0 ? null : (i % 1000) / 8 - 50,
    revenue_usd: i / 4,
  };
}

export async function* source(records: Iterable<ExportRecord>): AsyncGenerator<ExportRecord> {
  yield* records;
}

export async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export interface StreamingProbe {
  output: Buffer;
  /** Rows the source had yielded when the first output chunk arrived. */
  rowsBeforeFirstChunk: number;
  /** Output bytes received before the source yielded its last row. */
  bytesBeforeLastRow: number;
}

/** Writes `count` rows, recording how far the source had got as output arrived. */
export async function probeStreaming(
  writer: FormatWriter,
  count = 10_000,
): Promise<StreamingProbe> {
  let yielded = 0;
  let received = 0;
  let rowsBeforeFirstChunk = -1;
  let bytesBeforeLastRow = -1;
  async function* rows(): AsyncGenerator<ExportRecord> {
    for (let i = 0; i < count; i++) {
      if (i === count - 1) bytesBeforeLastRow = received;
      yielded++;
      yield recordAt(i);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of writer.write(rows())) {
    if (rowsBeforeFirstChunk < 0) rowsBeforeFirstChunk = yielded;
    received += chunk.length;
    chunks.push(Buffer.from(chunk));
  }
  return { output: Buffer.concat(chunks), rowsBeforeFirstChunk, bytesBeforeLastRow };
}

export async function withTempFile<T>(
  name: string,
  content: Buffer,
  use: (path: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "export-formats-"));
  try {
    const path = join(dir, name);
    await writeFile(path, content);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface QueryResult {
  names: string[];
  types: string[];
  rows: Record<string, unknown>[];
}

/** Runs one query in a throwaway in-memory DuckDB; BIGINTs come back as numbers. */
export async function duckdb(sql: string): Promise<QueryResult> {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    const rows = reader
      .getRowObjectsJS()
      .map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]),
        ),
      );
    return {
      names: reader.columnNames(),
      types: reader.columnTypes().map((type) => type.toString()),
      rows,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

export const sqlString = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** Bytes as a stream of pieces of the given sizes, in turn (the last piece takes the rest). */
export const inPieces = (bytes: Buffer, sizes: readonly number[]): Readable => {
  const pieces: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes.length > 0 ? (sizes[i % sizes.length] as number) : bytes.length;
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(pieces);
};
