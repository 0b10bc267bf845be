/**
 * Where postbacks and webhooks begin: an install's attribution once it is stored (the
 * attribution worker) and an install's events once ingestion has accepted them. A trigger
 * decides which of the app's configurations hear of it, adds one outbox row per send and
 * queues its first attempt; it never sends, so the request paths stay fast.
 *
 * The outbox is keyed by the send's id (./rules.ts's sendIdOf), the same however often the
 * trigger runs, and refuses a second row: the attribution worker's retries and an SDK's retry
 * of the same event add nothing. A row added by a run that stopped before it queued the first
 * attempt is queued again by the next run while it has not been tried (the worker's claims
 * make a message that comes twice one attempt).
 *
 * An event of an install whose attribution is still pending is added for every partner that
 * would take it if it had won the install (mapped, in its window); the worker decides once the
 * attribution is resolved.
 */
import type {
  OutboxRow,
  OutboxStore,
  OutboxSubject,
  PostbackConfigStore,
  SendTarget,
  StoredPartnerConfig,
} from "../ports/postbacks.ts";
import type { WorkQueue } from "../ports/work-queue.ts";
import { decisionConfigOf, type PostbackJob } from "./delivery.ts";
import {
  type AcceptedEvent,
  eventDecision,
  installDecision,
  type ResolvedAttribution,
  sendIdOf,
} from "./rules.ts";

export interface PostbackTriggerDeps {
  /** An app's configurations, read on every trigger: through a short cache on a hot path. */
  readonly configs: Pick<PostbackConfigStore, "listByApp">;
  readonly outbox: Pick<OutboxStore, "add" | "get">;
  readonly queue: WorkQueue<PostbackJob>;
  readonly now?: () => Date;
}

/** An accepted event of an install, with what its request said of the device. */
export interface AcceptedInstallEvent {
  readonly serviceId: string;
  /** The install's first open: an event's window runs from it. */
  readonly installTime: string;
  readonly event: AcceptedEvent;
  /** The device's address and user agent (an SDK's request); null for a server's. */
  readonly ip: string | null;
  readonly userAgent: string | null;
  /** The customer user id the event was sent with (the export's); null when none. */
  readonly customerUserId: string | null;
  /** Sent in the SDK's anonymous mode: its sends name neither the device nor the user. */
  readonly anonymous?: boolean;
}

export interface PostbackTriggers {
  /** An install's attribution is stored: its postbacks and webhooks. How many sends were queued. */
  installResolved(input: {
    readonly appId: string;
    readonly serviceId: string;
    readonly attribution: ResolvedAttribution;
    /** The address the install was reported from, when it is still known. */
    readonly ip: string | null;
    /**
     * The user agent of the install's request, when it is still known: `{user_agent}` of the
     * install's postbacks. Kept in the send's subject, as the address is, since the install
     * does not keep it.
     */
    readonly userAgent?: string | null;
  }): Promise<number>;
  /**
   * Events were accepted (stored): their postbacks and webhooks. `attributionOf` reads an
   * install's attribution (null while pending), only when a partner may take its events.
   */
  eventsAccepted(
    appId: string,
    events: readonly AcceptedInstallEvent[],
    attributionOf: (serviceId: string) => Promise<ResolvedAttribution | null>,
  ): Promise<number>;
}

/**
 * The configuration a send id is derived from, whole: ids are the owner's, so two apps (or a
 * partner and a webhook of one app) may use the same; their sends never share an outbox row.
 */
export const sendConfigKey = (appId: string, target: SendTarget, configId: string): string =>
  JSON.stringify([appId, target, configId]);

/** Whether a partner would take the event if it had won the install: mapped, in its window. */
const mayTakeEvent = (
  config: StoredPartnerConfig,
  installTime: string,
  event: AcceptedEvent,
): boolean =>
  eventDecision(
    decisionConfigOf(config),
    // A win by the configuration's own media source, or none for a partner of all installs.
    { status: "matched", mediaSource: config.mediaSources[0] ?? null },
    installTime,
    event,
  ).send;

/**
 * A send's subject without the device's address and agent: what its row keeps once nothing
 * will be sent with them (a webhook's, which never carries them; any send once final).
 */
export const withoutSender = (subject: OutboxSubject): OutboxSubject => ({
  ...subject,
  ip: null,
  userAgent: null,
});

