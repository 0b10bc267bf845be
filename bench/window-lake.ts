/**
 * The whole-window benchmarks' lake and client: a lake of one app written straight in its
 * Parquet layout by DuckDB (events over consecutive days, half the installs attributed), the
 * CLI's `attribution export` of a whole window, a first page and the snapshot it makes, and a
 * process's peak resident memory.
 */
import { spawn } from "node:child_process";
import { mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DuckDBInstance } from "@duckdb/node-api";
import { sqlString } from "../src/lake/export-query.ts";
import { ATTRIBUTIONS_TABLE, EVENTS_TABLE, type LakeTable } from "../src/lake/lake-tables.ts";
import { memoryOf, START_FLAGS } from "../test/support/service.ts";

export const APP = "com.bench.window";
const CLI = new URL("../bin/attribution.js", import.meta.url).pathname;
/** One install for this many events; one attribution for every other install. */
const EVENTS_PER_INSTALL = 50;
const SAMPLE_MS = 200;

const DUCKDB_TYPE = { string: "VARCHAR", int: "INTEGER", double: "DOUBLE", timestamp: "TIMESTAMP" };

/**
 * The install of event `i`, as traffic comes: 20 installs active at once, their events
 * interleaved one a second each, and EVENTS_PER_INSTALL events an install; every install
 * index from 0 up is used.
 */
const INSTALL = `((i // (20 * ${EVENTS_PER_INSTALL})) * 20 + i % 20)`;

/** A version 4 UUID's text, random-looking and the same for the same `i`, as SDKs make them. */
const UUID = (() => {
  const hex = "md5(CAST(i AS VARCHAR))";
  const part = (from: number, length: number) => `substr(${hex}, ${from}, ${length})`;
  return `${part(1, 8)} || '-' || ${part(9, 4)} || '-4' || ${part(14, 3)} || '-8' || ${part(18, 3)} || '-' || ${part(21, 12)}`;
})();

/** A column's value for row `i`: SQL over `i`, or null. */
export const EVENT_VALUES: Record<string, string> = {
  event_id: UUID,
  event_time: "TIMESTAMP '2026-10-01' + to_seconds(i // 20)",
  received_at: "TIMESTAMP '2026-10-01' + to_seconds(i // 20 + 2)",
  event_name: "CASE WHEN i % 4 = 0 THEN 'service_purchase' ELSE 'service_level_complete' END",
  event_type: "CASE WHEN i % 4 = 0 THEN 'PURCHASE' ELSE 'LEVEL_COMPLETE' END",
  service_id: `'install-' || ${INSTALL}`,
  os: "'android'",
  country: "['US', 'DE', 'BR', 'JP'][i % 4 + 1]",
  app_name: "'Bench App'",
  revenue: "CASE WHEN i % 4 = 0 THEN 4.99 END",
  currency: "CASE WHEN i % 4 = 0 THEN 'EUR' END",
  revenue_usd: "CASE WHEN i % 4 = 0 THEN 5.41 END",
  maid: `'38400000-8cf0-11bd-b23e-' || lpad(CAST(${INSTALL} AS VARCHAR), 12, '0')`,
  customer_user_id: `CASE WHEN i % 3 = 0 THEN 'user-' || ${INSTALL} END`,
  parameters: "'{\"level\":7}'",
};

const ATTRIBUTION_VALUES: Record<string, string> = {
  service_id: "'install-' || (i * 2)",
  attributed_at: "TIMESTAMP '2026-09-30'",
  media_source: "CASE WHEN i % 3 = 0 THEN 'organic' ELSE 'meta_ads' END",
  campaign_id: "CASE WHEN i % 3 <> 0 THEN 'c-' || (i % 7) END",
  campaign_name: "CASE WHEN i % 3 <> 0 THEN 'Campaign ' || (i % 7) END",
  matching_type: "CASE WHEN i % 3 <> 0 THEN 'network' END",
  confidence_score: "CASE WHEN i % 3 <> 0 THEN 'high' END",
};

/**
 * `rows` rows of a lake table in its Parquet layout: app_id=…/dt=…/part-N.parquet (of APP, or
 * of `appId`).
 */
