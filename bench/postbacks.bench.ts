/**
 * Postbacks benchmark: a burst of attributed installs through the embedded service (in its own
 * process, as `npm start` runs it), each posted back to a mock ad network on this machine; the
 * time from an install's request being due to its postback reaching the network, and whether
 * every postback came exactly once. Beside the burst, another app's SDK (a process of its own,
 * ./probe-client.ts) sends event batches at a steady pace, before the burst (idle) and during
 * it: postbacks must not slow ingestion.
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
import { type LoadResult, percentile, runLoad, runOpenLoop } from "./http-load.ts";
import { startProbeClient } from "./probe-client.ts";
import { postbacksSection } from "./sections.ts";

const APP = "com.bench.postbacks";
const PROBE_APP = "com.bench.postbacks-probe";
const INSTALLS = Number(process.env.BENCH_POSTBACK_INSTALLS ?? 10_000);
const INSTALLS_PER_SECOND = Number(process.env.BENCH_POSTBACK_RATE ?? 500);
const CONNECTIONS = 32;
const PROBE_PER_SECOND = 50;
const PROBE_EVENTS = 10;
/** The probe's batches alone: enough that their p99 is not one or two slow batches. */
const IDLE_PROBES = 1_000;
/** Batches sent first, unmeasured, so that the figures are of a warm service's. */
const WARM_PROBES = 100;
/**
 * Installs sent first, a second's worth, with their taps and postbacks: the figures are of a
 * service that has handled installs before, not of its code's first runs.
 */
const WARM_INSTALLS = INSTALLS_PER_SECOND;
const TARGET_P99_MS = 5_000;
const TARGET_INGEST_RATIO = 2;
/** How long the postbacks may take to arrive once the burst is sent. */
const DRAIN_LIMIT_MS = 180_000;

const PIXEL =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

const json = (key: string) => ({ authorization: key, "content-type": "application/json" });

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
  const probe = startProbeClient();
  const service = await startService(dataDir, {
    ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK: "true",
    ATTRIBUTION_TRUST_PROXY: "true",
  });
  try {
    const keys = await createAppWithCli(dataDir, APP, "Postbacks bench");
    const probeKeys = await createAppWithCli(dataDir, PROBE_APP, "Postbacks probe");
    /** A run of the probe app's batches, from the probe's own process. */
    const probeRun = (count: number, run: string) =>
      probe.run({
        url: service.url,
        key: probeKeys.sdk,
        count,
        perSecond: PROBE_PER_SECOND,
        events: PROBE_EVENTS,
        run,
      });
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
      gets: Array.from({ length: WARM_INSTALLS + INSTALLS }, (_, i) => ({
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

    /** Installs at the burst's pace, each with the referrer of its tap, from `first` on. */
    const installs = (
      first: number,
      serviceIds: readonly string[],
      onDue?: (index: number, due: number) => void,
    ) =>
      runOpenLoop({
        url: service.url,
        gets: serviceIds.map((serviceId, i) => ({
          path: "/v1/installs",
          headers: {
            ...json(keys.sdk),
            "x-forwarded-for": `172.16.${((first + i) >> 8) & 255}.${(first + i) & 255}`,
          },
          body: JSON.stringify(
            androidInstallRequest(serviceId, {
              install_referrer: { referrer: referrers[first + i] ?? "" },
            }),
          ),
        })),
        perSecond: INSTALLS_PER_SECOND,
        connections: CONNECTIONS,
        check: accepted,
        ...(onDue ? { onDue } : {}),
      });
    /** Waits until each install's postback came, or the drain's limit; how many came. */
    const postbacksOf = async (serviceIds: readonly string[]) => {
      const deadline = performance.now() + DRAIN_LIMIT_MS;
      const arrived = () => serviceIds.filter((sid) => arrivals.has(sid)).length;
      while (arrived() < serviceIds.length && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return arrived();
    };

    // Warm: the probe's batches, and a second of installs with the probe beside them (the
    // first installs a started service takes run its code for the first time).
    const warm = await probeRun(WARM_PROBES, "warm");
    printFailures("probe warm-up", warm);
    const warmIds = Array.from({ length: WARM_INSTALLS }, (_, i) => `bench-warm-${i}`);
    const [warmInstalls, firstSecond] = await Promise.all([
      installs(0, warmIds),
      probeRun(PROBE_PER_SECOND, "first"),
    ]);
    printFailures("warm-up installs", warmInstalls);
    printFailures("probe beside the first installs", firstSecond);
    const warmPostbacks = await postbacksOf(warmIds);
    if (warmPostbacks < warmIds.length) {
      console.log(`  warm-up: ${warmIds.length - warmPostbacks} postbacks did not come`);
    }
    // Idle: the probe app's batches alone.
    const idle = await probeRun(IDLE_PROBES, "idle");
    printFailures("idle probe", idle);

    // The burst, with the probe beside it for as long as the burst is sent.
    const serviceIds = Array.from({ length: INSTALLS }, (_, i) => `bench-postback-${i}`);
    const dueAt: number[] = [];
    const burstSeconds = serviceIds.length / INSTALLS_PER_SECOND;
    const pid = service.child.pid;
    const before = {
      at: performance.now(),
      thread: await cpuSeconds(pid, { mainThread: true }),
      process: await cpuSeconds(pid),
    };
    const [burst, during] = await Promise.all([
      installs(WARM_INSTALLS, serviceIds, (index, due) => {
        dueAt[index] = due;
      }),
      probeRun(Math.ceil(burstSeconds * PROBE_PER_SECOND), "burst"),
    ]);
    const burstMs = performance.now() - before.at;
    const busy = {
      thread: ((await cpuSeconds(pid, { mainThread: true })) - before.thread) / (burstMs / 1000),
      cores: ((await cpuSeconds(pid)) - before.process) / (burstMs / 1000),
    };
    printFailures("burst", burst);
    printFailures("probe during the burst", during);

    await postbacksOf(serviceIds);
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
        warmInstalls: WARM_INSTALLS,
        firstSecondMaxMs: Math.max(0, ...firstSecond.latencies),
      },
      probeIdleP50Ms: percentile(idle.latencies, 50),
      probeBurstP50Ms: percentile(during.latencies, 50),
      probeIdleP99Ms: p99(idle),
      probeBurstP99Ms: p99(during),
      serviceThreadBusy: busy.thread,
      serviceCores: busy.cores,
      targetP99Ms: TARGET_P99_MS,
      targetIngestRatio: TARGET_INGEST_RATIO,
      failedRequests:
        burst.failed +
        during.failed +
        idle.failed +
        warm.failed +
        warmInstalls.failed +
        firstSecond.failed +
        taps.failed,
    };
    console.log(JSON.stringify(figures, null, 2));
    await writeDocsSection("postbacks", postbacksSection({ ...figures, measured: measuredOn() }));
  } finally {
    probe.stop();
    await stopService(service.child);
    await mock.close();
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
