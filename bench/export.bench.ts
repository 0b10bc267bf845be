import { createHash } from "node:crypto";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { Agent, get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DuckDBInstance } from "@duckdb/node-api";
import { createApp } from "../src/apps/registration.ts";
import { embeddedConfig } from "../src/config/embedded.ts";
import { startEmbeddedRuntime } from "../src/embedded/runtime.ts";
import { EXPORT_FORMATS } from "../src/export/formats/index.ts";
import { SNAPSHOT_HEADER } from "../src/export/paging.ts";
import { sqlString } from "../src/lake/export-query.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  nullColumns,
} from "../src/lake/lake-tables.ts";
import { peakMemory, startService, stopService } from "../test/support/service.ts";
import { measuredOn, median, verdict, writeDocsSection } from "./figures.ts";
import { type ExportLakeFigures, type ExportPageFigures, exportSection } from "./sections.ts";

/** Two apps with the same 10,000 events in the window; the second also has 10x history. */
const APP = "com.bench.app";
const APP_WITH_HISTORY = "com.bench.history";
const PAGE = 10_000;
const WINDOW_START = Date.parse("2026-11-10T00:00:00Z");
const REPEATS = 15;
const REFERENCE_FORMATS = ["csv", "json", "parquet"] as const;
type ReferenceFormat = (typeof REFERENCE_FORMATS)[number];
const MATERIALISE_REPEATS = 5;
/** With 10x history outside the window, the most a snapshot or a page may cost against none. */
const TARGET_HISTORY_RATIO = 1.2;
const TARGET_PEAK_BYTES = 512 * 1024 * 1024;

