/**
 * Soak benchmark: the service (its own process, as `npm start` runs it) under the heaviest
 * ingestion this machine can give for ten minutes, its resident memory sampled as it goes.
 * 32 keep-alive clients each report a new install now and then and otherwise send batches of
 * 50 events from the installs they reported, each answer checked, for SOAK_SECONDS (600 by
 * default). Every 15 seconds a row: the service's resident memory (VmRSS) and what of it is
 * anonymous (heaps, buffers, DuckDB), and the events accepted per second since the last row.
 * At the end the peak, the plateau (the highest sample of the second half) against the target,
 * and whether every acknowledged event reached the lake. Prints figures; asserts nothing.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createAppWithCli, memoryOf, startService, stopService } from "../test/support/service.ts";
import { int, lakeRows, mb, measuredOn, ms, verdict, writeDocsSection } from "./figures.ts";
import { send } from "./http-load.ts";
import { soakSection } from "./sections.ts";

const APP = "com.bench.soak";
const CLIENTS = 32;
const EVENTS_PER_BATCH = 50;
/** One request in this many reports a new install; its events follow in later batches. */
const INSTALL_EVERY = 10;
/** Installs a client sends events for, the newest; older ones have gone quiet. */
const ACTIVE_DEVICES = 20;
const SAMPLE_SECONDS = 15;
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
/** Far above what one client can send in the time: a bound should the clock misbehave. */
const MAX_REQUESTS_PER_CLIENT = SECONDS * 1_000;
const REQUEST_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 120_000;

const TARGET_PLATEAU_BYTES = 1024 * 1024 * 1024;

/** VmRSS and RssAnon of a process, in bytes. */
const residentMemory = async (pid: number | undefined) => {
  const { VmRSS, RssAnon } = await memoryOf(pid, ["VmRSS", "RssAnon"]);
  return { rss: VmRSS, anon: RssAnon };
};

const install = (serviceId: string, firstOpen: string) =>
  JSON.stringify({
    service_id: serviceId,
    os: "android",
    os_version: "15",
    device_model: "Pixel 9",
    app_version: "1.0.0",
    sdk_platform: "kotlin",
    sdk_version: "1.11.0",
    first_open_time: firstOpen,
    customer_user_id: `user-${serviceId}`,
  });

/**
 * A batch of what an SDK sends, as ingest.bench.ts sends it (progress, a purchase with revenue,
 * a custom event, a login), from a signed-in user; every event with its own id.
 */
const batch = (serviceId: string, prefix: string, eventTime: string) => {
  const events: string[] = [];
  for (let i = 0; i < EVENTS_PER_BATCH; i++) {
    const head = `{"event_id":"${prefix}-${i}","service_id":"${serviceId}","customer_user_id":"user-${serviceId}","event_time":"${eventTime}",`;
    switch (i % 10) {
      case 0:
        events.push(
          `${head}"event_type":"PURCHASE","parameters":{"revenue":4.99,"currency":"EUR","sku":"gems_100"}}`,
        );
        break;
      case 1:
        events.push(
          `${head}"event_type":"CUSTOM","event_name":"Boss Defeated","parameters":{"boss":3}}`,
        );
        break;
      case 2:
        events.push(`${head}"event_type":"LOGIN"}`);
        break;
      default:
        events.push(
          `${head}"event_type":"LEVEL_COMPLETE","parameters":{"level":${i},"stars":${i % 3}}}`,
        );
    }
  }
  return `{"events":[${events.join(",")}]}`;
};

interface Tally {
  requests: number;
  installs: number;
  /** Events the service answered as accepted: each must reach the lake. */
  accepted: number;
  readonly latencies: number[];
  readonly failures: Map<string, number>;
}

const fail = (tally: Tally, label: string) =>
  tally.failures.set(label, (tally.failures.get(label) ?? 0) + 1);

