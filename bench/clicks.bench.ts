/**
 * Click benchmark: taps on a link through the link host (the service in its own process, as
 * `npm start` runs it, told to trust X-Forwarded-For so each tap stands for another device),
 * next to a bare Node server that answers the same 302 and nothing else (the reference), under
 * the same load in the same run. The two take turns over several rounds; the verdicts are on
 * the medians. Every tap is checked (a 302 to the Play Store with a click id in the referrer),
 * and every click must reach the lake. Prints figures and whether each target is met.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readRuntimeInfo } from "../src/embedded/data-dir.ts";
import { clickIdOfReferrer } from "../src/touches/destination.ts";
import {
  cli,
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
import { type GetRequest, percentile, runLoad } from "./http-load.ts";
import { clicksSection, type ServerRun } from "./sections.ts";

const APP = "com.bench.clicks";
const CLIENTS = 32;
const WARMUP_CLICKS = 2_000;
const CLICKS = 10_000;
const ROUNDS = 3;

const TARGET_P99_MS = 20;
const TARGET_CPU_RATIO = 3;

const BARE_SERVER = fileURLToPath(new URL("./bare-redirect-server.mjs", import.meta.url));

/** Phones of the three kinds that tap ads; desktops go to the web, the rest to a store. */
const AGENTS = [
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36",
];

/** Each tap from its own device: its own address, an ad network's click id in the query. */
const taps = (deeplinkId: string, prefix: string, count: number): GetRequest[] =>
  Array.from({ length: count }, (_, i) => ({
    path: `/${deeplinkId}?sub1=${prefix}${i}&fbclid=IwAR${prefix}${i}`,
    headers: {
      "user-agent": AGENTS[i % AGENTS.length] ?? "",
      "x-forwarded-for": `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}, 10.0.0.1`,
      "accept-language": "en-US,en;q=0.9",
    },
  }));

/** A tap's answer: the Play Store, with a click id the install referrer brings back. */
const checkTap = (status: number, location: string | undefined) => {
  if (status !== 302) return `${status}`;
  if (!location?.startsWith("https://play.google.com/")) return `302 to ${location}`;
  return undefined;
};

/** A warm-up, then the measured run; a counted tap must carry a click id in its referrer. */
const measure = (
  child: ChildProcess,
  url: string,
  warmup: GetRequest[],
  gets: GetRequest[],
  counted: boolean,
): Promise<Measured> =>
  measureServer(
    child.pid,
    (list: GetRequest[]) =>
      runLoad({
        url,
        headers: {},
        gets: list,
        concurrency: CLIENTS,
        check: (status, _body, headers) => {
          const problem = checkTap(status, headers.location);
          if (problem || !counted) return problem;
          const referrer = new URL(headers.location ?? "").searchParams.get("referrer");
          return clickIdOfReferrer(referrer) ? undefined : "302 without a click id";
        },
      }),
    warmup,
    gets,
  );

/** A run's figures for the docs: clicks a second, latency, server CPU per click. */
const runFigures = (label: string, m: Measured): ServerRun => ({
  label,
  perSecond: (m.load.requests - m.load.failed) / m.load.seconds,
  p50Ms: percentile(m.load.latencies, 50),
  p99Ms: percentile(m.load.latencies, 99),
  cpuMs: (m.serverCpu / m.load.requests) * 1000,
  failed: m.load.failed,
});

const row = (label: string, m: Measured) => {
  const { load } = m;
  return [
    label.padEnd(20),
    int((load.requests - load.failed) / load.seconds).padStart(9),
    ms(percentile(load.latencies, 50)).padStart(9),
    ms(percentile(load.latencies, 99)).padStart(9),
    ms(load.latencies.at(-1) ?? 0).padStart(9),
    cpuMs((m.serverCpu / load.requests) * 1000).padStart(11),
    cpuMs((m.clientCpu / load.requests) * 1000).padStart(11),
    String(load.failed).padStart(8),
  ].join(" ");
};

interface Round {
  readonly service: Measured;
  readonly reference: Measured;
  readonly servicePeak: number;
}

const cpuPerClick = (m: Measured) => m.serverCpu / m.load.requests;
const cpuRatioOf = (round: Round) => cpuPerClick(round.service) / cpuPerClick(round.reference);

