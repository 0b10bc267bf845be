/**
 * Ingestion: installs and event batches, from a parsed request body to the lake. Each event
 * gets its own verdict; the accepted ones reach the event stream together or not at all, so
 * a failed request can be retried whole (the export removes the duplicates a retry makes).
 */

import type { AppKeyrings } from "../apps/app-keyrings.ts";
import { installFacts } from "../attribution/facts.ts";
import { keptFirstOpen } from "../attribution/first-open.ts";
import { isSealed, openSealed } from "../crypto/envelope.ts";
import { UnauthorizedError, ValidationError } from "../domain/errors.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import type { LakeRecord } from "../lake/lake-tables.ts";
import type { AddressCrowds } from "../ports/address-crowds.ts";
import type { App, AppStore } from "../ports/apps.ts";
import type { AttributionStore } from "../ports/attributions.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type { CountryResolver } from "../ports/geo.ts";
import type { CustomerUserMap, InstallStore } from "../ports/installs.ts";
import type { RecordStream } from "../ports/lake.ts";
import type { WorkQueue } from "../ports/work-queue.ts";
import { resolvedOf } from "../postbacks/delivery.ts";
import type { AcceptedInstallEvent, PostbackTriggers } from "../postbacks/triggers.ts";
import type { AttributionJob } from "../workers/attribution-worker.ts";
import { parseEventsEnvelope } from "./event-schema.ts";
import type { BatchLookups, EventSource } from "./event-sources.ts";
import { type IgnoredReason, ignoredAs } from "./ignored.ts";
import { parseInstallRequest, repeatChangesOf, toInstall } from "./install.ts";
import { echoedEventId, judgeEvents, type ValidEvent } from "./judge.ts";
import { toLakeEvent } from "./lake-event.ts";
import { unconvertedRevenueWarning } from "./revenue.ts";
import { createSightingHints } from "./sightings.ts";

export interface IngestionDeps {
  readonly apps: AppStore;
  readonly installs: InstallStore;
  readonly customerUsers: CustomerUserMap;
  readonly events: RecordStream;
  readonly countries: CountryResolver;
  readonly fx: FxRates;
  readonly keyrings: AppKeyrings;
  /** Deletion requests: an install deleted once is never taken in again. */
  readonly deletions: Pick<DeletionStore, "listByInstall">;
  /** Each new install's attribution: recorded pending, and its job queued for the matcher. */
  readonly attribution: {
    readonly store: Pick<AttributionStore, "createPending">;
    readonly queue: WorkQueue<AttributionJob>;
  };
  /**
   * Each accepted event's postbacks and webhooks: outbox rows and queued sends, never a send;
   * the attributions tell whether an event's install is attributed yet.
   */
  readonly postbacks?: {
    readonly triggers: Pick<PostbackTriggers, "eventsAccepted">;
    readonly attributions: Pick<AttributionStore, "get">;
  };
  /** Which installs send from which address, the crowd probabilistic matching reads. */
  readonly sightings: Pick<AddressCrowds, "recordSightings">;
  readonly now?: () => Date;
}

