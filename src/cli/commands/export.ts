/**
 * Pages through a whole export window, every page after the first naming the first's snapshot
 * (so none repeats or skips an event, whoever else exports the window meanwhile), and writes
 * one file in the asked format with the same writers the API uses.
 */
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { SingleBar } from "cli-progress";
import * as z from "zod";
import { type ExportFormat, FORMATS } from "../../export/formats/index.ts";
import { MAX_LIMIT, SNAPSHOT_HEADER } from "../../export/params.ts";
import { exportRecordSchema } from "../../record/schema.ts";

const pageSchema = z.object({ data: z.array(exportRecordSchema), total_count: z.number() });

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

async function* pages(options: ExportOptions, onPage: (rows: number) => void) {
  const limit = options.pageSize ?? MAX_LIMIT;
  let snapshot: string | null = null;
  for (let offset = 0; ; offset += limit) {
    const query = new URLSearchParams({
      timestamp: String(options.since),
      format: "json",
      limit: String(limit),
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
  let total = 0;
  let pageCount = 0;
  if (options.progress !== false) bar.start(1, 0, { pages: 0 });
  const rows = pages(options, (rowsInPage) => {
    total += rowsInPage;
    pageCount += 1;
    // The window's size is unknown until its last page, so the bar grows with each page.
    bar.setTotal(total + (rowsInPage === (options.pageSize ?? MAX_LIMIT) ? rowsInPage : 0));
    bar.update(total, { pages: pageCount });
  });
  try {
    await pipeline(FORMATS[options.format].write(rows), createWriteStream(options.output));
  } finally {
    bar.stop();
  }
  return total;
};
