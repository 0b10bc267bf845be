/**
 * Whole-window export benchmark: `attribution export` of every page of a window, as a scheduled
 * job pulls an app's month, over lakes of 1, 10 and 50 million events (WINDOW_MILLIONS, e.g.
 * "1,10" for a shorter run). Per lake and format (parquet, csv, ndjson; WINDOW_FORMATS picks
 * some): rows a second end to end (the CLI's own snapshot included), the first page's time to
 * first byte (once the snapshot's first day is written) and the time until that snapshot is
 * made whole, the peak resident memory of the service and of the CLI, and the disk the
 * snapshots take; then how each grows with the window. The lake is written straight in its
 * Parquet layout by DuckDB, a file a day (as the lake's compaction leaves it; the lake as
 * delivery leaves it is bench/lake-compaction.bench.ts's), so seeding 50 million events takes
 * a minute, not an hour. Prints figures and writes them to docs/benchmarks.md; asserts nothing.
 */
import { mkdir, mkdtemp, rm, statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { dataPaths } from "../src/embedded/data-dir.ts";
import { EVENTS_TABLE } from "../src/lake/lake-tables.ts";
import { installRequest } from "../test/support/installs.ts";
import { createAppWithCli, startService, stopService } from "../test/support/service.ts";
import { int, mb, measuredOn, verdict, writeDocsSection } from "./figures.ts";
import { percentile } from "./http-load.ts";
import {
  APP,
  bytesUnder,
  EVENT_VALUES,
  exportWindow,
  firstPage,
  sampleMemory,
  writeAttributions,
  writeTable,
} from "./window-lake.ts";

const FORMATS = (process.env.WINDOW_FORMATS ?? "parquet,csv,ndjson").split(",");
const MILLIONS = (process.env.WINDOW_MILLIONS ?? "1,10,50").split(",").map(Number);

const TARGET_ROWS_PER_SECOND = 400_000;
const TARGET_SERVICE_BYTES = 1024 * 1024 * 1024;
/** 10x the rows at most 11x the time. */
const TARGET_GROWTH = 1.1;

/**
 * Where the CLI writes the window: in memory (`/dev/shm`) when it fits in half of what is free
 * there, as a client on another machine would; else to `/dev/null`, the CLI still receiving
 * and joining every page. On this one machine the file would otherwise go to the service's own
 * disk, where the client's writes (a hundred megabytes a second and more) delay the fsync of
 * the service's write-ahead file that every ingestion answer waits for, and the disk's speed,
 * not the export's, sets the time. WINDOW_OUTPUT_DIR picks a folder for every run; those runs
 * count as on the service's disk, and the ingestion target is judged on the others.
 */
const MEMORY_DIR = "/dev/shm";
/** A generous size of a window's file, per event, by format. */
const BYTES_PER_EVENT: Record<string, number> = { csv: 250, ndjson: 700, parquet: 50 };

type Place = "in memory" | "discarded" | "on a disk";

const outputFor = async (format: string, rows: number): Promise<{ path: string; place: Place }> => {
  const name = `window.${format}`;
  const chosen = process.env.WINDOW_OUTPUT_DIR;
  if (chosen) return { path: join(chosen, name), place: "on a disk" };
  const free = await statfs(MEMORY_DIR).then(
    (disk) => disk.bavail * disk.bsize,
    () => 0,
  );
  const size = rows * (BYTES_PER_EVENT[format] ?? 1000);
  // The parquet join writes a real file; a parquet window fits in memory at every size here.
  if (size < free / 2 || format === "parquet") {
    return { path: join(MEMORY_DIR, name), place: "in memory" };
  }
  return { path: "/dev/null", place: "discarded" };
};

/**
 * How often, while a window is exported, one batch of events is sent, as an app's SDKs would:
 * often enough that a p99 is of hundreds of batches from 10 million events up, not nearly the
 * slowest answer of a few dozen.
 */
const PROBE_EVERY_MS = 50;
const PROBE_EVENTS = 10;
const IDLE_BATCHES = 200;
/** Ingestion "as usual": every batch accepted, and its p99 at most this many times the idle one. */
const TARGET_INGEST_SLOWDOWN = 3;

/**
 * Ingestion's answer times with nothing else going on: as many batches as an export of 10
 * million events sends, so both p99s are of samples alike. Taken before the export and after
 * it, together: the one taken just after the service started moved by half or double from one
 * run to the next.
 */
const sorted = (times: readonly number[]) => [...times].sort((a, b) => a - b);

const idleIngestion = async (url: string, sdkKey: string): Promise<number[]> => {
  const idle = await ingestionProbe(url, sdkKey);
  await new Promise((resolve) => setTimeout(resolve, IDLE_BATCHES * PROBE_EVERY_MS));
  return (await idle.stop()).times;
};

/**
 * Batches of events sent to the service one after another, each PROBE_EVERY_MS after the last
 * answer, until stopped: their answers' statuses and times.
 */
const ingestionProbe = async (url: string, sdkKey: string) => {
  const serviceId = "window-bench-probe";
  const post = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: sdkKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const install = await post(
    "/v1/installs",
    installRequest(serviceId, { os: "android", idfv: null }),
  );
  if (install.status !== 202) throw new Error(`probe install: ${install.status}`);
  let sent = 0;
  const times: number[] = [];
  const refused: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const events = Array.from({ length: PROBE_EVENTS }, () => ({
        event_id: `probe-${sent++}`,
        event_type: "LEVEL_START",
        event_time: new Date().toISOString(),
        service_id: serviceId,
        parameters: { level: 1 },
      }));
      const started = performance.now();
      // A service gone (stopped after a failed export) is a refusal, not the bench's crash.
      const status = await post("/v1/events", { events }).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
        () => 0,
      );
      times.push(performance.now() - started);
      if (status !== 202) refused.push(status);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { times: [...times].sort((a, b) => a - b), refused };
    },
  };
};