export const writeTable = async (
  lakeDir: string,
  table: LakeTable,
  values: Record<string, string>,
  rows: number,
  appId = APP,
) => {
  const columns = table.columns.map(
    (column) =>
      `CAST(${values[column.name] ?? "NULL"} AS ${DUCKDB_TYPE[column.type]}) AS ${column.name}`,
  );
  const date = table.dateColumn;
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    await connection.run(
      `COPY (SELECT *, ${sqlString(appId)} AS app_id, strftime(${date}, '%Y-%m-%d') AS dt
             FROM (SELECT ${columns.join(", ")} FROM range(${rows}) AS r(i)))
       TO ${sqlString(join(lakeDir, table.name))}
       (FORMAT parquet, PARTITION_BY (app_id, dt), FILENAME_PATTERN 'part-{i}')`,
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
};

export const bytesUnder = async (dir: string): Promise<number> => {
  let total = 0;
  for (const name of await readdir(dir, { recursive: true }).catch(() => [])) {
    const info = await stat(join(dir, String(name))).catch(() => undefined);
    if (info?.isFile()) total += info.size;
  }
  return total;
};

/** VmRSS, or 0 once the process is gone. */
const residentMemory = async (pid: number | undefined): Promise<number> =>
  (await memoryOf(pid, ["VmRSS"]).catch(() => ({ VmRSS: 0 }))).VmRSS;

/** The highest resident memory of a process, sampled until `stop` is called. */
export const sampleMemory = (pid: () => number | undefined) => {
  let peak = 0;
  const timer = setInterval(() => {
    void residentMemory(pid()).then((rss) => {
      peak = Math.max(peak, rss);
    });
  }, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
};

/** `attribution export` of the whole window into a file: seconds and the CLI's peak memory. */
export const exportWindow = async (url: string, key: string, format: string, output: string) => {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...START_FLAGS,
      CLI,
      "export",
      "--since",
      "0",
      "--format",
      format,
      "-o",
      output,
      "--no-progress",
    ],
    { env: { ...process.env, ATTRIBUTION_URL: url, ATTRIBUTION_API_KEY: key }, stdio: "inherit" },
  );
  const memory = sampleMemory(() => child.pid);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const cliPeak = memory.stop();
  if (code !== 0) throw new Error(`attribution export --format ${format} exited with ${code}`);
  return { seconds: (performance.now() - started) / 1000, cliPeak };
};

/**
 * The first page's time to first byte, and the time until its snapshot is made. A large
 * window's first page leaves once the snapshot's first day is written; a page asked past the
 * window's end is answered once the last day is, so its answer is when the snapshot was made.
 */
export const firstPage = async (url: string, key: string) => {
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/export?timestamp=0&format=csv&limit=10000`, {
    headers: { authorization: key },
  });
  if (!response.ok || !response.body) throw new Error(`first page: ${response.status}`);
  let firstByte = 0;
  for await (const _chunk of response.body) {
    if (firstByte === 0) firstByte = (performance.now() - started) / 1000;
  }
  const snapshot = response.headers.get("x-export-snapshot") ?? "";
  const beyond = await fetch(
    `${url}/api/v1/export?timestamp=0&format=csv&limit=1&offset=${Number.MAX_SAFE_INTEGER}&snapshot=${snapshot}`,
    { headers: { authorization: key } },
  );
  await beyond.arrayBuffer();
  if (!beyond.ok) throw new Error(`the page past the window: ${beyond.status}`);
  return { firstByte, snapshotSeconds: (performance.now() - started) / 1000 };
};

/** The attributions of `events` events' installs: one for every other install. */
export const writeAttributions = (lakeDir: string, events: number) =>
  writeTable(lakeDir, ATTRIBUTIONS_TABLE, ATTRIBUTION_VALUES, events / EVENTS_PER_INSTALL / 2);

/**
 * `rows` events of one day (from row `first` of EVENT_VALUES) as the embedded delivery leaves
 * them when events arrive all day: one file a flush, `files` files in the day's partition.
 */
export const writeDeliveredDay = async (
  lakeDir: string,
  day: string,
  rows: number,
  files: number,
) => {
  const columns = EVENTS_TABLE.columns.map(
    (column) =>
      `CAST(${EVENT_VALUES[column.name] ?? "NULL"} AS ${DUCKDB_TYPE[column.type]}) AS ${column.name}`,
  );
  const dir = join(lakeDir, EVENTS_TABLE.name, `app_id=${APP}`, `dt=${day}`);
  await mkdir(dir, { recursive: true });
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    await connection.run(
      `CREATE TABLE day AS SELECT i AS file_row, ${columns.join(", ")} FROM range(${rows}) AS r(i)`,
    );
    const perFile = Math.ceil(rows / files);
    for (let file = 0; file < files; file++) {
      await connection.run(
        `COPY (SELECT * EXCLUDE (file_row) FROM day
               WHERE file_row >= ${file * perFile} AND file_row < ${(file + 1) * perFile})
         TO ${sqlString(join(dir, `part-${file}.parquet`))} (FORMAT parquet)`,
      );
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
};
