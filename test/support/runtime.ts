/** The embedded runtime for integration tests: real stores, real Parquet, real DuckDB, HTTP. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedConfig } from "../../src/config/embedded.ts";
import { createApp } from "../../src/domain/apps.ts";
import { type EmbeddedRuntime, startEmbeddedRuntime } from "../../src/embedded/runtime.ts";
import type { Platform } from "../../src/ports/apps.ts";

export interface TestRuntime extends EmbeddedRuntime {
  get(path: string, key?: string): Promise<Response>;
  createApp(appId: string, platform?: Platform): Promise<{ sdkKey: string; serverKey: string }>;
  dispose(): Promise<void>;
}

export const startTestRuntime = async (
  overrides: { snapshotTtlSeconds?: number } = {},
): Promise<TestRuntime> => {
  const dataDir = await mkdtemp(join(tmpdir(), "attribution-it-"));
  const runtime = await startEmbeddedRuntime(
    embeddedConfig({}, { dataDir, port: 0, flushIntervalMs: 60_000, ...overrides }),
  );
  return Object.assign(runtime, {
    get: (path: string, key?: string) =>
      fetch(`${runtime.url}${path}`, { headers: key ? { authorization: key } : {} }),
    async createApp(appId: string, platform: Platform = "android") {
      const { keys } = await createApp({ appId, name: `App ${appId}`, platform }, runtime.stores);
      const key = (kind: string) => keys.find((k) => k.kind === kind)?.key ?? "";
      return { sdkKey: key("sdk"), serverKey: key("server") };
    },
    async dispose() {
      await runtime.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
};