/** One client's loop: until the deadline, an install now and then, otherwise a batch. */
const client = async (
  index: number,
  url: string,
  headers: Record<string, string>,
  agent: Agent,
  deadline: number,
  tally: Tally,
) => {
  const devices: string[] = [];
  const installsUrl = new URL(`${url}/v1/installs`);
  const eventsUrl = new URL(`${url}/v1/events`);
  for (let n = 0; n < MAX_REQUESTS_PER_CLIENT && performance.now() < deadline; n++) {
    const reportInstall = devices.length === 0 || n % INSTALL_EVERY === 0;
    const now = new Date().toISOString();
    let serviceId: string;
    let body: string;
    if (reportInstall) {
      serviceId = `soak-c${index}-d${n}`;
      body = install(serviceId, now);
    } else {
      serviceId = devices[n % devices.length] ?? "";
      body = batch(serviceId, `c${index}-r${n}`, now);
    }
    const started = performance.now();
    try {
      const answer = await send(
        agent,
        reportInstall ? installsUrl : eventsUrl,
        headers,
        body,
        REQUEST_TIMEOUT_MS,
      );
      tally.latencies.push(performance.now() - started);
      tally.requests++;
      if (answer.status !== 202) {
        fail(tally, `${answer.status}: ${answer.body.slice(0, 100)}`);
      } else if (reportInstall) {
        tally.installs++;
        devices.push(serviceId);
        if (devices.length > ACTIVE_DEVICES) devices.shift();
      } else {
        const accepted = Number((JSON.parse(answer.body) as { accepted?: unknown }).accepted);
        tally.accepted += accepted;
        if (accepted !== EVENTS_PER_BATCH) fail(tally, `202 with accepted ${accepted}`);
      }
    } catch (error) {
      tally.requests++;
      fail(tally, `socket error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
};

interface Sample {
  readonly seconds: number;
  readonly rss: number;
  readonly anon: number;
  /** Null for a sample too close to the one before to have a rate of its own. */
  readonly eventsPerSecond: number | null;
}

/** Ctrl-C as `npm start` gets it, then SIGKILL if the final delivery takes too long. */
const stopWithin = async (child: ChildProcess, timeoutMs: number): Promise<number | null> => {
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  try {
    return await stopService(child);
  } finally {
    clearTimeout(timer);
  }
};

const main = async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-bench-soak-"));
  let child: ChildProcess | undefined;
  // However this process ends (an error, Ctrl-C), the service does not outlive it.
  const killChild = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  process.once("exit", killChild);
  const interrupted = () => {
    killChild();
    process.exit(130);
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    const service = await startService(dataDir, { ATTRIBUTION_FX_FEED_URL: "off" });
    child = service.child;
    const pid = child.pid;
    const { sdk } = await createAppWithCli(dataDir, APP, "Soak");
    const headers = { authorization: sdk, "content-type": "application/json" };
    console.log(
      `Soak: ${CLIENTS} keep-alive clients for ${int(SECONDS)} s, each request a batch of ${EVENTS_PER_BATCH} events or (one in ${INSTALL_EVERY}) a new install; the service's resident memory every ${SAMPLE_SECONDS} s`,
    );
    console.log(
      `\n${"time".padStart(6)} ${"RSS".padStart(11)} ${"anonymous".padStart(11)} ${"events/s".padStart(9)}`,
    );

    const tally: Tally = {
      requests: 0,
      installs: 0,
      accepted: 0,
      latencies: [],
      failures: new Map(),
    };
    const samples: Sample[] = [];
    const started = performance.now();
    let lastAccepted = 0;
    let lastAt = started;
    const sample = async () => {
      const at = performance.now();
      const memory = await residentMemory(pid);
      const previous = lastAt;
      const eventsPerSecond = ((tally.accepted - lastAccepted) * 1000) / (at - lastAt);
      lastAccepted = tally.accepted;
      lastAt = at;
      // The last sample may follow the one before by a moment: no rate of its own then.
      const rated = at - previous >= (SAMPLE_SECONDS * 1000) / 2;
      const row = {
        seconds: (at - started) / 1000,
        ...memory,
        eventsPerSecond: rated ? eventsPerSecond : null,
      };
      samples.push(row);
      const rate = rated ? int(eventsPerSecond) : "";
      console.log(
        `${`${Math.round(row.seconds)} s`.padStart(6)} ${mb(row.rss).padStart(11)} ${mb(row.anon).padStart(11)} ${rate.padStart(9)}`,
      );
    };
    await sample();
    const sampler = setInterval(() => {
      sample().catch((error: unknown) => console.log(`sample failed: ${String(error)}`));
    }, SAMPLE_SECONDS * 1000);
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    const deadline = started + SECONDS * 1000;
    try {
      await Promise.all(
        Array.from({ length: CLIENTS }, (_, i) =>
          client(i, service.url, headers, agent, deadline, tally),
        ),
      );
    } finally {
      clearInterval(sampler);
      agent.destroy();
    }
    await sample();
    const seconds = (performance.now() - started) / 1000;

    const peak = Math.max(...samples.map((s) => s.rss));
    const plateau = Math.max(...samples.filter((s) => s.seconds >= seconds / 2).map((s) => s.rss));
    tally.latencies.sort((a, b) => a - b);
    const p99 = tally.latencies[Math.ceil(0.99 * tally.latencies.length) - 1] ?? 0;
    const failed = [...tally.failures.values()].reduce((a, b) => a + b, 0);
    const summary = `${int(tally.requests)} requests in ${seconds.toFixed(0)} s: ${int(tally.installs)} installs, ${int(tally.accepted)} events accepted (${int(tally.accepted / seconds)} a second), p99 ${ms(p99)}, ${int(failed)} failed`;
    console.log(`\n${summary}`);
    for (const [kind, count] of tally.failures) {
      console.log(`  ${String(count).padStart(6)}  ${kind}`);
    }
    console.log(`Peak resident memory (of the samples): ${mb(peak)}`);
    console.log(
      `Plateau (highest sample of the second half): ${mb(plateau)} (target under ${mb(TARGET_PLATEAU_BYTES)}: ${verdict(plateau < TARGET_PLATEAU_BYTES)})`,
    );

    const stopping = performance.now();
    const exitCode = await stopWithin(child, STOP_TIMEOUT_MS);
    console.log(
      `Service stopped (final lake delivery) in ${ms(performance.now() - stopping)}, exit code ${exitCode}`,
    );
    // The installs' own rows come from the attribution worker, which a stop may leave behind.
    const delivered = await lakeRows(dataDir, "events", "event_id", "event_type <> 'INSTALL'");
    const complete = delivered.rows === tally.accepted && delivered.distinct === tally.accepted;
    const lake = `Events in the lake: ${int(delivered.rows)} rows, ${int(delivered.distinct)} distinct ids, of ${int(tally.accepted)} accepted${complete ? "" : " — MISMATCH"}`;
    console.log(lake);
    await writeDocsSection(
      "soak",
      soakSection({
        setup: `${CLIENTS} keep-alive clients for ${int(SECONDS)} s, each request a batch of ${EVENTS_PER_BATCH} events or (one in ${INSTALL_EVERY}) a new install, sampled every ${SAMPLE_SECONDS} s`,
        samples: samples.map((sample) => ({
          seconds: sample.seconds,
          rssBytes: sample.rss,
          anonBytes: sample.anon,
          eventsPerSecond: sample.eventsPerSecond,
        })),
        summary,
        peakBytes: peak,
        plateauBytes: plateau,
        targetPlateauBytes: TARGET_PLATEAU_BYTES,
        lake,
        measured: measuredOn(),
      }),
    );
  } finally {
    if (child) await stopWithin(child, STOP_TIMEOUT_MS);
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
