import { describe, expect, it } from "vitest";
import { SWEEP_AGE_MS } from "../attribution/sweep.ts";
import type { Adapters, Runtime } from "../functions/adapters.ts";
import type { AttributionJob } from "../workers/attribution-worker.ts";
import { visibilityTimeoutSeconds } from "../workers/worker.ts";
import { ATTRIBUTION_WORKER } from "../workers/workers.ts";
import { AWS_SWEEP_AGE_MS, attributionSweepJob } from "./attribution-sweep.ts";

const MINUTE = 60_000;

describe("the attribution sweep on AWS", () => {
  it("waits out every attempt the queue makes of a job, where embedded it waits seconds apart", () => {
    const attempts = ATTRIBUTION_WORKER.maxAttempts;
    expect(AWS_SWEEP_AGE_MS).toBeGreaterThan(
      attempts * visibilityTimeoutSeconds(ATTRIBUTION_WORKER) * 1000,
    );
    expect(SWEEP_AGE_MS).toBeGreaterThan(attempts * ATTRIBUTION_WORKER.retryAfterSeconds * 1000);
  });

  it("queues again an attribution its attempts gave up on, not one still being tried", async () => {
    // Unfinished attributions by when they were requested; the store lists those before a time.
    const open = [
      { appId: "com.a", serviceId: "retried-now", requestedAt: Date.now() - 10 * MINUTE },
      { appId: "com.a", serviceId: "given-up", requestedAt: Date.now() - 25 * MINUTE },
    ];
    const queued: AttributionJob[] = [];
    const adapters = {
      tables: {
        attributions: {
          listOpen: async (before: Date) =>
            open
              .filter((a) => a.requestedAt < before.getTime())
              .map(({ appId, serviceId }) => ({ appId, serviceId })),
        },
      },
      queues: {
        attribute: {
          send: async (jobs: readonly AttributionJob[]) => {
            queued.push(...jobs);
          },
        },
      },
    } as unknown as Adapters<typeof attributionSweepJob.row.uses>;
    const job = attributionSweepJob.compose(adapters, {} as Runtime);
    expect(await job.run()).toBe(1);
    expect(queued).toEqual([{ appId: "com.a", serviceId: "given-up" }]);
  });
});