/** A version 4 UUID's text, random-looking and the same for the same `i`, as SDKs make them. */
const eventId = (i: number): string => {
  const hex = createHash("md5").update(String(i)).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

const event = (app: string, i: number, time: number): LakeRecord => ({
  ...nullColumns(EVENTS_TABLE),
  app_id: app,
  event_id: eventId(i),
  event_time: new Date(time).toISOString(),
  event_name: i % 4 === 0 ? "service_purchase" : "service_level_complete",
  service_id: `install-${i % 2_000}`,
  country: ["US", "DE", "BR", "JP"][i % 4] ?? null,
  os: "android",
  app_name: "Bench App",
  revenue: i % 4 === 0 ? 4.99 : null,
  currency: i % 4 === 0 ? "EUR" : null,
  revenue_usd: i % 4 === 0 ? 5.41 : null,
  maid: `38400000-8cf0-11bd-b23e-${String(i % 2_000).padStart(12, "0")}`,
  customer_user_id: i % 3 === 0 ? `user-${i % 2_000}` : null,
  received_at: new Date(time + 1_500).toISOString(),
});

const attribution = (app: string, i: number): LakeRecord => ({
  ...nullColumns(ATTRIBUTIONS_TABLE),
  app_id: app,
  service_id: `install-${i}`,
  attributed_at: new Date(WINDOW_START - 86_400_000).toISOString(),
  media_source: i % 3 === 0 ? "organic" : "meta_ads",
  campaign_id: i % 3 === 0 ? null : `c-${i % 7}`,
  campaign_name: i % 3 === 0 ? null : `Campaign ${i % 7}`,
  matching_type: i % 3 === 0 ? null : "network",
  confidence_score: i % 3 === 0 ? null : "high",
  click_to_first_open_hours: i % 3 === 0 ? null : i % 48,
});

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

const main = async () => {
  // The SDK's notice about its 2027 releases needing Node 22 would clutter the figures.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-bench-"));
  const config = embeddedConfig({}, { dataDir, port: 0, fxFeedUrl: null });
  // Seeded in this process; then the service runs alone in its own.
  const seeding = await startEmbeddedRuntime(config);
  const serverKeys = new Map<string, string>();
  for (const app of [APP, APP_WITH_HISTORY]) {
    const { keys } = await createApp(
      { appId: app, name: "Bench App", platform: "android" },
      seeding.stores,
    );
    serverKeys.set(app, keys.find((k) => k.kind === "server")?.key ?? "");
    await seeding.streams.events.put(
      Array.from({ length: PAGE }, (_, i) => event(app, i, WINDOW_START + i * 60_000)),
    );
    await seeding.streams.attributions.put(
      Array.from({ length: 2_000 }, (_, i) => attribution(app, i)),
    );
  }
  // 10x history outside the window, in earlier days' partitions.
  for (let start = 0; start < 10 * PAGE; start += 20_000) {
    await seeding.streams.events.put(
      Array.from({ length: 20_000 }, (_, i) =>
        event(
          APP_WITH_HISTORY,
          PAGE + start + i,
          WINDOW_START - 90 * 86_400_000 + (start + i) * 70_000,
        ),
      ),
    );
  }
  await seeding.stop();

  const service = await startService(dataDir);
  // Pages read over node:http, as the CLI reads them: fetch's web streams cost the client
  // several times the CPU for each megabyte, on the cores the service runs on.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const referenceInstance = await DuckDBInstance.create(":memory:");
  const referenceDb = await referenceInstance.connect();
  try {
    // The snapshot each app's timed pages slice: a page that names none makes a new one.
    const snapshots = new Map<string, string>();
    const fetchPage = (app: string, timestamp: number, format: string) =>
      new Promise<{ firstByte: number; lastByte: number; bytes: number; snapshot: string }>(
        (resolve, reject) => {
          const started = performance.now();
          const pinned = snapshots.get(app);
          const url = `${service.url}/api/v1/export?timestamp=${timestamp}&format=${format}&limit=${PAGE}${pinned ? `&snapshot=${pinned}` : ""}`;
          const headers = { authorization: serverKeys.get(app) ?? "" };
          get(url, { agent, headers }, (response) => {
            if (response.statusCode !== 200) {
              response.resume();
              reject(new Error(`${format}: ${response.statusCode}`));
              return;
            }
            let firstByte = 0;
            let bytes = 0;
            response.on("data", (chunk: Buffer) => {
              if (bytes === 0) firstByte = performance.now() - started;
              bytes += chunk.length;
            });
            response.on("end", () => {
              const snapshot = response.headers[SNAPSHOT_HEADER.toLowerCase()];
              resolve({
                firstByte,
                lastByte: performance.now() - started,
                bytes,
                snapshot: typeof snapshot === "string" ? snapshot : "",
              });
            });
            response.on("error", reject);
          }).on("error", reject);
        },
      );

    /** DuckDB's own COPY of the page's rows, read from a typed Parquet file of them: once. */
    const reference = async (pageFile: string, format: ReferenceFormat) => {
      const out = join(dataDir, `reference.${format}`);
      const started = performance.now();
      await referenceDb.run(
        `COPY (SELECT * FROM read_parquet(${sqlString(pageFile)})) TO ${sqlString(out)} (FORMAT ${format})`,
      );
      return { time: performance.now() - started, bytes: (await stat(out)).size };
    };

    /** The page as the service's own typed Parquet, the reference's input. */
    const savePage = async (app: string, timestamp: number) => {
      const response = await fetch(
        `${service.url}/api/v1/export?timestamp=${timestamp}&format=parquet&limit=${PAGE}&snapshot=${snapshots.get(app)}`,
        { headers: { authorization: serverKeys.get(app) ?? "" } },
      );
      const path = join(dataDir, `page-${app}.parquet`);
      await writeFile(path, Buffer.from(await response.arrayBuffer()));
      return path;
    };

    /** A page's last byte against DuckDB's own COPY of its rows: 3x, 4x for xml and xlsx. */
    const TARGET_RATIO: Record<string, number> = { xml: 4, xlsx: 4 };

    const refFor: Record<string, ReferenceFormat> = {
      json: "json",
      ndjson: "json",
      csv: "csv",
      tsv: "csv",
      xml: "csv",
      xlsx: "csv",
      parquet: "parquet",
    };

    // Each export's first page materialises its snapshot; the two apps take turns at new
    // exports, which puts the machine's ups and downs on both alike.
    const since = WINDOW_START / 1000 - 1;
    const materialise = new Map<string, number[]>();
    for (let i = MATERIALISE_REPEATS; i > 0; i--) {
      for (const app of [APP, APP_WITH_HISTORY] as const) {
        const { lastByte } = await fetchPage(app, since - i, "json");
        materialise.set(app, [...(materialise.get(app) ?? []), lastByte]);
      }
    }
    for (const app of [APP, APP_WITH_HISTORY]) {
      snapshots.set(app, (await fetchPage(app, since, "json")).snapshot);
    }

    // One untimed pass so every writer runs compiled code when timed; then the pages of the
    // two apps, taking turns, and DuckDB's COPY of the same rows between them: the machine's
    // ups and downs fall on a page and its reference alike.
    for (const format of EXPORT_FORMATS) await fetchPage(APP, since, format);
    const pageFiles = new Map<string, string>();
    for (const app of [APP, APP_WITH_HISTORY]) pageFiles.set(app, await savePage(app, since));
    const pages = new Map<
      string,
      ReturnType<typeof fetchPage> extends Promise<infer R> ? R[] : never
    >();
    const references = new Map<string, { time: number; bytes: number }[]>();
    for (let i = 0; i < REPEATS; i++) {
      // Each app first in every other round: a page just after another of the same format (a
      // large body the client has just read) was slower than the first of the pair.
      const apps = i % 2 === 0 ? [APP, APP_WITH_HISTORY] : [APP_WITH_HISTORY, APP];
      for (const format of EXPORT_FORMATS) {
        for (const app of apps) {
          const key = `${app} ${format}`;
          pages.set(key, [...(pages.get(key) ?? []), await fetchPage(app, since, format)]);
        }
      }
      for (const app of [APP, APP_WITH_HISTORY]) {
        for (const format of REFERENCE_FORMATS) {
          const key = `${app} ${format}`;
          const timed = await reference(pageFiles.get(app) ?? "", format);
          references.set(key, [...(references.get(key) ?? []), timed]);
        }
      }
    }

    const table = (label: string, app: string): ExportLakeFigures => {
      const refOf = (format: ReferenceFormat) => {
        const runs = references.get(`${app} ${format}`) ?? [];
        return { time: median(runs.map((run) => run.time)), bytes: runs[0]?.bytes ?? 0 };
      };
      console.log(
        `\n${label}: first request (materialises the snapshot) ${ms(median(materialise.get(app) ?? []))}, median of ${MATERIALISE_REPEATS}`,
      );
      console.log(
        "format   first byte  last byte      bytes   reference (DuckDB COPY)   ratio   target",
      );
      const figures: ExportPageFigures[] = [];
      for (const format of EXPORT_FORMATS) {
        const runs = pages.get(`${app} ${format}`) ?? [];
        const lastByte = median(runs.map((r) => r.lastByte));
        const firstByte = median(runs.map((r) => r.firstByte));
        const refName = refFor[format] ?? "csv";
        const ref = refOf(refName);
        console.log(
          `${format.padEnd(8)} ${ms(firstByte).padStart(10)} ${ms(lastByte).padStart(10)} ${mb(runs[0]?.bytes ?? 0).padStart(10)}   ${refName.padEnd(8)} ${ms(ref.time).padStart(7)} ${mb(ref.bytes).padStart(9)}   ${(lastByte / ref.time).toFixed(2)}x   ${TARGET_RATIO[format] ?? 3}x ${verdict(lastByte / ref.time <= (TARGET_RATIO[format] ?? 3))}`,
        );
        figures.push({
          format,
          firstByteMs: firstByte,
          lastByteMs: lastByte,
          bytes: runs[0]?.bytes ?? 0,
          reference: { format: refName, ms: ref.time },
          targetRatio: TARGET_RATIO[format] ?? 3,
        });
      }
      return { label, materialiseMs: median(materialise.get(app) ?? []), pages: figures };
    };

    const lakes = [
      table(`Lake with the window only (${APP}, 10,000 events)`, APP),
      table(
        `Lake with 10x history outside the window (${APP_WITH_HISTORY}, 110,000 events)`,
        APP_WITH_HISTORY,
      ),
    ];
    const peakBytes = await peakMemory(service.child.pid);
    console.log(`Peak memory of the service process (VmHWM): ${mb(peakBytes)}`);

    console.log("\n10x history cost (with / without)");
    const ratio = (withHistory: number[], without: number[]) =>
      median(withHistory) / median(without);
    const materialiseCost = ratio(
      materialise.get(APP_WITH_HISTORY) ?? [],
      materialise.get(APP) ?? [],
    );
    console.log(`materialise ${materialiseCost.toFixed(2)}x`);
    const pageCost: Record<string, number> = {};
    for (const format of EXPORT_FORMATS) {
      const lastBytes = (app: string) =>
        (pages.get(`${app} ${format}`) ?? []).map((r) => r.lastByte);
      const cost = ratio(lastBytes(APP_WITH_HISTORY), lastBytes(APP));
      pageCost[format] = cost;
      console.log(`${format.padEnd(8)} ${cost.toFixed(2)}x`);
    }
    await writeDocsSection(
      "export",
      exportSection({
        lakes,
        historyCost: { materialise: materialiseCost, pages: pageCost },
        historyTarget: TARGET_HISTORY_RATIO,
        peakBytes,
        peakTargetBytes: TARGET_PEAK_BYTES,
        measured: measuredOn(),
        rounds: REPEATS,
      }),
    );
  } finally {
    agent.destroy();
    referenceDb.closeSync();
    referenceInstance.closeSync();
    await stopService(service.child);
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
