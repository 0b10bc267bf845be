/**
 * Pages through a whole export window, every page after the first naming the first's snapshot
 * (so none repeats or skips an event, whoever else exports the window meanwhile), and writes
 * one file in the asked format.
 *
 * csv, tsv, ndjson and parquet pages are asked for in that format and joined as they are (a
 * csv or tsv page's header row dropped after the first page; parquet pages joined into one
 * file by copying their row groups), two pages in flight, so nothing is decoded and encoded again here. That needs
 * the window's size (the snapshot-rows header) or each page's (the page-rows header). json,
 * xml and xlsx, and a service that sends neither, are paged in json and written with the same
 * writers the API uses, through the snapshot the first page made.
 *
 * Whatever the format, the file is written beside the output and renamed onto it once whole
 * (../output-file.ts): an export that fails or is stopped leaves the output as it was.
 */
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { extname, join as joinPath } from "node:path";
import { json as readJson, text as readText } from "node:stream/consumers";
import { pipeline } from "node:stream/promises";
import { setFlagsFromString } from "node:v8";
import { SingleBar } from "cli-progress";
import { EXPORT_FORMATS, type ExportFormat } from "../../export/formats/names.ts";
import {
  MAX_LIMIT,
  MAX_TIMESTAMP,
  PAGE_ROWS_HEADER,
  SNAPSHOT_HEADER,
  SNAPSHOT_ROWS_HEADER,
} from "../../export/paging.ts";
import { isUtcDay } from "../../reports/days.ts";
import {
  abandon,
  mustNameAFile,
  onInterrupt,
  withScratchFolder,
  writeOutputFile,
} from "../output-file.ts";
import { answerOfText, refusalOf, retryHintOf } from "../service-answer.ts";
import { serviceUrl } from "../service-url.ts";
import { unreachable } from "../unreachable.ts";

/**
 * A json page's schema, and the formats' writers, are loaded by the exports that re-encode
 * pages only: csv, tsv, ndjson and parquet pages are joined as they come, and the command
 * starts sooner without them.
 */
const jsonPageSchema = async () => {
  const [z, { exportRecordSchema }] = await Promise.all([
    import("zod"),
    import("../../record/schema.ts"),
  ]);
  return z.object({ data: z.array(exportRecordSchema), total_count: z.number() });
};

/** Pages requested ahead of the one being written: the service makes one while we write one. */
const PAGES_IN_FLIGHT = 2;

/**
 * The ISO 8601 shapes `--since` takes: a day, or a day and a time (`T`, or a space as people
 * write one) to the minute or the second (with a fraction), with or without an offset (`Z`,
 * `+02:00`, `+0200`, `+02`). Anything else is refused rather than left to Date.parse, which reads
 * "Nov 1 2026" or "2026-11-01 10:00" in this machine's time zone.
 */
const SINCE =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?)?$/i;

/**
 * `2026-11-01`, an ISO 8601 time, or Unix seconds → Unix seconds. A day or a time that names no
 * offset is UTC, as the service's days are, whatever this machine's time zone: the time is
 * computed from its fields, never parsed by Date in the local zone.
 */
export const parseSince = (value: string): number => {
  const seconds = sinceSeconds(value);
  // The service's own bound, said here rather than as its 422 after the command has started.
  if (seconds > MAX_TIMESTAMP) {
    throw new Error(
      `--since must be at most ${MAX_TIMESTAMP} (${new Date(MAX_TIMESTAMP * 1000).toISOString().replace(".000", "")}), the service's last second: ${JSON.stringify(value)}`,
    );
  }
  return seconds;
};

const sinceSeconds = (value: string): number => {
  if (/^\d+$/.test(value)) return Number(value);
  const refused = () =>
    new Error(
      `--since must be a date (2026-11-01), an ISO 8601 time (2026-11-01T10:00 or 2026-11-01 10:00:00, UTC unless it names an offset such as Z or +02:00) or Unix seconds: ${JSON.stringify(value)}`,
    );
  const match = SINCE.exec(value);
  // A day Date would roll over (2026-02-30) is no day, as a time on it is none.
  if (!match || !isUtcDay(match[1] ?? "")) throw refused();
  const [
    ,
    day = "",
    hours = "0",
    minutes = "0",
    seconds = "0",
    ,
    sign,
    offsetHours,
    offsetMinutes,
  ] = match;
  const [hour, minute, second] = [Number(hours), Number(minutes), Number(seconds)];
  const [offsetHour, offsetMinute] = [Number(offsetHours ?? 0), Number(offsetMinutes ?? 0)];
  if (hour > 23 || minute > 59 || second > 59 || offsetHour > 23 || offsetMinute > 59) {
    throw refused();
  }
  const offset = (sign === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute) * 60;
  const midnight = Date.parse(`${day}T00:00:00Z`) / 1000;
  return midnight + hour * 3600 + minute * 60 + second - offset;
};

