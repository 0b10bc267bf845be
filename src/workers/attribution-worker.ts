/**
 * The attribution worker: one queued job per install, which matches it (or skips it) and
 * stores the result once, then writes its lake rows. Jobs come at least once and may run side
 * by side: the store's conditional write lets one result stand, and the lake rows are written
 * from the stored result, so a job run again writes the same rows. A job whose last try fails
 * marks the install `failed`; the sweeper queues it again later.
 */
import { factsUnderConsent } from "../attribution/facts.ts";
import { attributionRow, installEventRow } from "../attribution/lake-rows.ts";
import { matchInstall, type TouchLookups } from "../attribution/matcher.ts";
import { installTypeOf, resultOf, skippedResult } from "../attribution/results.ts";
import { attributionSettingsOf } from "../attribution/settings.ts";
import { DAY_MS } from "../domain/time.ts";
import { composition } from "../functions/adapters.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import type { App, AppStore } from "../ports/apps.ts";
import type { AttributionResult, AttributionStore, InstallSender } from "../ports/attributions.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type { Install, InstallHistory, InstallStore } from "../ports/installs.ts";
import type { RecordStream } from "../ports/lake.ts";
import type { SearchAds } from "../ports/search-ads.ts";
import type { TouchStore } from "../ports/touches.ts";
import type { WorkHandler } from "../ports/work-queue.ts";
import { resolvedOf } from "../postbacks/delivery.ts";
import { createPostbackTriggers, type PostbackTriggers } from "../postbacks/triggers.ts";
import { ATTRIBUTION_WORKER, type WorkerMessage } from "./workers.ts";

/** How long Apple's AdServices token can be resolved after the app got it. */
export const APPLE_TOKEN_LIFE_MS = DAY_MS;

export type AttributionJob = WorkerMessage<"attribute">;

export interface AttributionDeps {
  readonly apps: Pick<AppStore, "get">;
  readonly installs: Pick<InstallStore, "get"> & InstallHistory;
  readonly attributions: AttributionStore;
  /** An install whose data was deleted on request gets no attribution and no lake row. */
  readonly deletions: Pick<DeletionStore, "listByInstall">;
  /** What matching reads and claims, and a claim let go (an install purged as it matched). */
  readonly touches: TouchLookups & Pick<TouchStore, "releaseClaim">;
  /** Apple Ads: an iOS install's AdServices token resolved by Apple. */
  readonly searchAds?: SearchAds;
  /** The lake's `attributions` and `events` streams. */
  readonly lake: { readonly attributions: RecordStream; readonly events: RecordStream };
  /** The ECB rates an install's cost (a CPI touch's) is converted to USD with. */
  readonly fx: Pick<FxRates, "toUsd">;
  /** The install's postbacks and webhooks, once its attribution is stored. */
  readonly postbacks?: Pick<PostbackTriggers, "installResolved">;
  readonly maxAttempts?: number;
  readonly now?: () => Date;
}

