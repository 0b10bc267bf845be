/**
 * The job table on the embedded runtime: each row's work started, run at start where its row
 * says so and on demand, over adapters that record what is asked of them.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { SWEEP_AGE_MS } from "../attribution/sweep.ts";
import type { AllAdapters, Runtime } from "../functions/adapters.ts";
import { type EmbeddedJobs, startEmbeddedJobs } from "./jobs.ts";

/** As long as a busy machine may take to run the jobs: a wait for what is coming. */
const COMING = { timeout: 10_000 } as const;

/** Adapters of which every method is there, answers nothing (an empty list), and is recorded. */
const recordingAdapters = () => {
  const calls: { path: string; args: unknown[] }[] = [];
  const fake = (path: string): unknown =>
    new Proxy(() => {}, {
      // Never a promise itself: `then` is no method of an adapter.
      get: (_, name) => (name === "then" ? undefined : fake(`${path}.${String(name)}`)),
      apply: (_, __, args: unknown[]) => {
        calls.push({ path: path.slice(1), args });
        return Promise.resolve([]);
      },
    });
  const callsTo = (path: string) => calls.filter((call) => call.path === path);
  return { adapters: fake("") as AllAdapters, callsTo };
};

let jobs: EmbeddedJobs | undefined;
/**
 * The clock the jobs read, held still but for what `vi.waitFor` moves it by as it polls: what
 * they ask of the stores falls between two readings of it, whatever the machine's speed.
 */
const NOW = Date.parse("2026-11-24T09:00:00.000Z");

afterEach(async () => {
  await jobs?.stop();
  jobs = undefined;
  vi.useRealTimers();
});

describe("the embedded jobs", () => {
  it("runs at start the jobs whose rows say so, each on its own stores", async () => {
    const { adapters, callsTo } = recordingAdapters();
    const refreshRates = vi.fn(async () => {});
    const pruneSnapshots = vi.fn(async () => {});
    const compactLake = vi.fn(async () => {});
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    jobs = await startEmbeddedJobs({
      adapters,
      runtime: {} as Runtime,
      pruneSnapshots,
      compactLake,
      refreshRates,
    });
    await vi.waitFor(() => {
      expect(refreshRates).toHaveBeenCalledTimes(1);
      for (const path of [
        "tables.attributions.listOpen",
        "tables.touches.reap",
        "tables.outbox.reap",
        "tables.deliveryLog.reap",
        "tables.applePostbacks.reap",
        "tables.apps.list",
      ]) {
        expect(callsTo(path), path).toHaveLength(1);
      }
    }, COMING);
    // The first sweep takes everything unfinished from before the start.
    const sweptBefore = (index: number) =>
      (callsTo("tables.attributions.listOpen")[index]?.args[0] as Date | undefined)?.getTime();
    expect(sweptBefore(0)).toBeGreaterThanOrEqual(NOW);
    expect(sweptBefore(0)).toBeLessThanOrEqual(Date.now());
    // Not at start: the purge, the disabled accounts, the snapshots' pruning, the compaction.
    expect(pruneSnapshots).not.toHaveBeenCalled();
    expect(compactLake).not.toHaveBeenCalled();
    expect(callsTo("credentials.disabledAccounts")).toEqual([]);
  });

  it("runs a job on demand: its own way, or its row's composition as on AWS", async () => {
    const { adapters, callsTo } = recordingAdapters();
    const pruneSnapshots = vi.fn(async () => {});
    const compactLake = vi.fn(async () => {});
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    jobs = await startEmbeddedJobs({
      adapters,
      runtime: {} as Runtime,
      pruneSnapshots,
      compactLake,
      refreshRates: null,
    });
    await vi.waitFor(() => expect(callsTo("tables.apps.list")).toHaveLength(1), COMING);
    const triggeredAt = Date.now();
    jobs.trigger("prune-snapshots");
    jobs.trigger("compact-lake");
    jobs.trigger("disabled-accounts");
    jobs.trigger("attribution-sweep");
    // Switched off: no rates feed, no job.
    jobs.trigger("fx-rates");
    await vi.waitFor(() => {
      expect(pruneSnapshots).toHaveBeenCalledTimes(1);
      expect(compactLake).toHaveBeenCalledTimes(1);
      expect(callsTo("credentials.disabledAccounts")).toHaveLength(1);
      expect(callsTo("tables.attributions.listOpen")).toHaveLength(2);
    }, COMING);
    // A later sweep takes what has been unfinished for the sweep's age.
    const later = (
      callsTo("tables.attributions.listOpen")[1]?.args[0] as Date | undefined
    )?.getTime();
    expect(later).toBeGreaterThanOrEqual(triggeredAt - SWEEP_AGE_MS);
    expect(later).toBeLessThanOrEqual(Date.now() - SWEEP_AGE_MS);
  });

  it("runs a job as often as the configuration says instead of its row", async () => {
    const { adapters } = recordingAdapters();
    const compactLake = vi.fn(async () => {});
    jobs = await startEmbeddedJobs({
      adapters,
      runtime: {} as Runtime,
      pruneSnapshots: async () => {},
      compactLake,
      refreshRates: null,
      everyMs: { "compact-lake": 20 },
    });
    await vi.waitFor(() => expect(compactLake.mock.calls.length).toBeGreaterThanOrEqual(3), COMING);
  });
});