interface Result {
  readonly rows: number;
  readonly format: string;
  readonly seconds: number;
  readonly firstByte: number;
  /** From the first request until its snapshot was made whole. */
  readonly snapshotSeconds: number;
  readonly servicePeak: number;
  readonly cliPeak: number;
  readonly snapshotBytes: number;
  /**
   * Batches of events sent meanwhile: how many, how many refused, p99 now and when idle, and
   * each batch's time, meanwhile and idle.
   */
  readonly ingest: {
    batches: number;
    refused: number;
    p99: number;
    idleP99: number;
    times: readonly number[];
    idleTimes: readonly number[];
  };
  /** The CLI wrote the window to the service's disk. */
  readonly place: Place;
}

const measure = async (millions: number): Promise<Result[]> => {
  const rows = millions * 1_000_000;
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-window-"));
  const results: Result[] = [];
  try {
    const paths = dataPaths(dataDir);
    await mkdir(paths.lake, { recursive: true });
    const seeding = performance.now();
    await writeTable(paths.lake, EVENTS_TABLE, EVENT_VALUES, rows);
    await writeAttributions(paths.lake, rows);
    console.log(
      `\n${int(rows)} events seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s (${mb(await bytesUnder(paths.lake))} of Parquet)`,
    );
    const { server, sdk } = await createAppWithCli(dataDir, APP, "Window Bench");
    for (const format of FORMATS) {
      // A service of its own per format, so each peak is its own.
      const service = await startService(dataDir, { ATTRIBUTION_FX_FEED_URL: "off" });
      const snapshotsBefore = await bytesUnder(paths.snapshots);
      try {
        // Ingestion's answers with nothing else going on (before the export and after it),
        // and while the window is exported.
        const idleTimes = await idleIngestion(service.url, sdk);
        const probe = await ingestionProbe(service.url, sdk);
        const memory = sampleMemory(() => service.child.pid);
        const { firstByte, snapshotSeconds } = await firstPage(service.url, server);
        const written = await outputFor(format, rows);
        const output = written.path;
        const { seconds, cliPeak } = await exportWindow(service.url, server, format, output);
        const servicePeak = memory.stop();
        const during = await probe.stop();
        idleTimes.push(...(await idleIngestion(service.url, sdk)));
        const ingest = {
          batches: during.times.length,
          refused: during.refused.length,
          p99: percentile(during.times, 99),
          // Two idle runs, each sorted: sorted again together.
          idleP99: percentile(sorted(idleTimes), 99),
          times: during.times,
          idleTimes,
        };
        // This format's two snapshots: the first page's and the CLI's.
        const snapshotBytes = (await bytesUnder(paths.snapshots)) - snapshotsBefore;
        results.push({
          rows,
          format,
          seconds,
          firstByte,
          snapshotSeconds,
          servicePeak,
          cliPeak,
          snapshotBytes,
          ingest,
          place: written.place,
        });
        console.log(
          `${format.padEnd(8)} ${int(Math.round(rows / seconds)).padStart(10)} rows/s  ${seconds.toFixed(1).padStart(7)} s  first byte ${firstByte.toFixed(2).padStart(6)} s  snapshot made ${snapshotSeconds.toFixed(1).padStart(6)} s  service ${mb(servicePeak).padStart(10)}  CLI ${mb(cliPeak).padStart(10)}  snapshots ${mb(snapshotBytes).padStart(10)}  ingestion ${ingest.batches} batches, ${ingest.refused} refused, p99 ${ingest.p99.toFixed(0)} ms (idle ${ingest.idleP99.toFixed(0)} ms)  file ${written.place}`,
        );
        // Never /dev/null itself.
        if (written.place !== "discarded") await rm(output, { force: true });
      } finally {
        await stopService(service.child);
        // Each format's snapshots its own: three formats' at 50 million events would take the
        // snapshots' disk budget.
        await rm(paths.snapshots, { recursive: true, force: true });
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return results;
};

const main = async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  console.log(
    `Whole-window export with \`attribution export\`, every page (${FORMATS.join(", ")}), lakes of ${MILLIONS.map((m) => `${m}M`).join(", ")} events`,
  );
  const all: Result[] = [];
  for (const millions of MILLIONS) all.push(...(await measure(millions)));

  const docs: string[] = [
    "## Whole-window export",
    "",
    "`attribution export` of every page of a window (`bench/export-window.bench.ts`): the seconds",
    "and rows a second are the CLI's, from its first request (its snapshot made meanwhile) to its",
    "file written. Before it, a first page of its own: its first byte leaves once the snapshot's",
    "first slice is written, and the snapshot is made whole when a page past the window's end is",
    "answered. The service's and the CLI's peaks are their resident memory sampled every 200 ms.",
    "The CLI writes the window to memory (`/dev/shm`) when it fits, as a client on another",
    "machine would; else to `/dev/null`, still receiving and joining every page: on this one",
    "machine its file would go to the service's own disk, whose speed would then set the time,",
    "and whose write-ahead fsync every ingestion answer waits for. The idle p99 is of the",
    "batches sent with nothing else going on before the export and after it. The ingestion",
    "target is judged on all the batches of the runs together: a million events' export takes",
    "under 3 s, and the p99 of its hundred batches or fewer is its slowest one.",
    "",
    "| events | format | rows a second | seconds | first byte | snapshot made | service peak | CLI peak | snapshots made (two) | ingestion meanwhile: batches, refused, p99 (idle) | the CLI's file |",
    "| -----: | ------ | ------------: | ------: | ---------: | ------------: | -----------: | -------: | ----------------: | ---------------------------------------------- | -------------- |",
    ...all.map(
      (r) =>
        `| ${int(r.rows)} | ${r.format} | ${int(r.rows / r.seconds)} | ${r.seconds.toFixed(1)} | ${r.firstByte.toFixed(2)} s | ${r.snapshotSeconds.toFixed(1)} s | ${mb(r.servicePeak)} | ${mb(r.cliPeak)} | ${mb(r.snapshotBytes)} | ${r.ingest.batches}, ${r.ingest.refused}, ${r.ingest.p99.toFixed(0)} ms (${r.ingest.idleP99.toFixed(0)} ms) | ${r.place} |`,
    ),
    "",
  ];
  const report = (line: string) => {
    console.log(line);
    docs.push(`- ${line.trim()}`);
  };

  console.log("\nTargets");
  for (const format of FORMATS) {
    const runs = all.filter((r) => r.format === format).sort((a, b) => a.rows - b.rows);
    const slowest = Math.min(...runs.map((r) => r.rows / r.seconds));
    const target = format === "ndjson" ? "" : ` (target ${int(TARGET_ROWS_PER_SECOND)})`;
    report(`${format}: slowest ${int(Math.round(slowest))} rows/s${target}`);
    for (let i = 1; i < runs.length; i++) {
      const [small, large] = [runs[i - 1], runs[i]];
      if (!small || !large) continue;
      const growth = large.seconds / small.seconds / (large.rows / small.rows);
      report(
        `${format}: ${int(small.rows)} -> ${int(large.rows)} events: ${(large.seconds / small.seconds).toFixed(1)}x the time for ${large.rows / small.rows}x the rows, ${growth.toFixed(2)}x linear (target 1.10x): ${verdict(growth <= TARGET_GROWTH)}`,
      );
    }
  }
  const rowsTarget = all.filter((r) => r.format !== "ndjson");
  const below = rowsTarget.filter((r) => r.rows / r.seconds < TARGET_ROWS_PER_SECOND);
  report(
    `rows a second, parquet and csv, at least ${int(TARGET_ROWS_PER_SECOND)}: ${verdict(below.length === 0)}${below.length > 0 ? ` (below it: ${below.map((r) => `${r.format} at ${int(r.rows)} events`).join(", ")})` : ""}`,
  );
  const peak = Math.max(...all.map((r) => r.servicePeak));
  report(
    `service peak ${mb(peak)} (target under ${mb(TARGET_SERVICE_BYTES)}): ${verdict(peak < TARGET_SERVICE_BYTES)}`,
  );
  const refused = all.reduce((sum, r) => sum + r.ingest.refused, 0);
  const apart = all.filter((r) => r.place !== "on a disk");
  // The p99 of all the batches sent during these exports against that of all those sent idle:
  // a short export's own p99 is of a hundred batches or fewer, i.e. its slowest one.
  const during = sorted(apart.flatMap((r) => r.ingest.times));
  const idle = sorted(apart.flatMap((r) => r.ingest.idleTimes));
  const slowdown = percentile(during, 99) / percentile(idle, 99);
  const slowest = Math.max(...apart.map((r) => r.ingest.p99 / r.ingest.idleP99));
  const shared = all.filter((r) => r.place === "on a disk");
  if (shared.length > 0) {
    report(
      `ingestion meanwhile, the CLI writing to WINDOW_OUTPUT_DIR (${shared.map((r) => `${r.format} ${int(r.rows)}`).join(", ")}): p99 at most ${Math.max(...shared.map((r) => r.ingest.p99 / r.ingest.idleP99)).toFixed(1)}x the idle one`,
    );
  }
  report(
    `ingestion meanwhile, the CLI writing elsewhere: ${refused} batches refused; p99 of the ${int(during.length)} batches sent during these exports ${percentile(during, 99).toFixed(1)} ms against ${percentile(idle, 99).toFixed(1)} ms for the ${int(idle.length)} sent idle, ${slowdown.toFixed(1)}x (target none refused, at most ${TARGET_INGEST_SLOWDOWN}x): ${verdict(refused === 0 && slowdown <= TARGET_INGEST_SLOWDOWN)}`,
  );
  report(
    `ingestion meanwhile, the CLI writing elsewhere, each export's own p99 against its idle one: at most ${slowest.toFixed(1)}x`,
  );
  docs.push("", measuredOn());
  await writeDocsSection("export-window", docs.join("\n"));
};

await main();
