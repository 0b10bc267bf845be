/**
 * Attribution on the embedded runtime: the queue-driven workers (the attribution worker's
 * folder queue and consumer) and the sweep that queues again what a crash or a failure left
 * unfinished.
 */
import { createAdServicesClient } from "../adapters/apple/ad-services.ts";
import type { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import { sweepAttributions } from "../attribution/sweep.ts";
import { jobOf } from "../jobs/jobs.ts";
import type { AppStore } from "../ports/apps.ts";
import type { RecordStream } from "../ports/lake.ts";
import { createAttributionWorker } from "../workers/attribution.ts";
import { WORKERS } from "../workers/workers.ts";
import { startJob } from "./background-job.ts";
import { startQueueWorkers } from "./queue-workers.ts";

export const startAttribution = async (deps: {
  readonly queuesDir: string;
  readonly stores: ReturnType<typeof createDynamoStores>;
  readonly apps: AppStore;
  readonly lake: { readonly attributions: RecordStream; readonly events: RecordStream };
  readonly appleAdsUrl: string;
}) => {
  const { stores } = deps;
  // Queue-driven workers: one handler per row of the worker table.
  const workers = await startQueueWorkers({
    dir: deps.queuesDir,
    workers: WORKERS,
    handlers: {
      attribute: createAttributionWorker({
        apps: deps.apps,
        installs: stores.installs,
        attributions: stores.attributions,
        deletions: stores.deletions,
        touches: stores.touches,
        searchAds: createAdServicesClient({ url: deps.appleAdsUrl }),
        lake: deps.lake,
      }),
    },
  });
  const queue = workers.queue("attribute");
  // Every SWEEP_AGE_MS, what is that old and unfinished; at start, everything unfinished from
  // before it: what a crash (`kill -9`) left. The queue redelivers the jobs it had taken; the
  // sweep finds those it never got.
  const startedAt = new Date();
  let firstSweep = true;
  const sweeper = startJob(jobOf("attribution-sweep"), () => {
    const before = firstSweep ? startedAt : undefined;
    firstSweep = false;
    return sweepAttributions({ attributions: stores.attributions, queue }, before);
  });
  return {
    workers,
    queue,
    async stop() {
      await sweeper.stop();
      await workers.stop();
    },
  };
};
