import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DuckDBInstance } from "@duckdb/node-api";
import { embeddedConfig } from "../src/config/embedded.ts";
import { createApp } from "../src/domain/apps.ts";
import { openLake, startEmbeddedRuntime } from "../src/embedded/runtime.ts";
import { EXPORT_FORMATS } from "../src/export/formats/index.ts";
import { sqlString } from "../src/lake/export-query.ts";
import {
  ATTRIBUTIONS_TABLE,
  EVENTS_TABLE,
  type LakeRecord,
  nullColumns,
} from "../src/lake/tables.ts";
import { peakMemory, startService, stopService } from "../test/support/service.ts";

const APP = "com.bench.app";
const PAGE = 10_000;
const WINDOW_START = Date.parse("2026-11-10T00:00:00Z");
const REPEATS = 9;
const MATERIALISE_REPEATS = 5;

const event = (i: number, time: number): LakeRecord => ({
  ...nullColumns(EVENTS_TABLE),
  app_id: APP,
  event_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
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

const attribution = (i: number): LakeRecord => ({
  ...nullColumns(ATTRIBUTIONS_TABLE),
  app_id: APP,
  service_id: `install-${i}`,
  attributed_at: new Date(WINDOW_START - 86_400_000).toISOString(),
  media_source: i % 3 === 0 ? "organic" : "meta_ads",
  campaign_id: i % 3 === 0 ? null : `c-${i % 7}`,
  campaign_name: i % 3 === 0 ? null : `Campaign ${i % 7}`,
  matching_type: i % 3 === 0 ? null : "network",
  confidence_score: i % 3 === 0 ? null : "high",
  click_to_first_open_hours: i % 3 === 0 ? null : i % 48,
});

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

const main = async () => {
  // The SDK's notice about its 2027 releases needing Node 22 would clutter the figures.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-bench-"));
  const config = embeddedConfig({}, { dataDir, port: 0 });
  // Seeded in this process; then the service runs alone in its own.
  const seeding = await startEmbeddedRuntime(config);
  const { keys } = await createApp(
    { appId: APP, name: "Bench App", platform: "android" },
    seeding.stores,
  );
  const serverKey = keys.find((k) => k.kind === "server")?.key ?? "";
  await seeding.streams.events.put(
    Array.from({ length: PAGE }, (_, i) => event(i, WINDOW_START + i * 60_000)),
  );
  await seeding.streams.attributions.put(Array.from({ length: 2_000 }, (_, i) => attribution(i)));
  await seeding.stop();

  let service = await startService(dataDir);
  try {
    const fetchPage = async (timestamp: number, format: string) => {
      const started = performance.now();
      const response = await fetch(
        `${service.url}/api/v1/export?timestamp=${timestamp}&format=${format}&limit=${PAGE}`,
        { headers: { authorization: serverKey } },
      );
      if (!response.ok || !response.body) throw new Error(`${format}: ${response.status}`);
      let firstByte = 0;
      let bytes = 0;
      for await (const chunk of response.body) {
        if (bytes === 0) firstByte = performance.now() - started;
        bytes += chunk.byteLength;
      }
      return { firstByte, lastByte: performance.now() - started, bytes };
    };

    /** DuckDB's own COPY of the page's rows, read from a typed Parquet file of them. */
    const reference = async (pageFile: string, format: "csv" | "json" | "parquet") => {
      const out = join(dataDir, `reference.${format}`);
      const times: number[] = [];
      const instance = await DuckDBInstance.create(":memory:");
      const db = await instance.connect();
      for (let i = 0; i < REPEATS; i++) {
        const started = performance.now();
        await db.run(
          `COPY (SELECT * FROM read_parquet(${sqlString(pageFile)})) TO ${sqlString(out)} (FORMAT ${format})`,
        );
        times.push(performance.now() - started);
      }
      db.closeSync();
      instance.closeSync();
      return { time: median(times), bytes: (await stat(out)).size };
    };

    /** The page as the service's own typed Parquet, the reference's input. */
    const savePage = async (timestamp: number) => {
      const response = await fetch(
        `${service.url}/api/v1/export?timestamp=${timestamp}&format=parquet&limit=${PAGE}`,
        { headers: { authorization: serverKey } },
      );
      const path = join(dataDir, "page.parquet");
      await writeFile(path, Buffer.from(await response.arrayBuffer()));
      return path;
    };

    /**
     * The first request of an export materialises its snapshot; each earlier timestamp (one
     * second apart, before the first event) is a new export of the same rows. The median of
     * MATERIALISE_REPEATS; `timestamp` is the last one, whose snapshot the pages then read.
     */
    const materialiseAt = async (timestamp: number) => {
      const times: number[] = [];
      for (let i = MATERIALISE_REPEATS - 1; i >= 0; i--) {
        const started = performance.now();
        await fetchPage(timestamp + i, "json");
        times.push(performance.now() - started);
      }
      return median(times);
    };

    const measure = async (label: string, timestamp: number) => {
      const materialize = await materialiseAt(timestamp);
      const page = await savePage(timestamp);
      const refs = {
        csv: await reference(page, "csv"),
        json: await reference(page, "json"),
        parquet: await reference(page, "parquet"),
      };
      const refFor: Record<string, keyof typeof refs> = {
        json: "json",
        ndjson: "json",
        csv: "csv",
        tsv: "csv",
        xml: "csv",
        xlsx: "csv",
        parquet: "parquet",
      };
      console.log(
        `\n${label}: first request (materialises the snapshot) ${ms(materialize)}, median of ${MATERIALISE_REPEATS}`,
      );
      console.log("format   first byte  last byte      bytes   reference (DuckDB COPY)   ratio");
      // One untimed pass so every writer runs compiled code when timed.
      for (const format of EXPORT_FORMATS) await fetchPage(timestamp, format);
      for (const format of EXPORT_FORMATS) {
        const runs = [];
        for (let i = 0; i < REPEATS; i++) runs.push(await fetchPage(timestamp, format));
        const lastByte = median(runs.map((r) => r.lastByte));
        const firstByte = median(runs.map((r) => r.firstByte));
        const ref = refs[refFor[format] ?? "csv"];
        console.log(
          `${format.padEnd(8)} ${ms(firstByte).padStart(10)} ${ms(lastByte).padStart(10)} ${mb(runs[0]?.bytes ?? 0).padStart(10)}   ${refFor[format]?.padEnd(8)} ${ms(ref.time).padStart(7)} ${mb(ref.bytes).padStart(9)}   ${(lastByte / ref.time).toFixed(2)}x`,
        );
      }
      console.log(
        `Peak memory of the service process (VmHWM): ${mb(await peakMemory(service.child.pid))}`,
      );
      return { materialize };
    };

    // The window's pages start at its first event; the first export is materialised at the
    // earliest of the timestamps materialiseAt walks through, all before that event.
    const since = WINDOW_START / 1000 - MATERIALISE_REPEATS;
    const base = await measure("Lake with the window only (10,000 events)", since);

    // 10x history outside the window, in earlier days' partitions, written while the service
    // is stopped, as delivered ingestion would have left it.
    await stopService(service.child);
    const lake = await openLake(config);
    const history = 10 * PAGE;
    for (let start = 0; start < history; start += 20_000) {
      await lake.streams.events.put(
        Array.from({ length: 20_000 }, (_, i) =>
          event(PAGE + start + i, WINDOW_START - 90 * 86_400_000 + (start + i) * 70_000),
        ),
      );
    }
    await lake.close();
    service = await startService(dataDir);
    // Earlier timestamps still, each holding no event: the same rows, new snapshots.
    const withHistory = await measure(
      "Lake with 10x history outside the window (110,000 events)",
      since - MATERIALISE_REPEATS,
    );

    // A page reads its snapshot only, never the lake. Measured in this one process, pages of the
    // snapshot made before the history arrived and of one made after take turns, so that the
    // machine's ups and downs fall on both alike.
    const pageTimes = { before: new Map<string, number[]>(), after: new Map<string, number[]>() };
    for (let i = 0; i < REPEATS; i++) {
      for (const format of EXPORT_FORMATS) {
        for (const [side, timestamp] of [
          ["before", since],
          ["after", since - MATERIALISE_REPEATS],
        ] as const) {
          const times = pageTimes[side].get(format) ?? [];
          times.push((await fetchPage(timestamp, format)).lastByte);
          pageTimes[side].set(format, times);
        }
      }
    }

    console.log("\n10x history cost (with / without)");
    console.log(`materialise ${(withHistory.materialize / base.materialize).toFixed(2)}x`);
    for (const format of EXPORT_FORMATS) {
      const before = median(pageTimes.before.get(format) ?? []);
      const after = median(pageTimes.after.get(format) ?? []);
      console.log(`${format.padEnd(8)} ${(after / before).toFixed(2)}x`);
    }
  } finally {
    await stopService(service.child);
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
