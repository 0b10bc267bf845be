/**
 * Postbacks benchmark: a burst of attributed installs through the embedded service (in its own
 * process, as `npm start` runs it), each posted back to a mock ad network on this machine; the
 * time from an install's request being due to its postback reaching the network, and whether
 * every postback came exactly once. Beside the burst, another app's SDK sends event batches at
 * a steady pace, before the burst (idle) and during it: postbacks must not slow ingestion.
 * Prints figures and whether each target is met; asserts nothing.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readRuntimeInfo } from "../src/embedded/data-dir.ts";
import { androidInstallRequest } from "../test/support/installs.ts";
import { startMockNetwork } from "../test/support/mock-network.ts";
import { createAppWithCli, startService, stopService } from "../test/support/service.ts";
import { cpuSeconds, measuredOn, printFailures, writeDocsSection } from "./figures.ts";
import { type GetRequest, type LoadResult, percentile, runLoad, runOpenLoop } from "./http-load.ts";
import { postbacksSection } from "./sections.ts";

const APP = "com.bench.postbacks";
const PROBE_APP = "com.bench.postbacks-probe";
const INSTALLS = Number(process.env.BENCH_POSTBACK_INSTALLS ?? 10_000);
const INSTALLS_PER_SECOND = Number(process.env.BENCH_POSTBACK_RATE ?? 500);
const CONNECTIONS = 32;
const PROBE_PER_SECOND = 20;
const PROBE_EVENTS = 10;
/** The probe's batches alone: enough that their p99 is not one or two slow batches. */
const IDLE_PROBES = 400;
/** Batches sent first, unmeasured, so that the figures are of a warm service's. */
const WARM_PROBES = 40;
const TARGET_P99_MS = 5_000;
const TARGET_INGEST_RATIO = 2;
/** How long the postbacks may take to arrive once the burst is sent. */
const DRAIN_LIMIT_MS = 180_000;

const PIXEL =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

const json = (key: string) => ({ authorization: key, "content-type": "application/json" });

/** Event batches of the probe app, one request per `PROBE_PER_SECOND`th of a second. */
const probeRequests = (key: string, count: number, run: string): GetRequest[] =>
  Array.from({ length: count }, (_, i) => ({
    path: "/v1/events",
    headers: json(key),
    body: JSON.stringify({
      events: Array.from({ length: PROBE_EVENTS }, (_, e) => ({
        event_id: `${run}-${i}-${e}`,
        service_id: "bench-probe-device",
        event_type: "LEVEL_COMPLETE",
        event_time: new Date().toISOString(),
        parameters: { level: e },
      })),
    }),
  }));

