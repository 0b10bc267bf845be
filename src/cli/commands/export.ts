/**
 * Pages through a whole export window, every page after the first naming the first's snapshot
 * (so none repeats or skips an event, whoever else exports the window meanwhile), and writes
 * one file in the asked format.
 *
 * csv, tsv, ndjson and parquet pages are asked for in that format and joined as they are (a
 * csv or tsv page's header row dropped after the first page; parquet pages merged into one
 * file by DuckDB), two pages in flight, so nothing is decoded and encoded again here. That needs
 * the window's size (the snapshot-rows header). json, xml and xlsx, and a service that does not
 * send the size, are paged in json and written with the same writers the API uses.
 */
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { dirname, join as joinPath } from "node:path";
import { pipeline } from "node:stream/promises";
import { DuckDBInstance } from "@duckdb/node-api";
import { SingleBar } from "cli-progress";
import * as z from "zod";
import { type ExportFormat, FORMATS } from "../../export/formats/index.ts";
import { MAX_LIMIT, SNAPSHOT_HEADER, SNAPSHOT_ROWS_HEADER } from "../../export/params.ts";
import { sqlString } from "../../lake/export-query.ts";
import { exportRecordSchema } from "../../record/schema.ts";

const pageSchema = z.object({ data: z.array(exportRecordSchema), total_count: z.number() });

/** Pages requested ahead of the one being written: the service makes one while we write one. */
const PAGES_IN_FLIGHT = 2;

/** `2026-11-01`, an ISO 8601 time, or Unix seconds → Unix seconds. */
export const parseSince = (value: string): number => {
  if (/^\d+$/.test(value)) return Number(value);
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(ms))
    throw new Error(`--since must be a date, an ISO 8601 time or Unix seconds: ${value}`);
  return Math.floor(ms / 1000);
};

export interface ExportOptions {
  readonly url: string;
  readonly key: string;
  readonly since: number;
  readonly format: ExportFormat;
  readonly output: string;
  readonly pageSize?: number;
  readonly progress?: boolean;
}

/** How the pages of a format become one file without decoding them. */
type Join = "drop-header-line" | "concatenate" | "merge-parquet";

const JOINS: Partial<Record<ExportFormat, Join>> = {
  csv: "drop-header-line",
  tsv: "drop-header-line",
  ndjson: "concatenate",
  parquet: "merge-parquet",
};

const fetchPage = async (
  options: ExportOptions,
  format: ExportFormat,
  offset: number,
  snapshot: string | null,
): Promise<Response> => {
  const query = new URLSearchParams({
    timestamp: String(options.since),
    format,
    limit: String(options.pageSize ?? MAX_LIMIT),
    offset: String(offset),
    ...(snapshot === null ? {} : { snapshot }),
  });
  const response = await fetch(`${options.url}/api/v1/export?${query}`, {
    headers: { authorization: options.key },
  });
  if (!response.ok) {
    const body = await response.text();
    throw new Error(`Export failed with ${response.status}: ${body}`);
  }
  return response;
};

/** The body's bytes; the first line left out when `skipFirstLine`. */
async function* bodyOf(response: Response, skipFirstLine: boolean): AsyncGenerator<Uint8Array> {
  if (!response.body) return;
  let skipping = skipFirstLine;
  for await (const chunk of response.body) {
    if (!skipping) {
      yield chunk;
      continue;
    }
    const newline = chunk.indexOf(0x0a);
    if (newline < 0) continue;
    skipping = false;
    if (newline + 1 < chunk.length) yield chunk.subarray(newline + 1);
  }
}

const write = async (out: WriteStream, chunks: AsyncIterable<Uint8Array>) => {
  for await (const chunk of chunks) {
    if (!out.write(chunk)) await once(out, "drain");
  }
};

const close = async (out: WriteStream) => {
  out.end();
  await once(out, "finish");
};

/** The pages after the first, in order, each requested while the one before is written. */
async function* laterPages(
  options: ExportOptions,
  format: ExportFormat,
  snapshot: string,
  total: number,
) {
  const limit = options.pageSize ?? MAX_LIMIT;
  const offsets: number[] = [];
  for (let offset = limit; offset < total; offset += limit) offsets.push(offset);
  const inFlight: Promise<Response>[] = [];
  let next = 0;
  const request = () => {
    const offset = offsets[next++];
    if (offset !== undefined) {
      const page = fetchPage(options, format, offset, snapshot);
      // Awaited in turn below; a failure meanwhile is not an unhandled rejection.
      page.catch(() => undefined);
      inFlight.push(page);
    }
  };
  for (let i = 0; i < PAGES_IN_FLIGHT; i++) request();
  for (let index = 0; inFlight.length > 0; index++) {
    const page = inFlight.shift();
    if (!page) break;
    request();
    yield { response: await page, rows: Math.min(limit, total - (index + 1) * limit) };
  }
}

