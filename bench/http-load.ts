/**
 * HTTP load generators for the benchmarks: a fixed list of requests (bodies POSTed, or paths
 * fetched with GET) sent over keep-alive connections (node:http, one Agent with as many sockets
 * as clients). Closed loop (`runLoad`): each client sends its next request as soon as its last
 * is answered. Open loop (`runOpenLoop`): requests are due at a fixed rate whatever the answers,
 * and each one's latency counts from when it was due. Every answer is checked; failures are
 * counted by kind, never thrown.
 */
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";

/** One GET: a path (and query) below the URL, with headers of its own; a POST with a body. */
export interface GetRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface LoadOptions {
  /** The full URL to POST to, or the base of the GETs' paths. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** One POST per body, in order; each body is sent exactly once. */
  readonly bodies?: readonly string[];
  /** Or one GET per entry, in order. */
  readonly gets?: readonly GetRequest[];
  readonly concurrency: number;
  /** Whether an answer is a success; any other answer is a failure with this label. */
  readonly check: (
    status: number,
    body: string,
    headers: Readonly<Record<string, string | undefined>>,
  ) => string | undefined;
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
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/** One request: a POST of the body, or a GET without one; fails after `timeoutMs` if given. */
export const send = (
  agent: Agent,
  url: URL,
  headers: LoadOptions["headers"],
  body: string | undefined,
  timeoutMs?: number,
) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method: body === undefined ? "GET" : "POST",
        headers:
          body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            headers: { location: res.headers.location },
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (timeoutMs !== undefined) {
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    }
    req.end(body);
  });

export const runLoad = async (options: LoadOptions): Promise<LoadResult> => {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const fail = (label: string) => failures.set(label, (failures.get(label) ?? 0) + 1);
  const requests: { url: URL; headers: LoadOptions["headers"]; body?: string }[] = [
    ...(options.bodies ?? []).map((body) => ({ url, headers: options.headers, body })),
    ...(options.gets ?? []).map((get) => ({
      url: new URL(get.path, url),
      headers: { ...options.headers, ...get.headers },
    })),
  ];
  let next = 0;
  const client = async () => {
    while (next < requests.length) {
      const { url: target, headers, body } = requests[next++] ?? { url, headers: {} };
      const started = performance.now();
      try {
        const answer = await send(agent, target, headers, body);
        latencies.push(performance.now() - started);
        const problem = options.check(answer.status, answer.body, answer.headers);
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
  return { requests: requests.length, seconds, latencies, failures, failed };
};

/** The nearest-rank percentile of ascending values (p in 0..100). */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

export interface OpenLoopOptions {
  readonly url: string;
  readonly gets: readonly GetRequest[];
  /** Requests due a second. */
  readonly perSecond: number;
  /** Connections they share: a request due while all are busy waits for one. */
  readonly connections: number;
  readonly check: LoadOptions["check"];
  /** Told when request `index` is due (`performance.now()`'s clock), as it is sent. */
  readonly onDue?: (index: number, dueMs: number) => void;
}

/**
 * The GETs sent at a fixed rate: request i is due i / perSecond seconds after the start, and is
 * sent at the first turn of the timer at or after that (a millisecond late at most); it waits
 * for a free connection if all are busy, and its latency is from when it was due to its answer,
 * so a server that falls behind is charged for the requests waiting on it (no coordinated
 * omission).
 */
export const runOpenLoop = async (options: OpenLoopOptions): Promise<LoadResult> => {
  const base = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const fail = (label: string) => failures.set(label, (failures.get(label) ?? 0) + 1);
  const intervalMs = 1000 / options.perSecond;
  const inFlight: Promise<void>[] = [];
  const fire = async (get: GetRequest, due: number) => {
    try {
      const answer = await send(agent, new URL(get.path, base), get.headers, get.body);
      latencies.push(performance.now() - due);
      const problem = options.check(answer.status, answer.body, answer.headers);
      if (problem) fail(problem);
    } catch (error) {
      latencies.push(performance.now() - due);
      fail(`socket error: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const started = performance.now();
  let next = 0;
  try {
    await new Promise<void>((done) => {
      const tick = () => {
        const now = performance.now();
        for (; next < options.gets.length && started + next * intervalMs <= now; next++) {
          const get = options.gets[next];
          options.onDue?.(next, started + next * intervalMs);
          if (get) inFlight.push(fire(get, started + next * intervalMs));
        }
        if (next >= options.gets.length) done();
        else setTimeout(tick, Math.max(0, started + next * intervalMs - performance.now()));
      };
      tick();
    });
    await Promise.all(inFlight);
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  return { requests: options.gets.length, seconds, latencies, failures, failed };
};