const main = async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  // The load stands for many devices through X-Forwarded-For, as a proxy in front would write.
  process.env.ATTRIBUTION_TRUST_PROXY = "true";
  // Taps are measured, not the rates refresh, which would only log that it is offline.
  process.env.ATTRIBUTION_FX_FEED_URL ??= "off";
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-bench-clicks-"));
  const children: ChildProcess[] = [];
  try {
    console.log(
      `\nClicks: ${ROUNDS} rounds, each ${int(CLICKS)} taps on one link from ${CLIENTS} keep-alive clients after ${int(WARMUP_CLICKS)} warm-up taps, each tap from its own address, to the link host, then to a bare Node server answering the same 302`,
    );
    let deeplinkId: string | undefined;
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const service = await startService(dataDir);
      children.push(service.child);
      if (deeplinkId === undefined) {
        await createAppWithCli(dataDir, APP, "Bench");
        const created: unknown = JSON.parse(
          await cli(
            dataDir,
            "links",
            "create",
            "--app-id",
            APP,
            "--media-source",
            "bench",
            "--json",
          ),
        );
        deeplinkId =
          typeof created === "object" && created && "deeplink_id" in created
            ? String(created.deeplink_id)
            : "";
      }
      const linkUrl = (await readRuntimeInfo(dataDir))?.linkUrl ?? "";
      const warmup = taps(deeplinkId, `r${round}w`, WARMUP_CLICKS);
      const gets = taps(deeplinkId, `r${round}m`, CLICKS);
      const measured = await measure(service.child, linkUrl, warmup, gets, true);
      const servicePeak = await peakMemory(service.child.pid);
      await stopService(service.child);

      const bare = await spawnListening([...START_FLAGS, BARE_SERVER]);
      children.push(bare.child);
      const reference = await measure(bare.child, bare.url, warmup, gets, false);
      await stopService(bare.child);
      rounds.push({ service: measured, reference, servicePeak });
    }

    console.log(
      `\n${"".padEnd(20)} ${"clicks/s".padStart(9)} ${"p50".padStart(9)} ${"p99".padStart(9)} ${"max".padStart(9)} ${"server CPU".padStart(11)} ${"client CPU".padStart(11)} ${"failures".padStart(8)}`,
    );
    console.log(
      `${"".padEnd(20)} ${"".padStart(39)} ${"per click".padStart(11)} ${"per click".padStart(11)}`,
    );
    rounds.forEach((round, i) => {
      console.log(row(`${i + 1}: link host`, round.service));
      console.log(row(`${i + 1}: bare 302`, round.reference));
      console.log(
        `${"".padEnd(20)} server CPU per click ${cpuRatioOf(round).toFixed(2)}x the reference's`,
      );
      printFailures(`round ${i + 1}, link host`, round.service.load);
      printFailures(`round ${i + 1}, bare 302`, round.reference.load);
    });

    const cpuRatio = median(rounds.map(cpuRatioOf));
    const p99 = median(rounds.map((r) => percentile(r.service.load.latencies, 99)));
    const p50 = median(rounds.map((r) => percentile(r.service.load.latencies, 50)));
    const rate = median(
      rounds.map((r) => (r.service.load.requests - r.service.load.failed) / r.service.load.seconds),
    );
    console.log(`\nlink host clicks/s, median of ${ROUNDS} rounds: ${int(rate)}; p50 ${ms(p50)}`);
    console.log(
      `link host p99, median of ${ROUNDS} rounds: ${ms(p99)} (target under ${TARGET_P99_MS} ms: ${verdict(p99 < TARGET_P99_MS)})`,
    );
    console.log(
      `server CPU per click, link host / reference, median of ${ROUNDS} rounds: ${cpuRatio.toFixed(2)}x (target at most ${TARGET_CPU_RATIO}x: ${verdict(cpuRatio <= TARGET_CPU_RATIO)})`,
    );
    if (rounds.some((r) => r.service.load.failed > 0 || r.reference.load.failed > 0)) {
      console.log("This run had failed taps: its figures are not valid.");
    }
    const servicePeak = Math.max(...rounds.map((r) => r.servicePeak));
    console.log(`Peak memory (VmHWM) of the service: ${mb(servicePeak)}`);
    const delivered = await lakeRows(dataDir, "touches", "click_id");
    const sent = ROUNDS * (WARMUP_CLICKS + CLICKS);
    const lake = `Clicks in the lake after the stops: ${int(delivered.rows)} rows, ${int(delivered.distinct)} distinct click ids, of ${int(sent)} taps (warm-ups included)${delivered.rows === sent && delivered.distinct === sent ? "" : " — MISMATCH"}`;
    console.log(lake);
    await writeDocsSection(
      "clicks",
      clicksSection({
        setup: `${ROUNDS} rounds, each ${int(CLICKS)} taps on one link from ${CLIENTS} keep-alive clients after ${int(WARMUP_CLICKS)} warm-up taps, each tap from its own address with a phone's user agent, to the link host, then to the reference, one server running at a time`,
        rounds: rounds.map((round) => [
          runFigures("link host (embedded)", round.service),
          runFigures("bare 302 reference", round.reference),
        ]),
        perSecond: rate,
        p99Ms: p99,
        targetP99Ms: TARGET_P99_MS,
        cpuRatio,
        targetCpuRatio: TARGET_CPU_RATIO,
        servicePeakBytes: servicePeak,
        lake,
        measured: measuredOn(),
      }),
    );
  } finally {
    for (const child of children) await stopService(child);
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
