/**
 * The target of the black-box suite (test/integration/black-box/), from the environment:
 *
 *   ATTRIBUTION_TEST_TARGET=embedded (the default): the suite starts the embedded runtime itself;
 *   ATTRIBUTION_TEST_TARGET=localstack: a stack deployed to LocalStack with cdklocal;
 *   ATTRIBUTION_TEST_TARGET=aws: a stack deployed with `cdk deploy`.
 *
 * For the last two, ATTRIBUTION_TEST_OUTPUTS names the file `cdk deploy --outputs-file` wrote
 * (the API URL, the link host URL, the table names), and the usual AWS credentials and region
 * reach the tables; on LocalStack, LOCALSTACK_ENDPOINT is where every AWS call goes.
 *
 * The suite talks to a target only as a user would: HTTP to the API and the link host, and the
 * admin CLI (`attribution apps create`, `keys create`, …) against the target's tables. What is
 * asynchronous (delivery to the lake, attribution, purges) it waits for by polling with a bound.
 * On the embedded target a fast path delivers and drains the queues before each look, unless
 * ATTRIBUTION_TEST_POLL_ONLY=1, which leaves the runtime to its own short intervals, as a
 * deployed stack is.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { it } from "vitest";
import * as z from "zod";
import type { Platform } from "../../src/ports/apps.ts";
import { startTestRuntime, type TestRuntime } from "./runtime.ts";
import { cliWithEnv } from "./service.ts";
import {
  type Capability,
  cliEnvOf,
  localstackUrl,
  missingOn,
  readStackOutputs,
  type TargetKind,
  targetKindOf,
} from "./target-env.ts";

export { CAPABILITIES, type Capability, TARGET_KINDS, type TargetKind } from "./target-env.ts";

export interface Keys {
  readonly sdkKey: string;
  readonly serverKey: string;
}

export interface Target {
  readonly kind: TargetKind;
  /** The API's base URL, without a trailing slash. */
  readonly apiUrl: string;
  /** The link host's base URL, without a trailing slash. */
  readonly linkUrl: string;
  /**
   * An app id for this run: the embedded target starts empty, a deployed stack keeps what
   * earlier runs made, so there each run's ids are its own.
   */
  appId(base: string): string;
  fetch(path: string, init?: RequestInit, key?: string): Promise<Response>;
  get(path: string, key?: string): Promise<Response>;
  /** POSTs a JSON body (or a raw string, sent as is). */
  post(
    path: string,
    body: unknown,
    key?: string,
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** A request to the link host; redirects are not followed. */
  tap(path: string, headers?: Record<string, string>): Promise<Response>;
  /** `attribution <args>` against the target's tables; resolves with its standard output. */
  cli(...args: string[]): Promise<string>;
  /** `attribution apps create --json`: the app's SDK and server keys. */
  createApp(appId: string, platform?: Platform): Promise<Keys>;
  /**
   * Runs `check` until it resolves, and resolves with its value; a throw means "not yet". After
   * the bound, rejects with the last error. `what` names the wait in that error.
   */
  eventually<T>(what: string, check: () => Promise<T>, wait?: Wait): Promise<T>;
  dispose(): Promise<void>;
}

const env = process.env;

/** The target this run tests, known when the test files are collected. */
export const TARGET_KIND: TargetKind = targetKindOf(env.ATTRIBUTION_TEST_TARGET);

/** Why this run's target cannot run a test that needs these, or undefined when it can. */
export const missing = (needs: readonly Capability[]): string | undefined =>
  missingOn(TARGET_KIND, needs);

/**
 * What a test waits for: most things within the target's usual bound; a deletion's purge,
 * which on AWS runs on a schedule, within the purge's own.
 */
export type Wait = "usual" | "purge";

/** How long a wait may take, and how often it looks, by target. */
const WAITS: Record<TargetKind, { boundMs: number; everyMs: number; purgeMs: number }> = {
  embedded: { boundMs: 30_000, everyMs: 100, purgeMs: 30_000 },
  // LocalStack runs each Lambda in a container of its own (first calls take seconds), and a
  // revoked key may be cached by the authorizer for its 5 minutes (lib/settings.ts).
  localstack: { boundMs: 360_000, everyMs: 2_000, purgeMs: 360_000 },
  // Firehose buffers for up to 5 minutes (lib/settings.ts, streamBufferInterval); a deletion
  // is completed within 25 minutes with the stack's defaults (lib/purge-job.ts).
  aws: { boundMs: 720_000, everyMs: 10_000, purgeMs: 1_800_000 },
};

/** A test's time limit on this target: the waits it may make, and the requests around them. */
export const TEST_TIMEOUT_MS =
  TARGET_KIND === "embedded" ? 60_000 : 2 * WAITS[TARGET_KIND].boundMs + WAITS[TARGET_KIND].purgeMs;

/**
 * `it`, run only where the target has what the test needs; elsewhere skipped, its name saying
 * on which target and why, as the run's report lists it.
 */
export const itNeeds = (
  needs: readonly Capability[],
  name: string,
  test: () => Promise<void>,
): void => {
  const reason = missing(needs);
  if (reason) it.skip(`${name} [not run on ${TARGET_KIND}: ${reason}]`, test);
  else it(name, test, TEST_TIMEOUT_MS);
};

/** `it` on every target, with the target's time limit. */
export const itAll = (name: string, test: () => Promise<void>): void => {
  it(name, test, TEST_TIMEOUT_MS);
};