/** Who sent a request and from where, as the HTTP layer saw it. */
export interface Caller {
  readonly appId: string;
  readonly sourceIp: string | null;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export interface EventsAnswer {
  accepted: number;
  ignored: { index: number; event_id: string | null; reason: IgnoredReason; detail: string }[];
  rejected: {
    index: number;
    event_id: string | null;
    error: string;
    detail: string;
    /** True when the same event may succeed later unchanged: the SDK keeps it and retries. */
    retryable: boolean;
  }[];
  /** Accepted events of which something was not kept as sent. */
  warnings: { index: number; event_id: string | null; detail: string }[];
}

/** `load` called at most once per key; later calls share its promise. */
const oncePerKey = <T>(load: (key: string) => Promise<T>) => {
  const loaded = new Map<string, Promise<T>>();
  return (key: string): Promise<T> => {
    let found = loaded.get(key);
    if (!found) {
      found = load(key);
      loaded.set(key, found);
    }
    return found;
  };
};

export const createIngestion = (deps: IngestionDeps) => {
  const now = deps.now ?? (() => new Date());
  const recordSighting = createSightingHints(deps.sightings);
  const sighted = (
    caller: Caller,
    appId: string,
    serviceIds: Iterable<string>,
    at: Date,
  ): Promise<void> => recordSighting(appId, caller.sourceIp, serviceIds, at);

  const isDeleted = async (appId: string, serviceId: string): Promise<boolean> =>
    (await deps.deletions.listByInstall(appId, serviceId)).length > 0;

  const appOf = async (caller: Caller): Promise<App> => {
    const app = await deps.apps.get(caller.appId);
    // The key's app was deleted after the authorizer's decision was cached.
    if (!app) throw new UnauthorizedError();
    return app;
  };

  return {
    /**
     * `POST /v1/installs`: idempotent on service_id; a repeat changes nothing but the consent
     * and device tracking it carries (repeatChangesOf).
     */
    async recordInstall(caller: Caller, body: unknown): Promise<{ service_id: string }> {
      const app = await appOf(caller);
      const receivedAt = now();
      const parsed = parseInstallRequest(body, { now: receivedAt });
      if (!parsed.ok) throw new ValidationError(parsed.detail);
      // An install whose data was deleted stays deleted: its id is never stored again. (An
      // install of a disabled app is stored: its events are withheld, its identity is not.)
      if (await isDeleted(app.appId, parsed.value.service_id)) {
        return { service_id: parsed.value.service_id };
      }
      const install = toInstall(parsed.value, {
        appId: app.appId,
        country: deps.countries.countryOf(caller),
        receivedAt,
      });
      // Recorded before the job is queued, so that matching counts this install at its address.
      const [{ install: stored, created }] = await Promise.all([
        deps.installs.putIfAbsent(install),
        sighted(caller, app.appId, [install.serviceId], receivedAt),
      ]);
      // A repeat keeps the first report's facts, but not its consent and tracking: the SDK sends
      // the install again holding them as they now stand, and sends no update for them once
      // answered.
      const changes = created ? null : repeatChangesOf(stored, parsed.value, receivedAt);
      if (changes) await deps.installs.update(app.appId, stored.serviceId, changes);
      // On every report, so a retry after a failure part-way still queues the job; a repeat
      // finds the pending attribution made and queues nothing (a job lost in between is the
      // sweeper's). The facts are the stored install's: the first report wins, its time too
      // (a touch reported after it never wins it), while the phone's clock offset is this
      // request's own.
      const pending = await deps.attribution.store.createPending({
        appId: app.appId,
        serviceId: stored.serviceId,
        facts: {
          ...installFacts(stored, {
            ip: caller.sourceIp,
            userAgent: caller.headers["user-agent"] ?? null,
            platformAdsToken: parsed.value.platform_ads_token,
            receivedAt,
            sentAt: parsed.value.sent_at,
          }),
          receivedAt: stored.receivedAt,
        },
        requestedAt: receivedAt.toISOString(),
      });
      if (pending) {
        await deps.attribution.queue.send([{ appId: app.appId, serviceId: stored.serviceId }]);
      }
      // The install keeps the customer user id it was first opened with, but the mapping that
      // server-to-server events resolve through is fed by events only: an id takes effect once
      // an event is sent with it (docs/api.md#rules).
      return { service_id: stored.serviceId };
    },

    /** `POST /v1/events` (SDK_EVENTS) and `POST /v1/s2s/events` (S2S_EVENTS). */
    async recordEvents(caller: Caller, body: unknown, source: EventSource): Promise<EventsAnswer> {
      const app = await appOf(caller);
      const receivedAt = now();
      const envelope = parseEventsEnvelope(body);
      if (!envelope.ok) throw new ValidationError(envelope.detail);
      if (!app.enabled) {
        return {
          accepted: 0,
          ignored: envelope.value.events.map((raw, index) => ({
            index,
            event_id: echoedEventId(raw),
            ...ignoredAs("app_disabled"),
          })),
          rejected: [],
          warnings: [],
        };
      }
      const keyring = await deps.keyrings(app);
      const verdicts = judgeEvents(envelope.value.events, {
        now: receivedAt,
        sentAt: envelope.value.sentAt,
        s2s: source.s2s,
        isSealed,
        // A value that fails to open throws SealedValueError, and judgeEvents rejects its event.
        open: (value) => (isSealed(value) ? openSealed(value, keyring) : undefined),
      });

      const answer: EventsAnswer = { accepted: 0, ignored: [], rejected: [], warnings: [] };
      const accepted: { event: ValidEvent; index: number }[] = [];
      for (const verdict of verdicts) {
        if (verdict.kind === "accepted") accepted.push(verdict);
        else if (verdict.kind === "ignored") {
          answer.ignored.push({
            index: verdict.index,
            event_id: verdict.eventId,
            reason: verdict.reason,
            detail: verdict.detail,
          });
        } else {
          // A verdict on the event itself: sent again unchanged, it would fail again.
          answer.rejected.push({
            index: verdict.index,
            event_id: verdict.eventId,
            error: verdict.error,
            detail: verdict.detail,
            retryable: false,
          });
        }
      }

      // Each user (an install, or for S2S a customer user id) is resolved once and all at the
      // same time: a batch names one or a few, and none waits for another's lookup. An install
      // with a deletion request takes in nothing from the request on (an SDK that missed its
      // deleteUserData answer may still send): not while its purge is pending, so no row of it
      // reaches the lake after the purge, and not after, when it is no longer found.
      const lookups: BatchLookups = {
        app,
        customerUsers: deps.customerUsers,
        installOf: oncePerKey((serviceId) => deps.installs.get(app.appId, serviceId)),
        deletedOf: oncePerKey((serviceId) => isDeleted(app.appId, serviceId)),
      };
      const targets = new Map(
        await Promise.all(
          [...new Set(accepted.map(({ event }) => source.userOf(event)))].map(
            async (user) => [user, await source.target(user, lookups)] as const,
          ),
        ),
      );
      const records: LakeRecord[] = [];
      const receivedAtIso = receivedAt.toISOString();
      // The mapping keeps a customer user id's latest use by event time, so of a batch's uses
      // of one id (an SDK sends it with every event) only the latest is written.
      const latestUses = new Map<string, { serviceId: string; seenAt: string }>();
      const callerCountry = deps.countries.countryOf(caller);
      const installsSent = new Set<string>();
      // An event_id is the event's identity within its install: the export keeps one row of it
      // and the outbox one send. Two events of one request under one id (a client's bug) would
      // leave which of them counts to chance, so the first is kept and the repeat ignored.
      const eventsKept = new Set<string>();
      const sends: AcceptedInstallEvent[] = [];
      // A phone's request says where the device is and what it runs; a server's says neither.
      const device = source.s2s
        ? { ip: null, userAgent: null }
        : { ip: caller.sourceIp, userAgent: caller.headers["user-agent"] ?? null };
      for (const { event, index } of accepted) {
        const target = targets.get(source.userOf(event));
        if (!target) throw new Error("an accepted event's user was not resolved");
        if ("ignored" in target) {
          answer.ignored.push({ index, event_id: event.eventId, ...ignoredAs(target.ignored) });
          continue;
        }
        if ("detail" in target) {
          answer.rejected.push({ index, event_id: event.eventId, ...target });
          continue;
        }
        // Both are identifiers (letters, digits and ".", "_", ":", "-"): a space joins them apart.
        const keptAs = `${target.install.serviceId} ${event.eventId}`;
        if (eventsKept.has(keptAs)) {
          answer.ignored.push({ index, event_id: event.eventId, ...ignoredAs("duplicate_event") });
          continue;
        }
        eventsKept.add(keptAs);
        installsSent.add(target.install.serviceId);
        const record = toLakeEvent(event, {
          app,
          install: target.install,
          // A server-to-server call comes from the app's servers, not the user's device.
          country: source.countryOf(target.install, callerCountry),
          receivedAt: receivedAtIso,
          fx: deps.fx,
        });
        const warnings =
          event.revenue && record.revenue_usd === null
            ? [
                ...event.warnings,
                unconvertedRevenueWarning(event.revenue, event.eventTime, deps.fx),
              ]
            : event.warnings;
        if (warnings.length > 0) {
          answer.warnings.push({ index, event_id: event.eventId, detail: warnings.join("; ") });
        }
        records.push(record);
        sends.push({
          serviceId: target.install.serviceId,
          // The window runs from the install's time as kept, as the event's time is.
          installTime: keptFirstOpen(target.install),
          event: {
            eventId: event.eventId,
            name: String(record.event_name),
            time: event.eventTime,
            revenue: event.revenue
              ? {
                  amount: event.revenue.amount,
                  currency: event.revenue.currency,
                  // As the lake row has it: `{revenue_usd}` tells a partner what the export says.
                  usd: typeof record.revenue_usd === "number" ? record.revenue_usd : null,
                }
              : null,
          },
          ...device,
          // The event's own, as its lake row has it: a user who logged in after the install
          // (none when the event was sent anonymous).
          customerUserId: event.anonymous ? null : event.customerUserId,
          anonymous: event.anonymous,
        });
        const used = source.customerUserUse(event);
        // Both times are ISO 8601 UTC with milliseconds, so their text orders as they do.
        if (used && !((latestUses.get(used)?.seenAt ?? "") > event.eventTime)) {
          latestUses.set(used, { serviceId: target.install.serviceId, seenAt: event.eventTime });
        }
      }

      // One put: every accepted event is stored, or the request fails and is retried whole.
      // A phone's own request tells which installs send from its address.
      await Promise.all([
        deps.events.put(records),
        source.s2s ? undefined : sighted(caller, app.appId, installsSent, receivedAt),
      ]);
      for (const [customerUserId, use] of latestUses) {
        await deps.customerUsers.put(app.appId, customerUserId, use.serviceId, use.seenAt);
      }
      // Once stored: a failure here fails the request, which the SDK sends again whole (the
      // outbox adds no second send of an event, the export no second row).
      const { postbacks } = deps;
      await postbacks?.triggers.eventsAccepted(app.appId, sends, async (serviceId) => {
        const found = await postbacks.attributions.get(app.appId, serviceId);
        return found?.state === "resolved" ? resolvedOf(found.result) : null;
      });
      answer.accepted = records.length;
      answer.ignored.sort((a, b) => a.index - b.index);
      answer.rejected.sort((a, b) => a.index - b.index);
      return answer;
    },
  };
};