/** Merges Parquet files, in order, into one: DuckDB keeps the order of the listed files. */
const mergeParquet = async (files: readonly string[], output: string): Promise<number> => {
  const instance = await DuckDBInstance.create(":memory:", { memory_limit: "128MB" });
  const connection = await instance.connect();
  try {
    const result = await connection.run(
      `COPY (SELECT * FROM read_parquet([${files.map(sqlString).join(", ")}]))
       TO ${sqlString(output)} (FORMAT parquet, COMPRESSION snappy)`,
    );
    return Number(result.rowsChanged);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
};

/** The window in the pages' own format, joined; undefined when the service sent no size. */
const joinedExport = async (
  options: ExportOptions,
  how: Join,
  onPage: (rows: number, total: number) => void,
): Promise<number | undefined> => {
  const first = await fetchPage(options, options.format, 0, null);
  const snapshot = first.headers.get(SNAPSHOT_HEADER);
  const total = Number(first.headers.get(SNAPSHOT_ROWS_HEADER) ?? Number.NaN);
  if (snapshot === null || !Number.isSafeInteger(total)) {
    await first.body?.cancel();
    return undefined;
  }
  const limit = options.pageSize ?? MAX_LIMIT;
  const pages = laterPages(options, options.format, snapshot, total);
  if (how !== "merge-parquet") {
    const out = createWriteStream(options.output);
    try {
      await write(out, bodyOf(first, false));
      onPage(Math.min(limit, total), total);
      for await (const { response, rows } of pages) {
        await write(out, bodyOf(response, how === "drop-header-line"));
        onPage(rows, total);
      }
      await close(out);
    } catch (error) {
      out.destroy();
      throw error;
    }
    return total;
  }
  const dir = await mkdtemp(joinPath(dirname(options.output), ".export-pages-"));
  try {
    const files: string[] = [];
    const save = async (response: Response) => {
      const file = joinPath(dir, `${String(files.length).padStart(9, "0")}.parquet`);
      const out = createWriteStream(file);
      await write(out, bodyOf(response, false));
      await close(out);
      files.push(file);
    };
    await save(first);
    onPage(Math.min(limit, total), total);
    for await (const { response, rows } of pages) {
      await save(response);
      onPage(rows, total);
    }
    const merged = await mergeParquet(files, options.output);
    if (merged !== total) {
      throw new Error(`Export incomplete: ${merged} of the window's ${total} events arrived`);
    }
    return total;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

async function* jsonPages(options: ExportOptions, onPage: (rows: number) => void) {
  const limit = options.pageSize ?? MAX_LIMIT;
  let snapshot: string | null = null;
  for (let offset = 0; ; offset += limit) {
    const response = await fetchPage(options, "json", offset, snapshot);
    snapshot ??= response.headers.get(SNAPSHOT_HEADER);
    const page = pageSchema.parse(await response.json());
    onPage(page.data.length);
    yield* page.data;
    if (page.data.length < limit) return;
  }
}

export const exportCommand = async (options: ExportOptions): Promise<number> => {
  const bar = new SingleBar({
    format: "Exporting {bar} {value} events, {pages} pages",
    hideCursor: true,
    noTTYOutput: false,
  });
  let written = 0;
  let pageCount = 0;
  if (options.progress !== false) bar.start(1, 0, { pages: 0 });
  const onPage = (rows: number, total?: number) => {
    written += rows;
    pageCount += 1;
    // Without the window's size, the bar grows with each page until the last.
    bar.setTotal(total ?? written + (rows === (options.pageSize ?? MAX_LIMIT) ? rows : 0));
    bar.update(written, { pages: pageCount });
  };
  try {
    const how = JOINS[options.format];
    const joined = how === undefined ? undefined : await joinedExport(options, how, onPage);
    if (joined !== undefined) return joined;
    written = 0;
    pageCount = 0;
    await pipeline(
      FORMATS[options.format].write(jsonPages(options, (rows) => onPage(rows))),
      createWriteStream(options.output),
    );
    return written;
  } finally {
    bar.stop();
  }
};