/**
 * The formats an output's extension names: an `-o events.csv` without `--format` is meant as
 * csv, not the API's default json under a .csv name. `.jsonl` is ndjson's other name.
 */
const FORMAT_OF_EXTENSION: ReadonlyMap<string, ExportFormat> = new Map([
  ...EXPORT_FORMATS.map((format) => [format, format] as const),
  ["jsonl", "ndjson"],
]);

/**
 * The format to write: `--format`, else the one `-o`'s extension names, else json. A `--format`
 * that another format's extension contradicts is refused: either way one of the two is wrong,
 * and the file would be opened as what its name says.
 */
export const exportFormatOf = (output: string, format?: ExportFormat): ExportFormat => {
  const named = FORMAT_OF_EXTENSION.get(extname(output).slice(1).toLowerCase());
  if (format === undefined) return named ?? "json";
  if (named !== undefined && named !== format) {
    throw new Error(
      `-o ${output} is named for ${named}, but --format is ${format}: name the file for ${format} (.${format}), or leave --format out to write ${named}.`,
    );
  }
  return format;
};

/** The rows of an xlsx sheet below its header row: 2^20 in all, in Excel and its readers. */
const XLSX_MAX_EVENTS = 1_048_576 - 1;

/** A window too large for one sheet, of `total` events when the service said how many. */
const tooManyForSheet = (total?: number) =>
  new Error(
    `The window holds ${total === undefined ? "more events" : `${total} events, more`} than the ${XLSX_MAX_EVENTS} an xlsx sheet holds below its header: export it as csv or parquet, or a shorter window (a later --since).`,
  );

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
type Join = "drop-header-line" | "concatenate" | "join-parquet";

const JOINS: Partial<Record<ExportFormat, Join>> = {
  csv: "drop-header-line",
  tsv: "drop-header-line",
  ndjson: "concatenate",
  parquet: "join-parquet",
};

/**
 * Keep-alive connections, one per page in flight. Pages come over node:http rather than
 * fetch: a page is megabytes, and fetch's web streams cost the CLI several times the CPU
 * of Node's own for each of them.
 */
const agentFor = (url: string) =>
  new URL(url).protocol === "https:"
    ? new HttpsAgent({ keepAlive: true, maxSockets: PAGES_IN_FLIGHT })
    : new HttpAgent({ keepAlive: true, maxSockets: PAGES_IN_FLIGHT });

type Connection = ExportOptions & { readonly agent: HttpAgent };

/** The API's parameters the flags give, named as the flags in what the service refuses. */
const FLAG_OF_PARAMETER: ReadonlyMap<string, string> = new Map([
  ["timestamp", "--since"],
  ["limit", "--page-size"],
  ["format", "--format"],
]);
const PARAMETER_NAMED = new RegExp(`(^|; )(${[...FLAG_OF_PARAMETER.keys()].join("|")}):`, "g");

/**
 * Why the service refused a page, in its words (its JSON's `detail`) as the command's flags
 * name things, and, for a 503 or 429, when to try again: the detail points at a Retry-After
 * header and an `offset` the person never sees.
 */
const refusedPage = (response: IncomingMessage, text: string): Error => {
  const status = response.statusCode ?? 0;
  const detail = refusalOf({ statusText: response.statusMessage ?? "" }, answerOfText(text))
    .replace(
      PARAMETER_NAMED,
      (_named, before: string, name: string) => `${before}${FLAG_OF_PARAMETER.get(name) ?? name}:`,
    )
    .replace(/start the export again(?: without it,)? at offset 0/g, "run the export again");
  const retry = retryHintOf(status, header(response, "retry-after"));
  const then = retry === undefined ? "" : `${/[.!?]$/.test(detail) ? "" : "."} ${retry}`;
  return new Error(`Export failed with ${status}: ${detail}${then}`);
};

const get = (url: URL, key: string, agent: HttpAgent): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => {
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    request(url, { agent, headers: { authorization: key } }, resolve)
      .on("error", (error) => reject(unreachable(url.href, error)))
      .end();
  });

