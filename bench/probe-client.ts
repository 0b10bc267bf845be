/**
 * Another app's SDK for the postbacks benchmark, in a process of its own: batches of events at a
 * steady pace, each timed here, so that the benchmark's own process (the burst's load generator
 * and the mock ad network) delays none of their answers. One run per line of orders on stdin,
 * each answered by one line on stdout; `startProbeClient` is the benchmark's side.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type GetRequest, type LoadResult, runOpenLoop } from "./http-load.ts";

export interface ProbeRun {
  readonly url: string;
  readonly key: string;
  readonly count: number;
  readonly perSecond: number;
  readonly events: number;
  /** Names the run's event ids, apart from other runs'. */
  readonly run: string;
}

/** What a run comes to: its latencies (ms, sorted) and its failures. */
export type ProbeResult = Pick<LoadResult, "requests" | "seconds" | "latencies" | "failed"> & {
  readonly failures: ReadonlyMap<string, number>;
};

const CONNECTIONS = 4;

/** Event batches of the probe app, one request each. */
const probeRequests = (order: ProbeRun): GetRequest[] =>
  Array.from({ length: order.count }, (_, i) => ({
    path: "/v1/events",
    headers: { authorization: order.key, "content-type": "application/json" },
    body: JSON.stringify({
      events: Array.from({ length: order.events }, (_, e) => ({
        event_id: `${order.run}-${i}-${e}`,
        service_id: "bench-probe-device",
        event_type: "LEVEL_COMPLETE",
        event_time: new Date().toISOString(),
        parameters: { level: e },
      })),
    }),
  }));

const runProbe = async (order: ProbeRun) => {
  const result = await runOpenLoop({
    url: order.url,
    gets: probeRequests(order),
    perSecond: order.perSecond,
    connections: CONNECTIONS,
    check: (status) => (status === 202 ? undefined : `status ${status}`),
  });
  return { ...result, failures: [...result.failures] };
};

/** The probe's process, and a run of it at a time. */
export const startProbeClient = () => {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout ?? process.stdin })[Symbol.asyncIterator]();
  return {
    async run(order: ProbeRun): Promise<ProbeResult> {
      child.stdin?.write(`${JSON.stringify(order)}\n`);
      const { value, done } = await lines.next();
      if (done) throw new Error("the probe's process ended");
      const answer = JSON.parse(value as string) as Omit<ProbeResult, "failures"> & {
        failures: [string, number][];
      };
      return { ...answer, failures: new Map(answer.failures) };
    },
    stop() {
      child.stdin?.end();
    },
  };
};

// Run as the probe's process: one run per line of stdin, until it ends.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for await (const line of createInterface({ input: process.stdin })) {
    const answer = await runProbe(JSON.parse(line) as ProbeRun);
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
}