const trimSlash = (url: string) => url.replace(/\/+$/, "");

const parseKeys = (stdout: string): Keys => {
  const { keys } = z
    .object({ keys: z.array(z.object({ kind: z.string(), key: z.string() })) })
    .parse(JSON.parse(stdout));
  const key = (kind: string) => {
    const found = keys.find((k) => k.kind === kind)?.key;
    if (!found) throw new Error(`apps create printed no ${kind} key`);
    return found;
  };
  return { sdkKey: key("sdk"), serverKey: key("server") };
};

const waitFor = async <T>(
  what: string,
  check: () => Promise<T>,
  kind: TargetKind,
  before: () => Promise<void>,
  wait: Wait = "usual",
): Promise<T> => {
  const { everyMs } = WAITS[kind];
  const boundMs = wait === "purge" ? WAITS[kind].purgeMs : WAITS[kind].boundMs;
  const deadline = Date.now() + boundMs;
  for (;;) {
    await before();
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) {
        throw new Error(`${what}: not so within ${boundMs / 1000} s on ${kind}`, { cause: error });
      }
    }
    await sleep(everyMs);
  }
};

/** Requests and the CLI over one API URL and link host URL. */
const httpTarget = (
  kind: TargetKind,
  urls: { apiUrl: string; linkUrl: string },
  cli: (...args: string[]) => Promise<string>,
  settle: () => Promise<void>,
  dispose: () => Promise<void>,
  runId: string | undefined,
): Target => {
  const apiUrl = trimSlash(urls.apiUrl);
  const linkUrl = trimSlash(urls.linkUrl);
  const request = (path: string, init: RequestInit = {}, key?: string) =>
    fetch(`${apiUrl}${path}`, {
      ...init,
      headers: { ...(key ? { authorization: key } : {}), ...(init.headers ?? {}) },
    });
  return {
    kind,
    apiUrl,
    linkUrl,
    appId: (base) => (runId ? `${base}.r${runId}` : base),
    fetch: request,
    get: (path, key) => request(path, {}, key),
    post: (path, body, key, headers = {}) =>
      request(
        path,
        {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: typeof body === "string" ? body : JSON.stringify(body),
        },
        key,
      ),
    tap: (path, headers = {}) => fetch(`${linkUrl}${path}`, { redirect: "manual", headers }),
    cli,
    createApp: async (appId, platform = "android") =>
      parseKeys(
        await cli(
          "apps",
          "create",
          "--app-id",
          appId,
          "--name",
          `App ${appId}`,
          "--platform",
          platform,
          "--json",
        ),
      ),
    eventually: (what, check, wait) => waitFor(what, check, kind, settle, wait),
    dispose,
  };
};

const embeddedTarget = async (): Promise<Target> => {
  const pollOnly = env.ATTRIBUTION_TEST_POLL_ONLY === "1";
  // Postbacks may reach the suite's mock network on this machine (loopbackPartner).
  const rt: TestRuntime = await startTestRuntime({
    postbacksAllowLoopback: true,
    ...(pollOnly ? { flushIntervalMs: 500, purgeIntervalMs: 1_000 } : {}),
  });
  return httpTarget(
    "embedded",
    { apiUrl: rt.url, linkUrl: rt.linkUrl },
    // The CLI finds the running runtime through its data folder, as beside `npm start`.
    (...args) => cliWithEnv({}, rt.config.dataDir, ...args),
    // The fast path: what the queues hold is worked, and the streams delivered, now.
    pollOnly
      ? async () => {}
      : async () => {
          await rt.workers.idle();
          await rt.flush();
        },
    () => rt.dispose(),
    undefined,
  );
};

const deployedTarget = async (kind: "localstack" | "aws"): Promise<Target> => {
  const file = env.ATTRIBUTION_TEST_OUTPUTS;
  if (!file) {
    throw new Error(
      `ATTRIBUTION_TEST_TARGET=${kind} needs ATTRIBUTION_TEST_OUTPUTS, the file \`cdk deploy --outputs-file\` wrote`,
    );
  }
  const outputs = readStackOutputs(file);
  const endpoint = kind === "localstack" ? env.LOCALSTACK_ENDPOINT : undefined;
  if (kind === "localstack" && !endpoint) {
    throw new Error("ATTRIBUTION_TEST_TARGET=localstack needs LOCALSTACK_ENDPOINT");
  }
  const url = (value: string) => (endpoint ? localstackUrl(value, endpoint) : value);
  const cliEnv = cliEnvOf(outputs, endpoint, env);
  // The CLI is told the stack's tables; the data folder it is given is never opened.
  const unused = await mkdtemp(join(tmpdir(), "attribution-target-"));
  const runId = (env.ATTRIBUTION_TEST_RUN_ID ?? Date.now().toString(36)).toLowerCase();
  return httpTarget(
    kind,
    {
      apiUrl: url(outputs.ApiUrl),
      linkUrl: outputs.LinkHostUrl ? url(outputs.LinkHostUrl) : "http://link-host.invalid",
    },
    (...args) => cliWithEnv(cliEnv, unused, ...args),
    async () => {},
    () => rm(unused, { recursive: true, force: true }),
    runId,
  );
};

/** The target of this run, ready for requests; `dispose` it after the file's tests. */
export const openTarget = (): Promise<Target> =>
  TARGET_KIND === "embedded" ? embeddedTarget() : deployedTarget(TARGET_KIND);