const accepted = (status: number) => (status === 202 ? undefined : `status ${status}`);

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-bench-postbacks-"));
  // Postback arrival times on this process's clock, by service id.
  const arrivals = new Map<string, number[]>();
  const mock = await startMockNetwork((request) => {
    const sid = request.query.get("sid") ?? "";
    const seen = arrivals.get(sid) ?? [];
    seen.push(performance.now());
    arrivals.set(sid, seen);
    return { status: 200, body: "ok" };
  });
  const service = await startService(dataDir, {
    ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK: "true",
    ATTRIBUTION_TRUST_PROXY: "true",
  });
  try {
    const keys = await createAppWithCli(dataDir, APP, "Postbacks bench");
    const probeKeys = await createAppWithCli(dataDir, PROBE_APP, "Postbacks probe");
    const linkUrl = (await readRuntimeInfo(dataDir))?.linkUrl ?? "";
    const saved = await fetch(`${service.url}/v1/postbacks/partners/bench-net`, {
      method: "PUT",
      headers: json(keys.server),
      body: JSON.stringify({
        partner: "custom",
        template: {
          method: "GET",
          install: { url: `${mock.url}/install?sid={service_id}&click={click_id}` },
        },
        media_sources: ["bench_net"],
      }),
    });
    if (saved.status !== 200) throw new Error(`saving the partner: ${await saved.text()}`);
    const made = await fetch(`${service.url}/v1/links`, {
      method: "POST",
      headers: json(keys.server),
      body: JSON.stringify({ media_source: "bench_net", campaign_name: "bench" }),
    });
    const { deeplink_id } = (await made.json()) as { deeplink_id: string };

    // One tap per install, each from its own address: its Play referrer names its click.
    const referrers: string[] = [];
    const taps = await runLoad({
      url: linkUrl,
      headers: {},
      gets: Array.from({ length: INSTALLS }, (_, i) => ({
        path: `/${deeplink_id}`,
        headers: {
          "user-agent": PIXEL,
          "x-forwarded-for": `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
        },
      })),
      concurrency: CONNECTIONS,
      check: (status, _body, headers) => {
        const referrer = new URL(headers.location ?? "", "http://x").searchParams.get("referrer");
        if (status !== 302 || !referrer) return `tap answered ${status}`;
        referrers.push(referrer);
        return undefined;
      },
    });
    printFailures("taps", taps);

    const warm = await runOpenLoop({
      url: service.url,
      gets: probeRequests(probeKeys.sdk, WARM_PROBES, "warm"),
      perSecond: PROBE_PER_SECOND,
      connections: 4,
      check: accepted,
    });
    printFailures("probe warm-up", warm);
    // Idle: the probe app's batches alone.
    const idle = await runOpenLoop({
      url: service.url,
      gets: probeRequests(probeKeys.sdk, IDLE_PROBES, "idle"),
      perSecond: PROBE_PER_SECOND,
      connections: 4,
      check: accepted,
    });
    printFailures("idle probe", idle);

    // The burst, with the probe beside it for as long as the burst is sent.
    const serviceIds = referrers.map((_, i) => `bench-postback-${i}`);
    const dueAt: number[] = [];
    const burstSeconds = referrers.length / INSTALLS_PER_SECOND;
    const pid = service.child.pid;
    const before = {
      at: performance.now(),
      thread: await cpuSeconds(pid, { mainThread: true }),
      process: await cpuSeconds(pid),
    };
    const [burst, during] = await Promise.all([
      runOpenLoop({
        url: service.url,
        gets: referrers.map((referrer, i) => ({
          path: "/v1/installs",
          headers: { ...json(keys.sdk), "x-forwarded-for": `172.16.${(i >> 8) & 255}.${i & 255}` },
          body: JSON.stringify(
            androidInstallRequest(serviceIds[i] ?? "", { install_referrer: { referrer } }),
          ),
        })),
        perSecond: INSTALLS_PER_SECOND,
        connections: CONNECTIONS,
        check: accepted,
        onDue: (index, due) => {
          dueAt[index] = due;
        },
      }),
      runOpenLoop({
        url: service.url,
        gets: probeRequests(probeKeys.sdk, Math.ceil(burstSeconds * PROBE_PER_SECOND), "burst"),
        perSecond: PROBE_PER_SECOND,
        connections: 4,
        check: accepted,
      }),
    ]);
    const burstMs = performance.now() - before.at;
    const busy = {
      thread: ((await cpuSeconds(pid, { mainThread: true })) - before.thread) / (burstMs / 1000),
      cores: ((await cpuSeconds(pid)) - before.process) / (burstMs / 1000),
    };
    printFailures("burst", burst);
    printFailures("probe during the burst", during);

    const deadline = performance.now() + DRAIN_LIMIT_MS;
    const arrived = () => serviceIds.filter((sid) => arrivals.has(sid)).length;
    while (arrived() < serviceIds.length && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // A moment more for a second postback of any install to show.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const delays: number[] = [];
    let twice = 0;
    serviceIds.forEach((sid, i) => {
      const seen = arrivals.get(sid);
      const due = dueAt[i];
      if (!seen || due === undefined) return;
      if (seen.length > 1) twice += 1;
      delays.push((seen[0] ?? due) - due);
    });
    delays.sort((a, b) => a - b);
    const lost = serviceIds.length - delays.length;
    const p99 = (load: LoadResult) => percentile(load.latencies, 99);
    const figures = {
      installs: serviceIds.length,
      perSecond: INSTALLS_PER_SECOND,
      p50Ms: percentile(delays, 50),
      p99Ms: percentile(delays, 99),
      maxMs: delays.at(-1) ?? 0,
      lost,
      twice,
      installP99Ms: p99(burst),
      probe: {
        perSecond: PROBE_PER_SECOND,
        events: PROBE_EVENTS,
        idle: idle.requests,
        burst: during.requests,
      },
      probeIdleP50Ms: percentile(idle.latencies, 50),
      probeBurstP50Ms: percentile(during.latencies, 50),
      probeIdleP99Ms: p99(idle),
      probeBurstP99Ms: p99(during),
      serviceThreadBusy: busy.thread,
      serviceCores: busy.cores,
      targetP99Ms: TARGET_P99_MS,
      targetIngestRatio: TARGET_INGEST_RATIO,
      failedRequests: burst.failed + during.failed + idle.failed + warm.failed + taps.failed,
    };
    console.log(JSON.stringify(figures, null, 2));
    await writeDocsSection("postbacks", postbacksSection({ ...figures, measured: measuredOn() }));
  } finally {
    await stopService(service.child);
    await mock.close();
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
