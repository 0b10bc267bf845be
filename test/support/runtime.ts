/** The embedded runtime for integration tests: real stores, real Parquet, real DuckDB, HTTP. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createApp } from "../../src/apps/registration.ts";
import { embeddedConfig } from "../../src/config/embedded.ts";
import { dataPaths } from "../../src/embedded/data-dir.ts";
import { type EmbeddedRuntime, startEmbeddedRuntime } from "../../src/embedded/runtime.ts";
import type { Platform } from "../../src/ports/apps.ts";
import { startTestDnsServer, type TestDnsServer } from "./dns-server.ts";

export interface TestRuntime extends EmbeddedRuntime {
  get(path: string, key?: string): Promise<Response>;
  fetch(path: string, init: RequestInit, key?: string): Promise<Response>;
  /** POSTs a JSON body (or a raw string, sent as is). */
  post(
    path: string,
    body: unknown,
    key?: string,
    headers?: Record<string, string>,
  ): Promise<Response>;
  createApp(appId: string, platform?: Platform): Promise<{ sdkKey: string; serverKey: string }>;
  /** The DNS the runtime asks for link hosts' proofs: a test sets its TXT records. */
  readonly dns: TestDnsServer;
  /**
   * An install's attribution once resolved, as an SDK reads it: long polls asked again until one
   * answers it, within 40 s (a loaded machine may let one end unresolved). Fails on a status
   * other than 200.
   */
  attributionOf(serviceId: string, key: string): Promise<Record<string, string>>;
  dispose(): Promise<void>;
}

export const startTestRuntime = async (
  overrides: {
    snapshotTtlSeconds?: number;
    purgeIntervalMs?: number;
    /** How often the streams deliver to the lake on their own (a minute unless given). */
    flushIntervalMs?: number;
    ratesCsv?: string;
    fxFeedUrl?: string;
    trustProxy?: boolean;
    snapshotDisk?: string;
    dashboardTotp?: "off" | "admins";
    /** Postbacks may go to this machine's loopback addresses: the tests' mock partners. */
    postbacksAllowLoopback?: boolean;
    /** Where Apple Ads tokens are resolved: a test's stand-in for Apple's AdServices API. */
    appleAdsUrl?: string;
  } = {},
): Promise<TestRuntime> => {
  const { ratesCsv, ...config } = overrides;
  const dns = await startTestDnsServer();
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-it-"));
  if (ratesCsv) {
    // As `attribution rates import` leaves them.
    const file = dataPaths(dataDir).fxRates;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, ratesCsv);
  }
  const runtime = await startEmbeddedRuntime(
    // Tests change apps and expect the next request to see it: no app cache.
    embeddedConfig(
      {},
      {
        dataDir,
        port: 0,
        linkPort: 0,
        flushIntervalMs: 60_000,
        appCacheMs: 0,
        trustViewerCountry: true,
        // Nothing in the test run reaches the internet; a test names a stand-in feed.
        fxFeedUrl: null,
        dnsServers: [dns.server],
        ...config,
      },
    ),
  );
  return Object.assign(runtime, {
    dns,
    fetch: (path: string, init: RequestInit, key?: string) =>
      fetch(`${runtime.url}${path}`, {
        ...init,
        headers: { ...(key ? { authorization: key } : {}), ...(init.headers ?? {}) },
      }),
    get: (path: string, key?: string) =>
      fetch(`${runtime.url}${path}`, { headers: key ? { authorization: key } : {} }),
    post: (path: string, body: unknown, key?: string, headers: Record<string, string> = {}) =>
      fetch(`${runtime.url}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(key ? { authorization: key } : {}),
          ...headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    async createApp(appId: string, platform: Platform = "android") {
      const { keys } = await createApp({ appId, name: `App ${appId}`, platform }, runtime.stores);
      const key = (kind: string) => keys.find((k) => k.kind === kind)?.key ?? "";
      return { sdkKey: key("sdk"), serverKey: key("server") };
    },
    async attributionOf(serviceId: string, key: string) {
      // Within a test's 60 s, so that one unresolved answers what it is rather than a time-out.
      const deadline = Date.now() + 40_000;
      for (;;) {
        const response = await fetch(
          `${runtime.url}/v1/installs/${encodeURIComponent(serviceId)}/attribution?wait_seconds=10`,
          { headers: { authorization: key } },
        );
        if (response.status !== 200) {
          throw new Error(
            `the attribution of ${serviceId}: ${response.status} ${await response.text()}`,
          );
        }
        const body = (await response.json()) as Record<string, string>;
        if (body.service_match_status !== undefined || Date.now() > deadline) return body;
      }
    },
    async dispose() {
      await runtime.stop();
      await dns.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
};
