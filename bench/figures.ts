/**
 * What the benchmarks share: a server's measured run and its CPU time, the lake's rows
 * afterwards, medians, and how figures are printed.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import { dirname, join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { dataPaths } from "../src/embedded/data-dir.ts";
import type { LoadResult } from "./http-load.ts";

/**
 * User plus system CPU seconds of a process so far, from Linux's /proc (clock ticks of 10 ms);
 * of its main thread alone with `mainThread`.
 */
export const cpuSeconds = async (
  pid: number | undefined,
  options: { readonly mainThread?: boolean } = {},
): Promise<number> => {
  const stat = await readFile(
    options.mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`,
    "utf8",
  );
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of stat(5); fields[0] here is field 3.
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
export const int = (value: number) => Math.round(value).toLocaleString("en-US");
export const ms = (value: number) => `${value.toFixed(1)} ms`;
/** CPU a request: a tenth of a millisecond is most of a reference's. */
export const cpuMs = (value: number) => `${value.toFixed(2)} ms`;
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
export const verdict = (met: boolean) => (met ? "met" : "NOT MET");

export interface Measured {
  readonly load: LoadResult;
  /** CPU seconds the server process used during the measured run. */
  readonly serverCpu: number;
  /** CPU seconds this process (the clients) used during the measured run. */
  readonly clientCpu: number;
}

/** A warm-up, then the measured run, against one server process. */
export const measureServer = async <T>(
  pid: number | undefined,
  run: (requests: T[]) => Promise<LoadResult>,
  warmup: T[],
  requests: T[],
): Promise<Measured> => {
  const warm = await run(warmup);
  if (warm.failed > 0) console.log(`  warm-up: ${warm.failed} of ${warm.requests} failed`);
  const cpuBefore = await cpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const load = await run(requests);
  const client = process.cpuUsage(clientBefore);
  return {
    load,
    serverCpu: (await cpuSeconds(pid)) - cpuBefore,
    clientCpu: (client.user + client.system) / 1e6,
  };
};

export const printFailures = (label: string, load: LoadResult) => {
  if (load.failed === 0) return;
  console.log(
    `\n${label}: ${load.failed} of ${load.requests} requests FAILED; this run is not valid:`,
  );
  for (const [kind, count] of load.failures) console.log(`  ${String(count).padStart(6)}  ${kind}`);
};

/**
 * Rows of a lake table in a data folder, and how many distinct values of its id column; only
 * the rows `where` (SQL) holds for, if given.
 */
export const lakeRows = async (
  dataDir: string,
  table: string,
  idColumn: string,
  where = "true",
): Promise<{ rows: number; distinct: number }> => {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    const glob = join(dataPaths(dataDir).lake, table, "**", "*.parquet");
    const reader = await connection.runAndReadAll(
      `SELECT count(*) AS n, count(DISTINCT ${idColumn}) AS distinct_ids FROM read_parquet('${glob}', hive_partitioning = false) WHERE ${where}`,
    );
    const [first] = reader.getRowObjectsJS();
    return { rows: Number(first?.n ?? 0), distinct: Number(first?.distinct_ids ?? 0) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
};

/** The distinct values of a lake table's id column, from the data folder's Parquet files. */
export const lakeIds = async (
  dataDir: string,
  table: string,
  idColumn: string,
): Promise<Set<string>> => {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    const glob = join(dataPaths(dataDir).lake, table, "**", "*.parquet");
    const reader = await connection.runAndReadAll(
      `SELECT DISTINCT ${idColumn} AS id FROM read_parquet('${glob}', hive_partitioning = false)`,
    );
    return new Set(reader.getRowObjectsJS().map((row) => String(row.id)));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
};

const DOCS = new URL("../docs/benchmarks.md", import.meta.url).pathname;

/** The machine and the day, as a line under a benchmark's figures in the docs. */
export const measuredOn = (): string => {
  const cpus = os.cpus();
  return `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus.length} cores (${cpus[0]?.model.trim() ?? "unknown CPU"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}.`;
};

/**
 * Writes a benchmark's latest figures into docs/benchmarks.md, between the markers
 * `<!-- name:start -->` and `<!-- name:end -->` (added at the end the first time), so the docs
 * show measured output and nothing typed by hand.
 */
export const writeDocsSection = async (name: string, markdown: string): Promise<void> => {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const current = await readFile(DOCS, "utf8").catch(() => "# Benchmarks\n");
  const section = `${start}\n${markdown.trim()}\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + section + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${section}\n`;
  await mkdir(dirname(DOCS), { recursive: true });
  await writeFile(DOCS, next);
};
