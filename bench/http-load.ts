/**
 * A closed-loop HTTP load generator for the benchmarks: a fixed list of request bodies POSTed
 * by a number of concurrent clients over keep-alive connections (node:http, one Agent with as
 * many sockets as clients), each client sending its next body as soon as its last is answered.
 * Every answer is checked; failures are counted by kind, never thrown.
 */
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";

export interface LoadOptions {
  /** The full URL to POST to. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** One request per body, in order; each body is sent exactly once. */
  readonly bodies: readonly string[];
  readonly concurrency: number;
  /** Whether an answer is a success; any other answer is a failure with this label. */
  readonly check: (status: number, body: string) => string | undefined;
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  /** Per request, in milliseconds, sorted ascending. */
  readonly latencies: readonly number[];
  /** Failures by label (a status, a body mismatch, a socket error). */
  readonly failures: ReadonlyMap<string, number>;
  readonly failed: number;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

const post = (agent: Agent, url: URL, headers: LoadOptions["headers"], body: string) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });

export const runLoad = async (options: LoadOptions): Promise<LoadResult> => {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const fail = (label: string) => failures.set(label, (failures.get(label) ?? 0) + 1);
  let next = 0;
  const client = async () => {
    while (next < options.bodies.length) {
      const body = options.bodies[next++] ?? "";
      const started = performance.now();
      try {
        const answer = await post(agent, url, options.headers, body);
        latencies.push(performance.now() - started);
        const problem = options.check(answer.status, answer.body);
        if (problem) fail(problem);
      } catch (error) {
        latencies.push(performance.now() - started);
        fail(`socket error: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: options.concurrency }, client));
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  return { requests: options.bodies.length, seconds, latencies, failures, failed };
};

/** The nearest-rank percentile of ascending values (p in 0..100). */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