export const createPostbackTriggers = (deps: PostbackTriggerDeps): PostbackTriggers => {
  const now = deps.now ?? (() => new Date());

  const rowOf = (
    appId: string,
    target: SendTarget,
    configId: string,
    subject: OutboxSubject,
  ): OutboxRow => {
    const at = now().toISOString();
    // A webhook's body carries no address and no agent (delivery.ts): its row keeps none.
    const kept = target === "webhook" ? withoutSender(subject) : subject;
    return {
      sendId: sendIdOf(
        sendConfigKey(appId, target, configId),
        subject.kind === "install"
          ? { kind: "install", serviceId: subject.serviceId }
          : { kind: "event", serviceId: subject.serviceId, eventId: subject.eventId },
      ),
      appId,
      configId,
      target,
      subject: kept,
      state: "queued",
      attempts: 0,
      nextAttemptAt: null,
      note: null,
      claimToken: null,
      claimedUntil: null,
      createdAt: at,
      updatedAt: at,
    };
  };

  /** Adds each row where none is and queues its first attempt; how many were queued. */
  const enqueue = async (rows: readonly OutboxRow[]): Promise<number> => {
    const queued = await Promise.all(
      rows.map(async (row): Promise<PostbackJob | null> => {
        const job = { appId: row.appId, sendId: row.sendId, attempt: 1 };
        if (await deps.outbox.add(row)) return job;
        // Added before: queued again only while it was never tried (a run stopped in between).
        const existing = await deps.outbox.get(row.sendId);
        return existing?.state === "queued" && existing.attempts === 0 ? job : null;
      }),
    );
    const jobs = queued.filter((job): job is PostbackJob => job !== null);
    if (jobs.length > 0) await deps.queue.send(jobs);
    return jobs.length;
  };

  return {
    async installResolved({ appId, serviceId, attribution, ip, userAgent }) {
      const { partners, webhooks } = await deps.configs.listByApp(appId);
      const subject: OutboxSubject = {
        kind: "install",
        serviceId,
        ip,
        userAgent: userAgent ?? null,
      };
      const rows = [
        ...partners
          .filter((config) => installDecision(decisionConfigOf(config), attribution).send)
          .map((config) => rowOf(appId, "partner", config.id, subject)),
        ...webhooks
          .filter((webhook) => webhook.enabled)
          .map((webhook) => rowOf(appId, "webhook", webhook.id, subject)),
      ];
      return rows.length === 0 ? 0 : enqueue(rows);
    },

    async eventsAccepted(appId, events, attributionOf) {
      if (events.length === 0) return 0;
      const { partners, webhooks } = await deps.configs.listByApp(appId);
      const hooks = webhooks.filter((webhook) => webhook.enabled);
      // Each install's attribution read once, only for events some partner may take.
      const attributions = new Map<string, Promise<ResolvedAttribution | null>>();
      const attributionFor = (serviceId: string) => {
        let found = attributions.get(serviceId);
        if (!found) {
          found = attributionOf(serviceId);
          attributions.set(serviceId, found);
        }
        return found;
      };
      const rows: OutboxRow[] = [];
      for (const accepted of events) {
        const subject: OutboxSubject = {
          kind: "event",
          serviceId: accepted.serviceId,
          eventId: accepted.event.eventId,
          name: accepted.event.name,
          time: accepted.event.time,
          revenue: accepted.event.revenue,
          ...(accepted.anonymous
            ? { ip: null, userAgent: null, customerUserId: null, anonymous: true }
            : {
                ip: accepted.ip,
                userAgent: accepted.userAgent,
                customerUserId: accepted.customerUserId,
              }),
        };
        for (const webhook of hooks) rows.push(rowOf(appId, "webhook", webhook.id, subject));
        const candidates = partners.filter((config) =>
          mayTakeEvent(config, accepted.installTime, accepted.event),
        );
        if (candidates.length === 0) continue;
        const attribution = await attributionFor(accepted.serviceId);
        for (const config of candidates) {
          // Pending: the worker decides once the attribution is resolved.
          const goes =
            attribution === null ||
            eventDecision(
              decisionConfigOf(config),
              attribution,
              accepted.installTime,
              accepted.event,
            ).send;
          if (goes) rows.push(rowOf(appId, "partner", config.id, subject));
        }
      }
      return rows.length === 0 ? 0 : enqueue(rows);
    },
  };
};
