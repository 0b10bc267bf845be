/**
 * Lake compaction benchmark: a day of 1 million events as the embedded delivery leaves it when
 * they arrive all day long (a file every 5 s, 17,280 files), exported before and after the
 * `compact-lake` job merges it: the first page's time to first byte and until its snapshot is
 * made, and `attribution export` of the whole window (parquet, csv), rows a second; the merge's
 * time and the service's peak resident memory meanwhile. Prints figures and writes them to
 * docs/benchmarks.md; asserts nothing.
 */
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { dataPaths } from "../src/embedded/data-dir.ts";
import { EVENTS_TABLE } from "../src/lake/lake-tables.ts";
import { createAppWithCli, startService, stopService } from "../test/support/service.ts";
import { int, mb, measuredOn, writeDocsSection } from "./figures.ts";
import {
  APP,
  exportWindow,
  firstPage,
  sampleMemory,
  writeAttributions,
  writeDeliveredDay,
} from "./window-lake.ts";

const ROWS = 1_000_000;
/** The day EVENT_VALUES's first million events fall on. */
const DAY = "2026-10-01";
/** A delivery every 5 s (ATTRIBUTION_FLUSH_INTERVAL_MS's default), all day. */
const FILES = (24 * 3600) / 5;
const FORMATS = ["parquet", "csv"];
/** The job's first run, this long after the service starts. */
const COMPACT_AFTER_MS = 1_000;
const NEVER_MS = 86_400_000;
const POLL_MS = 50;

interface Layout {
  readonly label: string;
  readonly files: number;
  readonly firstByte: number;
  readonly snapshotSeconds: number;
  readonly rowsPerSecond: Record<string, number>;
}

const main = async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-compaction-"));
  const paths = dataPaths(dataDir);
  const partition = join(paths.lake, EVENTS_TABLE.name, `app_id=${APP}`, `dt=${DAY}`);
  const files = async () => (await readdir(partition)).filter((n) => n.endsWith(".parquet"));
  const output = join(tmpdir(), "attribution-compaction-bench");
  try {
    await mkdir(paths.lake, { recursive: true });
    const seeding = performance.now();
    await writeDeliveredDay(paths.lake, DAY, ROWS, FILES);
    await writeAttributions(paths.lake, ROWS);
    console.log(
      `${int(ROWS)} events of one day in ${int(FILES)} files, seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    );
    const { server } = await createAppWithCli(dataDir, APP, "Compaction Bench");

    const exportOf = async (label: string, url: string): Promise<Layout> => {
      const count = (await files()).length;
      const { firstByte, snapshotSeconds } = await firstPage(url, server);
      const rowsPerSecond: Record<string, number> = {};
      for (const format of FORMATS) {
        const { seconds } = await exportWindow(url, server, format, `${output}.${format}`);
        rowsPerSecond[format] = ROWS / seconds;
        await rm(`${output}.${format}`, { force: true });
      }
      console.log(
        `${label.padEnd(30)} ${int(count).padStart(6)} files  first byte ${firstByte.toFixed(2)} s  snapshot ${snapshotSeconds.toFixed(2)} s  ${FORMATS.map((f) => `${f} ${int(rowsPerSecond[f] ?? 0)} rows/s`).join("  ")}`,
      );
      return { label, files: count, firstByte, snapshotSeconds, rowsPerSecond };
    };

    const before = await startService(dataDir, {
      ATTRIBUTION_FX_FEED_URL: "off",
      ATTRIBUTION_COMPACT_INTERVAL_MS: String(NEVER_MS),
    });
    let delivered: Layout;
    try {
      delivered = await exportOf("as delivered", before.url);
    } finally {
      await stopService(before.child);
    }

    const service = await startService(dataDir, {
      ATTRIBUTION_FX_FEED_URL: "off",
      ATTRIBUTION_COMPACT_INTERVAL_MS: String(COMPACT_AFTER_MS),
    });
    try {
      const started = performance.now();
      const memory = sampleMemory(() => service.child.pid);
      while ((await files()).length > 1) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      const mergeSeconds = (performance.now() - started - COMPACT_AFTER_MS) / 1000;
      const peak = memory.stop();
      console.log(
        `merged by the compact-lake job in ${mergeSeconds.toFixed(1)} s from its first run; service peak ${mb(peak)}`,
      );
      const compacted = await exportOf("once merged", service.url);

      const rows = [delivered, compacted].map(
        (layout) =>
          `| ${layout.label} | ${int(layout.files)} | ${layout.firstByte.toFixed(2)} s | ${layout.snapshotSeconds.toFixed(2)} s | ${FORMATS.map((f) => int(layout.rowsPerSecond[f] ?? 0)).join(" | ")} |`,
      );
      await writeDocsSection(
        "lake-compaction",
        [
          "## Lake compaction",
          "",
          `A day of ${int(ROWS)} events as the embedded delivery leaves it when they arrive all day`,
          `(a file every 5 s: ${int(FILES)} files), exported before and after the \`compact-lake\` job`,
          "merges it (`bench/lake-compaction.bench.ts`): the first page, and `attribution export` of",
          "the whole window in rows a second.",
          "",
          `| the day's events | files | first byte | snapshot made | ${FORMATS.map((f) => `${f} rows a second`).join(" | ")} |`,
          `| ---------------- | ----: | ---------: | ------------: | ${FORMATS.map(() => "------------------:").join(" | ")} |`,
          ...rows,
          "",
          `- merged by the job in ${mergeSeconds.toFixed(1)} s from its first run, the service's peak resident memory meanwhile ${mb(peak)}`,
          `- once merged, the first page ${(delivered.snapshotSeconds / compacted.snapshotSeconds).toFixed(0)}x sooner, and the whole window ${FORMATS.map((f) => `${f} ${((compacted.rowsPerSecond[f] ?? 0) / (delivered.rowsPerSecond[f] ?? 1)).toFixed(0)}x`).join(", ")} faster`,
          "",
          measuredOn(),
        ].join("\n"),
      );
    } finally {
      await stopService(service.child);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