const fetchPage = async (
  options: Connection,
  format: ExportFormat,
  offset: number,
  snapshot: string | null,
): Promise<IncomingMessage> => {
  const query = new URLSearchParams({
    timestamp: String(options.since),
    format,
    limit: String(options.pageSize ?? MAX_LIMIT),
    offset: String(offset),
    ...(snapshot === null ? {} : { snapshot }),
  });
  const response = await get(
    serviceUrl(options.url, "/api/v1/export", query),
    options.key,
    options.agent,
  );
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) throw refusedPage(response, await readText(response));
  return response;
};

/** A response header's single value. */
const header = (response: IncomingMessage, name: string): string | null => {
  const value = response.headers[name.toLowerCase()];
  return typeof value === "string" ? value : null;
};

/** The body's bytes; the first line left out when `skipFirstLine`. */
async function* bodyOf(
  response: IncomingMessage,
  skipFirstLine: boolean,
): AsyncGenerator<Uint8Array> {
  let skipping = skipFirstLine;
  for await (const chunk of response as AsyncIterable<Buffer>) {
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

/** A response header's value as a count of events; undefined when absent or not one. */
const countHeader = (response: IncomingMessage, name: string): number | undefined => {
  const value = Number(header(response, name) ?? Number.NaN);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
};

/**
 * The pages after the first, in order, each requested while the one before is written. With
 * the window's size the pages are known ahead; without it (a large window's snapshot is still
 * being made), each page's own count says whether it was the last: the first holding fewer
 * than `limit` events. A page asked beyond it meanwhile holds none and is dropped.
 */
async function* laterPages(
  options: Connection,
  format: ExportFormat,
  snapshot: string,
  size: { total: number } | { firstPageRows: number },
) {
  const limit = options.pageSize ?? MAX_LIMIT;
  const end = "total" in size ? size.total : Number.POSITIVE_INFINITY;
  if ("firstPageRows" in size && size.firstPageRows < limit) return;
  const inFlight: { offset: number; page: Promise<IncomingMessage> }[] = [];
  let next = limit;
  const request = () => {
    if (next >= end) return;
    const page = fetchPage(options, format, next, snapshot);
    // Awaited in turn below; a failure meanwhile is not an unhandled rejection.
    page.catch(() => undefined);
    inFlight.push({ offset: next, page });
    next += limit;
  };
  const dropInFlight = () => {
    for (const { page } of inFlight.splice(0)) {
      page.then(
        (response) => response.destroy(),
        () => undefined,
      );
    }
  };
  try {
    for (let i = 0; i < PAGES_IN_FLIGHT; i++) request();
    for (let ahead = inFlight.shift(); ahead; ahead = inFlight.shift()) {
      const response = await ahead.page;
      const rows =
        "total" in size
          ? Math.min(limit, size.total - ahead.offset)
          : countHeader(response, PAGE_ROWS_HEADER);
      if (rows === undefined) {
        response.destroy();
        throw new Error(
          `The service sent neither the window's size nor page ${ahead.offset / limit + 1}'s (${PAGE_ROWS_HEADER})`,
        );
      }
      if (rows < limit) {
        dropInFlight();
        if (rows > 0) yield { response, rows };
        else response.destroy();
        return;
      }
      request();
      yield { response, rows };
    }
  } finally {
    dropInFlight();
  }
}

/**
 * The window in the pages' own format, joined and its events counted; when the service sent no
 * size, nothing written and the snapshot its first page made (if it named one), which the json
 * pages then slice rather than making another.
 */
const joinedExport = async (
  options: Connection,
  how: Join,
  onPage: (rows: number, total?: number) => void,
): Promise<{ readonly exported: number } | { readonly snapshot: string | null }> => {
  const first = await fetchPage(options, options.format, 0, null);
  const snapshot = header(first, SNAPSHOT_HEADER);
  const total = countHeader(first, SNAPSHOT_ROWS_HEADER);
  const firstPageRows = countHeader(first, PAGE_ROWS_HEADER);
  if (snapshot === null || (total === undefined && firstPageRows === undefined)) {
    first.destroy();
    return { snapshot };
  }
  const limit = options.pageSize ?? MAX_LIMIT;
  const size = total !== undefined ? { total } : { firstPageRows: firstPageRows ?? 0 };
  const pages = laterPages(options, options.format, snapshot, size);
  const firstRows = total !== undefined ? Math.min(limit, total) : (firstPageRows ?? 0);
  let exported = firstRows;
  if (how !== "join-parquet") {
    const written = await writeOutputFile(options.output, async (path) => {
      const out = createWriteStream(path);
      try {
        await write(out, bodyOf(first, false));
        onPage(firstRows, total);
        for await (const { response, rows } of pages) {
          await write(out, bodyOf(response, how === "drop-header-line"));
          exported += rows;
          onPage(rows, total);
        }
        await close(out);
      } catch (error) {
        await abandon(out);
        throw error;
      }
      return exported;
    });
    return { exported: written };
  }
  // Each page saved as it comes, then joined: the pages' folder, as the file being joined,
  // lies beside the output and goes however the export ends.
  const joined = await withScratchFolder(options.output, async (dir) => {
    const files: string[] = [];
    const save = async (response: IncomingMessage) => {
      const file = joinPath(dir, `${String(files.length).padStart(9, "0")}.parquet`);
      const out = createWriteStream(file);
      try {
        await write(out, bodyOf(response, false));
        await close(out);
      } catch (error) {
        await abandon(out);
        throw error;
      }
      files.push(file);
    };
    await save(first);
    onPage(firstRows, total);
    for await (const { response, rows } of pages) {
      await save(response);
      exported += rows;
      onPage(rows, total);
    }
    const { joinParquet } = await import("../parquet-join.ts");
    return writeOutputFile(options.output, async (path) => {
      const joined = await joinParquet(files, path);
      if (joined !== exported) {
        throw new Error(`Export incomplete: ${joined} of the window's ${exported} events arrived`);
      }
      return exported;
    });
  });
  return { exported: joined };
};

/**
 * The window's events, a json page at a time from `first` (offset 0) on, each later page of
 * the snapshot `first` names. More than `maxEvents` fail the export before they are written.
 */
async function* jsonPages(
  options: Connection,
  first: IncomingMessage,
  onPage: (rows: number) => void,
  maxEvents: number,
) {
  const limit = options.pageSize ?? MAX_LIMIT;
  const snapshot = header(first, SNAPSHOT_HEADER);
  const pageSchema = await jsonPageSchema();
  let events = 0;
  for (let offset = 0; ; offset += limit) {
    const response = offset === 0 ? first : await fetchPage(options, "json", offset, snapshot);
    const page = pageSchema.parse(await readJson(response));
    events += page.data.length;
    // A service that does not say the window's size is found out page by page.
    if (events > maxEvents) throw tooManyForSheet();
    onPage(page.data.length);
    yield* page.data;
    if (page.data.length < limit) return;
  }
}

export const exportCommand = async (options: ExportOptions): Promise<number> => {
  // Pages arrive as megabytes of buffers outside V8's heap, each of which made V8 start
  // marking its (small) heap again bit by bit, which cost most of this command's CPU: here a
  // whole collection at once is short.
  setFlagsFromString("--no-incremental-marking");
  // A folder at -o is said before the service is asked for a page.
  await mustNameAFile(options.output);
  const bar = new SingleBar({
    format: "Exporting {bar} {value} events, {pages} pages",
    hideCursor: true,
    noTTYOutput: false,
  });
  let written = 0;
  let pageCount = 0;
  if (options.progress !== false) bar.start(1, 0, { pages: 0 });
  // Stopped by a signal, the terminal gets its cursor back, which the bar hid.
  const forgetBar = options.progress !== false ? onInterrupt(() => bar.stop()) : () => {};
  const onPage = (rows: number, total?: number) => {
    written += rows;
    pageCount += 1;
    // Without the window's size, the bar grows with each page until the last.
    bar.setTotal(total ?? written + (rows === (options.pageSize ?? MAX_LIMIT) ? rows : 0));
    bar.update(written, { pages: pageCount });
  };
  const connection: Connection = { ...options, agent: agentFor(options.url) };
  try {
    const how = JOINS[options.format];
    const joined =
      how === undefined ? { snapshot: null } : await joinedExport(connection, how, onPage);
    if ("exported" in joined) return joined.exported;
    written = 0;
    pageCount = 0;
    // A first page made without a size named its snapshot: asked for again, offset 0 would
    // make another, of the window as it is by then.
    const first = await fetchPage(connection, "json", 0, joined.snapshot);
    const maxEvents = options.format === "xlsx" ? XLSX_MAX_EVENTS : Number.POSITIVE_INFINITY;
    const total = countHeader(first, SNAPSHOT_ROWS_HEADER);
    // Said before any file is made: a sheet past its last row is one no reader opens.
    if (total !== undefined && total > maxEvents) {
      first.destroy();
      throw tooManyForSheet(total);
    }
    const { FORMATS } = await import("../../export/formats/index.ts");
    await writeOutputFile(options.output, (path) =>
      pipeline(
        FORMATS[options.format].write(
          jsonPages(connection, first, (rows) => onPage(rows), maxEvents),
        ),
        createWriteStream(path),
      ),
    );
    return written;
  } finally {
    forgetBar();
    connection.agent.destroy();
    bar.stop();
  }
};
