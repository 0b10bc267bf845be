/**
 * Ingestion benchmark: SDK event batches through the embedded gateway (the service in its own
 * process, as `npm start` runs it), next to a bare Node HTTP server doing only the HTTP and the
 * JSON (the reference), and next to that reference with the service's own checks and lake rows
 * added (the floor: what the service's work on the events costs before any of it is stored),
 * under the same load in the same run; then each Lambda function's
 * bundle as the CDK ships it and its cold import. The servers take turns over several rounds,
 * one running at a time, so a slow spell of the machine falls on both; the verdicts
 * are on the medians. Prints figures and whether each target is met; asserts nothing.
 */
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { exportEventName } from "../src/domain/event-types.ts";
import {
  createAppWithCli,
  peakMemory,
  START_FLAGS,
  spawnListening,
  startService,
  stopService,
} from "../test/support/service.ts";
import {
  cpuMs,
  int,
  kb,
  lakeRows,
  type Measured,
  mb,
  measuredOn,
  measureServer,
  median,
  ms,
  printFailures,
  verdict,
  writeDocsSection,
} from "./figures.ts";
import { percentile, runLoad } from "./http-load.ts";
import {
  type BundleResult,
  bundleFunction,
  FUNCTION_NAMES,
  type ImportTiming,
  timeImport,
} from "./lambda-bundles.ts";
import { type BundleFigures, ingestSection, type ServerRun } from "./sections.ts";

const APP = "com.bench.ingest";
const SERVICE_ID = "bench-device-1";
const EVENTS_PER_BATCH = 50;
const CLIENTS = 32;
const WARMUP_BATCHES = 1_000;
const BATCHES = 2_000;
const ROUNDS = 3;
const IMPORT_REPEATS = 5;

const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 50;
const TARGET_BUNDLE_BYTES = 1024 * 1024;

const BARE_SERVER = fileURLToPath(new URL("./bare-server.mjs", import.meta.url));
const CHECKS_SERVER = fileURLToPath(new URL("./checks-server.ts", import.meta.url));
const PROJECT_DIR = fileURLToPath(new URL("..", import.meta.url));

/**
 * A mix of what an SDK sends: progress, a purchase with revenue, a custom event, a login; from
 * a signed-in user, so each event carries the customer user id.
 */
const event = (batch: string, i: number, eventTime: string) => {
  const base = {
    event_id: `${batch}-e${i}`,
    service_id: SERVICE_ID,
    customer_user_id: "bench-user-1",
    event_time: eventTime,
  };
  switch (i % 10) {
    case 0:
      return {
        ...base,
        event_type: "PURCHASE",
        parameters: { revenue: 4.99, currency: "EUR", sku: "gems_100" },
      };
    case 1:
      return {
        ...base,
        event_type: "CUSTOM",
        event_name: "Boss Defeated",
        parameters: { boss: 3 },
      };
    case 2:
      return { ...base, event_type: "LOGIN" };
    default:
      return { ...base, event_type: "LEVEL_COMPLETE", parameters: { level: i, stars: i % 3 } };
  }
};

/** Every body built before the clock starts, each batch with its own event ids. */
const batches = (prefix: string, count: number): string[] => {
  const eventTime = new Date(Date.now() - 10 * 60_000).toISOString();
  return Array.from({ length: count }, (_, b) =>
    JSON.stringify({
      events: Array.from({ length: EVENTS_PER_BATCH }, (_, i) =>
        event(`${prefix}${b}`, i, eventTime),
      ),
    }),
  );
};

/** A failure's label: the status and the service's own words, short. */
const checkAnswer = (status: number, body: string): string | undefined => {
  let answer: { accepted?: unknown; rejected?: { detail?: string }[]; detail?: string } = {};
  try {
    answer = JSON.parse(body);
  } catch {
    return `${status} with a body that is not JSON`;
  }
  if (status !== 202) return `${status}: ${String(answer.detail ?? "").slice(0, 100)}`;
  if (answer.accepted !== EVENTS_PER_BATCH) {
    const detail = answer.rejected?.[0]?.detail ?? "";
    return `202 with accepted ${String(answer.accepted)}: ${detail.slice(0, 100)}`;
  }
  return undefined;
};