export const createAttributionWorker = (deps: AttributionDeps): WorkHandler<AttributionJob> => {
  const now = deps.now ?? (() => new Date());
  const maxAttempts = deps.maxAttempts ?? ATTRIBUTION_WORKER.maxAttempts;

  /**
   * The lake rows of a stored result and its postbacks' outbox rows, then the mark that they
   * are written: a run that stops before the mark does it all again, which writes the same
   * rows and adds no second send. The sender (the install request's address and agent) is
   * kept with the result until then.
   */
  const deliver = async (
    job: AttributionJob,
    result: AttributionResult,
    sender: InstallSender | null,
    known?: { app: App; install: Install },
  ) => {
    const [app, install] = known
      ? [known.app, known.install]
      : await Promise.all([deps.apps.get(job.appId), deps.installs.get(job.appId, job.serviceId)]);
    if (!app || !install) return;
    await Promise.all([
      // A skipped install's row too: the reports tell it from one not attributed yet by its
      // status, and its exported fields are all null, as an install of no row exports them.
      deps.lake.attributions.put([attributionRow(install, result, deps.fx)]),
      deps.lake.events.put([installEventRow(app, install)]),
    ]);
    await deps.postbacks?.installResolved({
      appId: job.appId,
      serviceId: job.serviceId,
      attribution: resolvedOf(result),
      ip: sender?.ip ?? null,
      userAgent: sender?.userAgent ?? null,
    });
    await deps.attributions.markDelivered(job.appId, job.serviceId);
  };

  const attribute = async (job: AttributionJob): Promise<void> => {
    const [record, deletions] = await Promise.all([
      deps.attributions.get(job.appId, job.serviceId),
      deps.deletions.listByInstall(job.appId, job.serviceId),
    ]);
    // No record, or a deletion request: the install's data is being, or was, deleted.
    if (!record || deletions.length > 0) return;
    if (record.state === "resolved") {
      if (!record.delivered) await deliver(job, record.result, record.sender);
      return;
    }
    const [app, install] = await Promise.all([
      deps.apps.get(job.appId),
      deps.installs.get(job.appId, job.serviceId),
    ]);
    if (!app || !install) return;
    const settings = attributionSettingsOf(app);
    let result: AttributionResult;
    if (!app.enabled || !settings.enabled) {
      result = skippedResult(now());
    } else {
      const sameIdfv = install.idfv ? await deps.installs.withIdfv(job.appId, install.idfv) : [];
      // Apple's token lives 24 hours: past that, asking Apple (or failing to reach it) is moot.
      const tokenAlive = now().getTime() - Date.parse(record.requestedAt) < APPLE_TOKEN_LIFE_MS;
      const consented = factsUnderConsent(record.facts, install);
      const facts = tokenAlive ? consented : { ...consented, platformAdsToken: null };
      const match = await matchInstall(facts, settings, deps.touches, {
        serviceId: job.serviceId,
        // What tells this device's installs apart from another's (an all-zero id is stored as
        // none): the advertising id only where consent lets matching use it.
        deviceId: install.idfv ?? (consented.maid ? install.maid : null),
        searchAds: deps.searchAds,
      });
      result = resultOf(match, installTypeOf(install, sameIdfv), now(), settings);
    }
    // An install reported in anonymous mode names no address or user agent to partners.
    const sender = install.anonymous
      ? { ip: null, userAgent: null }
      : { ip: record.facts.ip, userAgent: record.facts.userAgent };
    if (await deps.attributions.resolve(job.appId, job.serviceId, result, sender)) {
      await deliver(job, result, sender, { app, install });
      return;
    }
    // Another run resolved it first: its result stands, and is the one written to the lake.
    const stored = await deps.attributions.get(job.appId, job.serviceId);
    if (!stored) {
      // Purged as it matched: the purge found it pending and let go of no click, so the claim
      // this run made goes now, or the device's next install from the click would be taken for
      // this one's reinstall.
      if (result.clickId !== null && result.touchTime !== null) {
        await deps.touches.releaseClaim({
          appId: job.appId,
          clickId: result.clickId,
          serviceId: job.serviceId,
          touchTime: result.touchTime,
        });
      }
      return;
    }
    if (stored.state === "resolved" && !stored.delivered) {
      await deliver(job, stored.result, stored.sender);
    }
  };

  return async (message) => {
    try {
      await attribute(message.body);
    } catch (error) {
      if (message.attempt >= maxAttempts) {
        await deps.attributions.markFailed(message.body.appId, message.body.serviceId);
      }
      throw error;
    }
  };
};

/**
 * The worker's composition on both runtimes: its stores, the lake's two streams, the rates,
 * Apple Ads, and the postbacks' triggers.
 */
export const attributionWorkerFunction = /* @__PURE__ */ composition(
  ATTRIBUTION_WORKER,
  ({ tables, streams, searchAds, queues, fx }, runtime) =>
    createAttributionWorker({
      apps: runtime.apps(tables.apps),
      installs: tables.installs,
      attributions: tables.attributions,
      deletions: tables.deletions,
      touches: tables.touches,
      searchAds,
      lake: { attributions: streams.attributions, events: streams.events },
      fx,
      postbacks: createPostbackTriggers({
        configs: runtime.hotPostbackConfigs(tables.postbackConfigs),
        outbox: tables.outbox,
        queue: queues.postback,
      }),
    }),
);