/** The bare reference server in its own process, with the Node flags the service gets. */
const startBareServer = () => spawnListening([...START_FLAGS, BARE_SERVER]);
/** The floor: the reference plus the service's checks and lake rows, TypeScript run by tsx. */
const startChecksServer = () => spawnListening([...START_FLAGS, "--import", "tsx", CHECKS_SERVER]);

/** A warm-up, then the measured run, against one server process. */
const measure = (
  child: ChildProcess,
  url: string,
  headers: Record<string, string>,
  warmup: string[],
  bodies: string[],
): Promise<Measured> =>
  measureServer(
    child.pid,
    (list: string[]) =>
      runLoad({ url, headers, bodies: list, concurrency: CLIENTS, check: checkAnswer }),
    warmup,
    bodies,
  );

/** A run's figures for the docs: events a second, latency, server CPU per batch. */
const runFigures = (label: string, m: Measured): ServerRun => ({
  label,
  perSecond: ((m.load.requests - m.load.failed) * EVENTS_PER_BATCH) / m.load.seconds,
  p50Ms: percentile(m.load.latencies, 50),
  p99Ms: percentile(m.load.latencies, 99),
  cpuMs: (m.serverCpu / m.load.requests) * 1000,
  failed: m.load.failed,
});

const row = (label: string, m: Measured) => {
  const { load } = m;
  const events = (load.requests - load.failed) * EVENTS_PER_BATCH;
  return [
    label.padEnd(20),
    int(events / load.seconds).padStart(9),
    int(load.requests / load.seconds).padStart(9),
    ms(percentile(load.latencies, 50)).padStart(9),
    ms(percentile(load.latencies, 99)).padStart(9),
    ms(load.latencies.at(-1) ?? 0).padStart(9),
    cpuMs((m.serverCpu / load.requests) * 1000).padStart(11),
    cpuMs((m.clientCpu / load.requests) * 1000).padStart(11),
    String(load.failed).padStart(8),
  ].join(" ");
};

/** The first install of the bench device: what every event refers to. */
const install = async (url: string, sdkKey: string) => {
  const installed = await fetch(`${url}/v1/installs`, {
    method: "POST",
    headers: { authorization: sdkKey, "content-type": "application/json" },
    body: JSON.stringify({
      service_id: SERVICE_ID,
      os: "android",
      os_version: "15",
      device_model: "Pixel 9",
      app_version: "1.0.0",
      sdk_platform: "kotlin",
      sdk_version: "1.11.0",
      first_open_time: new Date(Date.now() - 3_600_000).toISOString(),
    }),
  });
  if (installed.status !== 202) {
    throw new Error(`install: ${installed.status} ${await installed.text()}`);
  }
};

interface Round {
  readonly service: Measured;
  readonly reference: Measured;
  readonly floor: Measured;
  readonly servicePeak: number;
  readonly referencePeak: number;
  readonly stopMs: number;
  readonly exitCode: number | null;
}

const rate = (m: Measured) => (m.load.requests - m.load.failed) / m.load.seconds;
const ratioOf = (round: Round) => rate(round.service) / rate(round.reference);
const floorRatioOf = (round: Round) => rate(round.floor) / rate(round.reference);

const main = async () => {
  // The SDK's notice about its 2027 releases needing Node 22 would clutter the figures.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-bench-ingest-"));
  // Inside the project, so a bundle's imports of the AWS SDK (left to the Lambda runtime)
  // resolve from node_modules when it is imported.
  await mkdir(join(PROJECT_DIR, "node_modules", ".cache"), { recursive: true });
  const bundleDir = await mkdtemp(join(PROJECT_DIR, "node_modules", ".cache", "bench-bundles-"));
  const children: ChildProcess[] = [];
  try {
    console.log(
      `Ingestion: ${ROUNDS} rounds, each ${int(BATCHES)} batches of ${EVENTS_PER_BATCH} events (${int(BATCHES * EVENTS_PER_BATCH)} events) from ${CLIENTS} keep-alive clients after ${int(WARMUP_BATCHES)} warm-up batches, to the service, then to the reference, then to the floor`,
    );

    // An app made with the CLI in the service's data folder, kept over the rounds.
    let sdkKey: string | undefined;
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Every batch of every round has its own event ids: the lake must end up with all.
      const warmup = batches(`r${round}w`, WARMUP_BATCHES);
      const bodies = batches(`r${round}b`, BATCHES);

      const service = await startService(dataDir);
      children.push(service.child);
      if (sdkKey === undefined) {
        sdkKey = (await createAppWithCli(dataDir, APP, "Bench")).sdk;
        await install(service.url, sdkKey);
      }
      const headers = { authorization: sdkKey, "content-type": "application/json" };
      const measured = await measure(
        service.child,
        `${service.url}/v1/events`,
        headers,
        warmup,
        bodies,
      );
      const servicePeak = await peakMemory(service.child.pid);
      const stopping = performance.now();
      const exitCode = await stopService(service.child);
      const stopMs = performance.now() - stopping;

      const bare = await startBareServer();
      children.push(bare.child);
      const reference = await measure(bare.child, `${bare.url}/v1/events`, headers, warmup, bodies);
      const referencePeak = await peakMemory(bare.child.pid);
      await stopService(bare.child);

      const checks = await startChecksServer();
      children.push(checks.child);
      const floor = await measure(checks.child, `${checks.url}/v1/events`, headers, warmup, bodies);
      await stopService(checks.child);
      rounds.push({
        service: measured,
        reference,
        floor,
        servicePeak,
        referencePeak,
        stopMs,
        exitCode,
      });
    }

    console.log(
      `\n${"".padEnd(20)} ${"events/s".padStart(9)} ${"batches/s".padStart(9)} ${"p50".padStart(9)} ${"p99".padStart(9)} ${"max".padStart(9)} ${"server CPU".padStart(11)} ${"client CPU".padStart(11)} ${"failures".padStart(8)}`,
    );
    console.log(
      `${"".padEnd(20)} ${"".padStart(61)} ${"per batch".padStart(11)} ${"per batch".padStart(11)}`,
    );
    rounds.forEach((round, i) => {
      console.log(row(`${i + 1}: service`, round.service));
      console.log(row(`${i + 1}: bare reference`, round.reference));
      console.log(row(`${i + 1}: floor`, round.floor));
      console.log(
        `${"".padEnd(20)} ratio ${ratioOf(round).toFixed(2)}, floor's ${floorRatioOf(round).toFixed(2)}`,
      );
      printFailures(`round ${i + 1}, service`, round.service.load);
      printFailures(`round ${i + 1}, bare Node reference`, round.reference.load);
      printFailures(`round ${i + 1}, floor`, round.floor.load);
    });

    const ratio = median(rounds.map(ratioOf));
    const floorRatio = median(rounds.map(floorRatioOf));
    const p99 = median(rounds.map((r) => percentile(r.service.load.latencies, 99)));
    console.log(
      `\nservice / reference throughput, median of ${ROUNDS} rounds: ${ratio.toFixed(2)} (target at least ${TARGET_RATIO}: ${verdict(ratio >= TARGET_RATIO)})`,
    );
    console.log(
      `floor / reference throughput, median of ${ROUNDS} rounds: ${floorRatio.toFixed(2)} (the reference plus the service's checks and lake rows, nothing stored: a bound on the service's ratio on this machine)`,
    );
    console.log(
      `service p99, median of ${ROUNDS} rounds: ${ms(p99)} (target under ${TARGET_P99_MS} ms: ${verdict(p99 < TARGET_P99_MS)})`,
    );
    if (
      rounds.some(
        (r) => r.service.load.failed > 0 || r.reference.load.failed > 0 || r.floor.load.failed > 0,
      )
    ) {
      console.log("This run had failed requests: its figures are not valid.");
    }
    const servicePeak = Math.max(...rounds.map((r) => r.servicePeak));
    const referencePeak = Math.max(...rounds.map((r) => r.referencePeak));
    const stopMs = Math.max(...rounds.map((r) => r.stopMs));
    const exitCodes = [...new Set(rounds.map((r) => r.exitCode))].join(", ");
    console.log(
      `Peak memory (VmHWM): service ${mb(servicePeak)}, reference ${mb(referencePeak)}; longest service stop (final lake delivery) ${ms(stopMs)}, exit codes ${exitCodes}`,
    );
    // The bench device's own install event, which the attribution worker adds, is not one sent.
    const delivered = await lakeRows(
      dataDir,
      "events",
      "event_id",
      `event_name <> '${exportEventName("INSTALL")}'`,
    );
    const accepted = ROUNDS * (WARMUP_BATCHES + BATCHES) * EVENTS_PER_BATCH;
    const lake = `Events in the lake after the stops: ${int(delivered.rows)} rows, ${int(delivered.distinct)} distinct ids, of ${int(accepted)} sent (warm-ups included)${delivered.rows === accepted && delivered.distinct === accepted ? "" : " — MISMATCH"}`;
    console.log(lake);

    console.log("\nLambda bundles (esbuild as lib/service-function.ts bundles them)");
    const bundles: BundleResult[] = [];
    for (const name of FUNCTION_NAMES) bundles.push(await bundleFunction(name, bundleDir));
    console.log(
      `${"function".padEnd(12)} ${"bundle".padStart(10)}  ${"< 1 MB".padEnd(8)} ${"import".padStart(9)} ${"process".padStart(9)}  (median of ${IMPORT_REPEATS} fresh node processes)`,
    );
    let importFailures = 0;
    const bundleFigures: BundleFigures[] = [];
    for (const bundle of bundles) {
      const size = `${bundle.name.padEnd(12)} ${kb(bundle.bytes).padStart(10)}  ${verdict(bundle.bytes < TARGET_BUNDLE_BYTES).padEnd(8)}`;
      const warnings = bundle.warnings > 0 ? `  ${bundle.warnings} esbuild warnings` : "";
      try {
        const timings: ImportTiming[] = [];
        for (let i = 0; i < IMPORT_REPEATS; i++) timings.push(await timeImport(bundle));
        const importMs = median(timings.map((t) => t.importMs));
        bundleFigures.push({ name: bundle.name, bytes: bundle.bytes, importMs });
        console.log(
          `${size} ${ms(median(timings.map((t) => t.importMs))).padStart(9)} ${ms(median(timings.map((t) => t.processMs))).padStart(9)}${warnings}`,
        );
      } catch (error) {
        importFailures++;
        bundleFigures.push({ name: bundle.name, bytes: bundle.bytes, importMs: null });
        console.log(`${size} ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (importFailures > 0) console.log(`${importFailures} bundles FAILED to import.`);
    const over = bundles.filter((b) => b.bytes >= TARGET_BUNDLE_BYTES);
    console.log(
      `Bundles under 1 MB: ${bundles.length - over.length} of ${bundles.length} (target: all: ${verdict(over.length === 0)})`,
    );
    await writeDocsSection(
      "ingest",
      ingestSection({
        setup: `${ROUNDS} rounds, each ${int(BATCHES)} batches of ${EVENTS_PER_BATCH} events from ${CLIENTS} keep-alive clients after ${int(WARMUP_BATCHES)} warm-up batches, to the service, then to the reference, then to the floor, one server running at a time with the Node flags of \`npm start\``,
        rounds: rounds.map((round) => [
          runFigures("service (embedded)", round.service),
          runFigures("bare Node reference", round.reference),
          runFigures("floor", round.floor),
        ]),
        ratio,
        targetRatio: TARGET_RATIO,
        floorRatio,
        p99Ms: p99,
        targetP99Ms: TARGET_P99_MS,
        servicePeakBytes: servicePeak,
        lake,
        bundles: bundleFigures,
        targetBundleBytes: TARGET_BUNDLE_BYTES,
        measured: measuredOn(),
      }),
    );
  } finally {
    for (const child of children) await stopService(child);
    await rm(dataDir, { recursive: true, force: true });
    await rm(bundleDir, { recursive: true, force: true });
  }
};

await main();
