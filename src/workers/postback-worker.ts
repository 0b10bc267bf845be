/**
 * The postback worker: one queued message per attempt of one send of the outbox. It reads the
 * send's configuration and facts, decides again (a configuration changed or removed since the
 * trigger, an install deleted on request, an event whose install's attribution was pending),
 * claims the attempt, builds the request (a partner's template, or a webhook's signed body),
 * sends it, logs the attempt and settles the send: delivered, failed, or tried again later by
 * a new message with that delay (SQS's message delay on AWS, which allows 15 minutes; the
 * folder queue's embedded): a partner's 15 minutes later, 5 attempts in all, a webhook's over
 * more than a day (src/postbacks/retries.ts). A delay past the queue's 15 minutes is reached by
 * messages of 15 minutes at most, each that comes before its attempt's time sent on again. A
 * send with nothing to send (its configuration gone, a user who refused consent, a value its
 * partner requires missing) is skipped, and the skip logged with its reason.
 *
 * Messages come at least once. An attempt is claimed in the outbox before it is made, so two
 * deliveries of one message make one attempt; a message the queue delivers again (its worker
 * stopped: a crash, a `kill -9`, a Lambda time-out) takes the claim over and makes the attempt
 * whose outcome was never recorded; a message refused the claim while another stands comes back
 * once that claim has ended. A message of an attempt already made only makes sure the next one
 * is queued.
 *
 * One slow partner cannot hold the others' sends: a request ends within 10 s, and a
 * configuration found slow may have a quarter of the worker's slots in requests and a quarter
 * waiting a moment for one of them to end (src/postbacks/partner-slots.ts), and so may a
 * destination host, whichever apps' configurations send to it; an attempt past that comes back
 * a few seconds later, unclaimed. A partner that answers quickly may have every slot.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createHttpSender } from "../adapters/postback-sender/http-sender.ts";
import { keptFirstOpen } from "../attribution/first-open.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { ValidationError } from "../domain/errors.ts";
import { DAY_MS, MINUTE_MS, SECOND_MS } from "../domain/time.ts";
import { composition } from "../functions/adapters.ts";
import { logger } from "../logging/logger.ts";
import type { AppStore } from "../ports/apps.ts";
import type { AttributionStore } from "../ports/attributions.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type { InstallStore } from "../ports/installs.ts";
import {
  type AppPostbackConfigs,
  type DeliveryLog,
  type DeliveryLogEntry,
  isFinalState,
  type OutboxRow,
  type OutboxStore,
  type OutgoingRequest,
  type PostbackConfigStore,
  type PostbackSender,
  type SendOutcome,
} from "../ports/postbacks.ts";
import type { WorkHandler, WorkMessage, WorkQueue } from "../ports/work-queue.ts";
import type { PartnerConfig } from "../postbacks/config.ts";
import { secretsOf } from "../postbacks/config.ts";
import {
  acceptedEventOf,
  type PostbackJob,
  partnerRequestOf,
  resolvedOf,
  type SendFacts,
  templateUrlOf,
  webhookRequestOf,
} from "../postbacks/delivery.ts";
import {
  createPartnerSlots,
  type PartnerSlot,
  type PartnerSlots,
} from "../postbacks/partner-slots.ts";
import { partnerById } from "../postbacks/partners.ts";
import {
  attemptLog,
  judged,
  MAX_QUEUE_DELAY_SECONDS,
  retryPolicyOf,
  serviceFailureLog,
  skipLog,
  urlCredentialsOf,
  verdictOf,
} from "../postbacks/retries.ts";
import {
  consentSkip,
  eventDecision,
  installDecision,
  type SkipReason,
} from "../postbacks/rules.ts";
import { openPartnerConfig, openWebhookConfig } from "../postbacks/secrets.ts";
import { signingSecrets } from "../postbacks/signing.ts";
import { withoutSender } from "../postbacks/triggers.ts";
import { POSTBACK_WORKER } from "./workers.ts";

/**
 * The attempts one process runs side by side: the embedded worker's messages at once, or on AWS
 * a function's batch, which its attempts share.
 */
export const postbackSlotsOn = (kind: "aws" | "embedded"): number =>
  kind === "aws"
    ? POSTBACK_WORKER.batchSize
    : (POSTBACK_WORKER.concurrency ?? POSTBACK_WORKER.batchSize);
/** Of `slots`: requests one slow configuration, or one slow destination host, may have at once. */
export const slowPerConfiguration = (slots: number): number => Math.max(1, Math.floor(slots / 4));
/** Requests to one slow configuration the embedded worker has at once. */
export const SLOW_PER_CONFIGURATION = slowPerConfiguration(postbackSlotsOn("embedded"));
/** How long an attempt waits for a busy configuration's request to end before it is set aside. */
export const BUSY_WAIT_MS = 1_000;
/** How soon a message set aside for a busy configuration comes back. */
export const BUSY_DELAY_SECONDS = 5;
/** How soon an event whose install's attribution is pending is decided again. */
export const PENDING_DELAY_SECONDS = 60;
/** How long an event waits for its install's attribution before it is given up. */
export const PENDING_LIMIT_MS = DAY_MS;
/**
 * How long an event's webhook delivery waits for its install's attribution: the app's backend
 * is told of each event soon, and with the campaign that brought its user where that is known
 * within minutes (the first launch's events come seconds before the install is matched).
 */
export const WEBHOOK_ATTRIBUTION_WAIT_MS = 10 * MINUTE_MS;
/**
 * A message that comes more than this before its attempt's time (a delay longer than the queue
 * allows) is sent on again; within it, the attempt is made: a queue's clock and ours differ.
 */
const EARLY_TOLERANCE_MS = 5 * SECOND_MS;
/** A claim outlives the attempt's time-out by this much: the log and the settling. */
const CLAIM_MARGIN_MS = 20 * SECOND_MS;
/** Opened configurations are kept this long per process (their secrets cost a key unwrap). */
const OPENED_LIFE_MS = 5 * 60 * SECOND_MS;
/** Tries at settling an attempt whose request was made, and the wait before the next, doubling. */
const SETTLE_TRIES = 3;
const SETTLE_RETRY_MS = 100;

export interface PostbackWorkerDeps {
  readonly apps: Pick<AppStore, "get">;
  readonly installs: Pick<InstallStore, "get">;
  readonly attributions: Pick<AttributionStore, "get">;
  readonly deletions: Pick<DeletionStore, "listByInstall">;
  readonly configs: Pick<PostbackConfigStore, "listByApp">;
  readonly outbox: OutboxStore;
  readonly log: Pick<DeliveryLog, "append">;
  /** The worker's own queue: the next attempt, a busy configuration's, a pending event's. */
  readonly queue: WorkQueue<PostbackJob>;
  readonly sender: PostbackSender;
  /** Opens the configurations' secret values (src/postbacks/secrets.ts). */
  readonly keyWrapper: KeyWrapper;
  readonly now?: () => Date;
  /** Places for requests, per configuration and per destination host (src/postbacks/partner-slots.ts). */
  readonly slots?: PartnerSlots;
  /** The attempts the process runs side by side (`postbackSlotsOn`); the embedded worker's unless given. */
  readonly parallel?: number;
}

/**
 * Why a send is skipped: a code, which the delivery log keeps (docs/postbacks.md#skipped-sends),
 * and a sentence, which the outbox row keeps.
 */
interface Skip {
  readonly reason: string;
  readonly note: string;
  /**
   * Neither the owner's choice nor the rules': something went wrong (a configuration that no
   * longer checks, an install missing or never attributed), worth a warning in the service's log.
   */
  readonly abnormal?: boolean;
  /** Not written to the delivery log: a record naming an install deleted on request. */
  readonly unlogged?: boolean;
}

const SKIPPED: Readonly<Record<SkipReason, string>> = {
  disabled: "the configuration is switched off",
  not_resolved: "its install's attribution was never resolved",
  no_template: "the partner takes no postback of this kind",
  install_skipped: "the install was not attributed: its app or attribution is switched off",
  repeated_click:
    "the device installed again from a click the partner was told of with its first install",
  not_won: "the partner did not win the install",
  unmapped: "the event is not mapped for the partner",
  outside_window: "the event is past the partner's window",
  no_consent: "the install's user did not consent to ad user data going to ad networks",
  no_vendor_consent:
    "the install's TCF consent string gives the partner, a vendor of the Global Vendor List, no consent",
};

const skipOf = (reason: SkipReason): Skip => ({ reason, note: SKIPPED[reason] });

const SKIPS = {
  // Not logged: the owner removed it, and with it the partner its record would name.
  removed: { reason: "config_removed", note: "the configuration was removed", unlogged: true },
  deleted: {
    reason: "install_deleted",
    note: "the install's data was deleted on request",
    unlogged: true,
  },
  notStored: { reason: "install_not_stored", note: "the install is not stored", abnormal: true },
  unresolved: {
    reason: "not_resolved",
    note: "its install's attribution was not resolved within a day",
    abnormal: true,
  },
  // The owner switched the app off: its sends waiting for a retry stop with its ingestion.
  appOff: { reason: "app_disabled", note: "the app is switched off" },
} as const satisfies Record<string, Skip>;

/**
 * The destination's key among the places for requests, its host and port: configurations of
 * many apps may send to one network, which being slow must not hold more of the worker's slots
 * than one configuration may.
 */
const destinationKeys = (url: string): string[] => {
  try {
    const host = new URL(url).host.toLowerCase();
    return host === "" ? [] : [`host#${host}`];
  } catch {
    return [];
  }
};

/** Whole seconds from now until `at`, within what SQS allows. */
const delayUntil = (at: string | null, now: Date): number =>
  at === null
    ? 0
    : Math.min(
        MAX_QUEUE_DELAY_SECONDS,
        Math.max(0, Math.ceil((Date.parse(at) - now.getTime()) / 1000)),
      );

const noteOf = (outcome: SendOutcome, error: string | null): string | null =>
  error ?? (outcome.kind === "answer" ? `answered ${outcome.status}` : null);

/** What an attempt sends, or why it sends nothing; with the secrets its log masks. */
type Prepared =
  /** `partner`: the catalog partner's id, `custom` or `webhook`, for the skip's record. */
  | { readonly skip: Skip; readonly partner: string }
  | { readonly wait: true }
  | {
      readonly partner: string;
      readonly request: OutgoingRequest | { readonly problem: string; readonly url: string };
      readonly secrets: readonly string[];
    };

export const createPostbackWorker = (deps: PostbackWorkerDeps): WorkHandler<PostbackJob> => {
  const now = deps.now ?? (() => new Date());
  // A quarter of the process's slots in requests to a slow partner, a quarter more waiting.
  const quarter = slowPerConfiguration(deps.parallel ?? postbackSlotsOn("embedded"));
  const slots =
    deps.slots ??
    createPartnerSlots({
      slowMax: quarter,
      room: quarter,
      waitMs: BUSY_WAIT_MS,
      now: () => now().getTime(),
    });
  const opened = new Map<string, { config: Promise<unknown>; until: number }>();

  /** A configuration's secrets opened once per version and process, for a few minutes. */
  const openOnce = <T>(key: string, open: () => Promise<T>): Promise<T> => {
    const kept = opened.get(key);
    if (kept && kept.until > Date.now()) return kept.config as Promise<T>;
    const config = open();
    opened.set(key, { config, until: Date.now() + OPENED_LIFE_MS });
    config.catch(() => opened.delete(key));
    return config;
  };

  /** The send's facts, or why there is nothing to send. */
  const factsOf = async (
    row: OutboxRow,
    configs: AppPostbackConfigs,
  ): Promise<SendFacts | { skip: Skip }> => {
    const [install, record, app, deletions] = await Promise.all([
      deps.installs.get(row.appId, row.subject.serviceId),
      deps.attributions.get(row.appId, row.subject.serviceId),
      deps.apps.get(row.appId),
      deps.deletions.listByInstall(row.appId, row.subject.serviceId),
    ]);
    if (deletions.length > 0) return { skip: SKIPS.deleted };
    if (app && !app.enabled) return { skip: SKIPS.appOff };
    if (!install) return { skip: SKIPS.notStored };
    const attribution = record?.state === "resolved" ? record.result : null;
    return { app, install, attribution, subject: row.subject, settings: configs.settings };
  };

  const prepare = async (row: OutboxRow, attempt: number, at: Date): Promise<Prepared> => {
    const configs = await deps.configs.listByApp(row.appId);
    const stored =
      row.target === "partner"
        ? configs.partners.find((config) => config.id === row.configId)
        : configs.webhooks.find((config) => config.id === row.configId);
    if (!stored) return { skip: SKIPS.removed, partner: "" };
    const partner = "sealedValues" in stored ? stored.partner : "webhook";
    const skipped = (skip: Skip) => ({ skip, partner });
    if (!stored.enabled) return skipped(skipOf("disabled"));
    const facts = await factsOf(row, configs);
    if ("skip" in facts) return skipped(facts.skip);

    if (row.target === "webhook" && "sealedSecret" in stored) {
      // An event that came before its install was matched waits for the match a few minutes,
      // as a partner's does for a day: sent at once, its delivery would say no campaign.
      if (
        row.subject.kind === "event" &&
        facts.attribution === null &&
        at.getTime() - Date.parse(row.createdAt) < WEBHOOK_ATTRIBUTION_WAIT_MS
      ) {
        return { wait: true };
      }
      const webhook = await openOnce(`${row.appId}#webhook#${stored.id}#${stored.updatedAt}`, () =>
        openWebhookConfig(stored, deps.keyWrapper),
      );
      return {
        partner: "webhook",
        request: webhookRequestOf({
          url: webhook.url,
          secrets: signingSecrets(webhook, at),
          facts,
          sendId: row.sendId,
          attempt,
          now: at,
        }),
        // What the attempt's record masks: the signing secrets, and a secret in the URL's path.
        secrets: [...signingSecrets(webhook, at), ...urlCredentialsOf(webhook.url)],
      };
    }
    if (!("sealedValues" in stored)) return { skip: SKIPS.removed, partner: "" };

    let config: PartnerConfig;
    try {
      config = await openOnce(`${row.appId}#partner#${stored.id}#${stored.updatedAt}`, () =>
        openPartnerConfig(stored, deps.keyWrapper),
      );
    } catch (error) {
      // A configuration the catalog no longer takes: the owner must save it again.
      if (error instanceof ValidationError) {
        return skipped({
          reason: "config_invalid",
          note: `the configuration no longer checks: ${error.message}`,
          abnormal: true,
        });
      }
      throw error;
    }
    const attribution = facts.attribution ? resolvedOf(facts.attribution) : null;
    const decision =
      row.subject.kind === "install"
        ? { ...installDecision(config, attribution), event: null }
        : eventDecision(
            config,
            attribution,
            keptFirstOpen(facts.install),
            acceptedEventOf(row.subject),
          );
    if (!decision.send) {
      if (decision.reason !== "not_resolved") return skipped(skipOf(decision.reason));
      if (at.getTime() - Date.parse(row.createdAt) > PENDING_LIMIT_MS) {
        return skipped(SKIPS.unresolved);
      }
      return { wait: true };
    }
    // Consent as it stands now: a user who withdrew it since the trigger is not reported.
    const refused = consentSkip(facts.install.consent, config.tcfVendorId);
    if (refused) return skipped(skipOf(refused));
    const built = partnerRequestOf({
      config,
      facts,
      event: decision.event,
      won: decision.won,
      attempt,
    });
    // A value the partner matches on is missing (no advertising id to share): nothing to send,
    // and nothing the owner could fix, so no failure.
    if (!built.ok && built.missing && built.missing.length > 0) {
      return skipped({ reason: `missing:${built.missing.join(",")}`, note: built.problem });
    }
    return {
      partner: config.partner,
      request: built.ok
        ? built.request
        : { problem: built.problem, url: templateUrlOf(config, facts) },
      secrets: secretsOf(config),
    };
  };

  /**
   * A place under each key in turn, or undefined (and none held) when one stays busy. The
   * configuration's comes first: a wait for its destination's place then counts in the
   * configuration's time, which is right, as its requests go there.
   */
  const takeSlots = async (keys: readonly string[]): Promise<PartnerSlot | undefined> => {
    const taken: PartnerSlot[] = [];
    for (const key of keys) {
      const slot = await slots.take(key);
      if (!slot) {
        for (const held of taken.reverse()) held.end();
        return undefined;
      }
      taken.push(slot);
    }
    return {
      end: () => {
        for (const held of [...taken].reverse()) held.end();
      },
    };
  };

  /** Queues the attempt after the one the row last made, at its time. */
  const queueNext = (row: OutboxRow, at: Date) =>
    deps.queue.send([{ appId: row.appId, sendId: row.sendId, attempt: row.attempts + 1 }], {
      delaySeconds: delayUntil(row.nextAttemptAt, at),
    });

  /**
   * A claim refused while the attempt is still to be made: another holder's claim stands. It may
   * be a delivery of this message under way, or a process that died holding it (a `kill -9`)
   * whose claim this message could not take over (it was set aside as busy, so it is no longer a
   * message the queue delivered again). The message comes back once that claim has ended, so the
   * attempt is made then if its holder never settled it; never is a send left queued with no
   * message to carry it.
   */
  const comeBackAfterClaim = async (job: PostbackJob, at: Date) => {
    const row = await deps.outbox.get(job.sendId);
    if (!row || isFinalState(row.state) || row.attempts !== job.attempt - 1) return;
    await deps.queue.send([job], {
      delaySeconds: Math.max(1, delayUntil(row.claimedUntil, at) + 1),
    });
  };

  /**
   * Claims the attempt and makes its request, within one of the configuration's slots; nothing
   * when another holder has the attempt's claim or made it (the message then comes back once
   * that claim has ended), or when the configuration stays busy (the message then comes back a
   * few seconds later, unclaimed).
   */
  const claimAndSend = async (
    row: OutboxRow,
    job: PostbackJob,
    prepared: Extract<Prepared, { request: unknown }>,
    takeOver: boolean,
  ): Promise<{ token: string; outcome: SendOutcome } | undefined> => {
    const slot = await takeSlots([
      `config#${row.appId}#${row.target}#${row.configId}`,
      ...destinationKeys(prepared.request.url),
    ]);
    if (!slot) {
      await deps.queue.send([job], { delaySeconds: BUSY_DELAY_SECONDS });
      return undefined;
    }
    try {
      const token = randomUUID();
      const claimedAt = now();
      const claimed = await deps.outbox.claim(row.sendId, {
        attempt: job.attempt,
        token,
        until: new Date(
          claimedAt.getTime() + retryPolicyOf(row.target).timeoutMs + CLAIM_MARGIN_MS,
        ).toISOString(),
        now: claimedAt.toISOString(),
        takeOver,
      });
      if (!claimed) {
        await comeBackAfterClaim(job, claimedAt);
        return undefined;
      }
      const { request } = prepared;
      const outcome: SendOutcome =
        "problem" in request
          ? { kind: "refused", reason: request.problem }
          : await deps.sender.send(request);
      return { token, outcome };
    } finally {
      slot.end();
    }
  };

  /** Whose the log's record is: the send's configuration, partner and subject. */
  const recordOf = (row: OutboxRow, partner: string) => ({
    appId: row.appId,
    sendId: row.sendId,
    configId: row.configId,
    target: row.target,
    partner,
    subject: {
      kind: row.subject.kind,
      serviceId: row.subject.serviceId,
      eventId: row.subject.kind === "event" ? row.subject.eventId : null,
    },
  });

  /** Appends a record; a log out of reach costs the record, said in the service's log. */
  const appendLog = (entry: DeliveryLogEntry, attempt: number) =>
    deps.log.append(entry).catch((error: unknown) =>
      logger.error("postback attempt not logged", {
        appId: entry.appId,
        sendId: entry.sendId,
        attempt,
        error,
      }),
    );

  /**
   * Skips the send and logs why, as a record with the skipped verdict: the owner sees in the
   * log and the counts that it did not go, and why. Nothing is logged when the send was no
   * longer open (final already, or purged with its install's data).
   */
  const skipSend = async (
    row: OutboxRow,
    job: PostbackJob,
    { skip, partner }: Extract<Prepared, { skip: Skip }>,
    at: Date,
  ) => {
    // Final: the row keeps no address or agent for the rest of its days.
    const skipped = await deps.outbox.skip(
      row.sendId,
      skip.note,
      at.toISOString(),
      withoutSender(row.subject),
    );
    if (!skipped) return;
    if (skip.abnormal) {
      logger.warn("postback skipped", {
        appId: row.appId,
        sendId: row.sendId,
        configId: row.configId,
        target: row.target,
        reason: skip.reason,
        note: skip.note,
      });
    }
    if (skip.unlogged) return;
    await appendLog(
      {
        ...recordOf(row, partner),
        ...skipLog({ attempt: job.attempt, at, reason: skip.reason }),
      },
      job.attempt,
    );
  };

  /**
   * Settles an attempt whose request was made, tried again on the spot when the store fails: left
   * open, the attempt would be taken over by the message's next delivery, which makes the request
   * again, and the partner would count one conversion twice.
   */
  const settleMade = async (...args: Parameters<OutboxStore["settle"]>): Promise<boolean> => {
    for (let tried = 1; ; tried += 1) {
      try {
        return await deps.outbox.settle(...args);
      } catch (error) {
        if (tried >= SETTLE_TRIES) throw error;
        logger.warn("postback attempt not settled yet: trying again", {
          sendId: args[0],
          tried,
          error,
        });
        await sleep(SETTLE_RETRY_MS * 2 ** (tried - 1));
      }
    }
  };

  const attemptOnce = async (row: OutboxRow, job: PostbackJob, takeOver: boolean) => {
    const startedAt = now();
    const prepared = await prepare(row, job.attempt, startedAt);
    if ("skip" in prepared) {
      await skipSend(row, job, prepared, startedAt);
      return;
    }
    if ("wait" in prepared) {
      await deps.queue.send([job], { delaySeconds: PENDING_DELAY_SECONDS });
      return;
    }
    const made = await claimAndSend(row, job, prepared, takeOver);
    if (!made) return;
    const { token } = made;
    // A catalog partner whose API answers 200 to a request it refused says so in the body.
    const outcome = judged(made.outcome, partnerById(prepared.partner)?.answer);
    const { request } = prepared;
    const endedAt = now();
    const policy = retryPolicyOf(row.target);
    const record = attemptLog({
      url: request.url,
      method: "problem" in request ? "" : request.method,
      outcome,
      attempt: job.attempt,
      endedAt,
      secrets: prepared.secrets,
      policy,
    });
    const verdict = verdictOf(outcome, job.attempt, endedAt, policy);
    const nextAttemptAt = verdict.verdict === "retry" ? verdict.retryAt.toISOString() : null;
    const settled = await settleMade(row.sendId, token, {
      attempt: job.attempt,
      state:
        verdict.verdict === "retry"
          ? "retrying"
          : verdict.verdict === "delivered"
            ? "delivered"
            : "failed",
      nextAttemptAt,
      note: noteOf(outcome, record.error),
      at: endedAt.toISOString(),
      // Final: the row keeps no address or agent for the rest of its days.
      ...(verdict.verdict === "retry" ? {} : { subject: withoutSender(row.subject) }),
    });
    // Not settled: a later delivery of this message took the attempt over, or the send is gone,
    // purged with its install's data on request. Its record would then name the install again
    // after the purge, so it is written only while the send is there.
    if (!settled && !(await deps.outbox.get(row.sendId))) return;
    // Logged once settled: a log that fails must not leave the attempt unsettled, for the
    // message's next delivery would take it over and send the partner the postback again.
    await appendLog({ ...recordOf(row, prepared.partner), ...record }, job.attempt);
    // Lost: a later delivery of this message took the attempt over and settles it.
    if (!settled) return;
    if (verdict.verdict === "retry") {
      await queueNext({ ...row, attempts: job.attempt, nextAttemptAt }, endedAt);
    } else if (verdict.verdict === "failed") {
      logger.warn("postback failed", {
        appId: row.appId,
        sendId: row.sendId,
        configId: row.configId,
        attempt: job.attempt,
        error: record.error,
        status: record.status,
      });
    }
  };

  /** The configuration's partner for a record, as far as it can still be read. */
  const partnerNameOf = async (row: OutboxRow): Promise<string> => {
    if (row.target === "webhook") return "webhook";
    try {
      const configs = await deps.configs.listByApp(row.appId);
      return configs.partners.find((config) => config.id === row.configId)?.partner ?? "";
    } catch {
      return "";
    }
  };

  /**
   * The message's last delivery failed on the service's side (a store or a key out of reach),
   * and it is going to the dead-letter queue. The send would be left open for good, its attempt
   * never made: it is settled failed and the attempt logged with why, so the owner's log and
   * counts say it did not go. When even that cannot be written, the message in the dead-letter
   * queue is what is left (its alarm fires); sent to the queue again, it finds the send open.
   */
  const giveUp = async (job: PostbackJob, error: unknown) => {
    const row = await deps.outbox.get(job.sendId);
    if (!row || row.appId !== job.appId || isFinalState(row.state)) return;
    const attempt = row.attempts + 1;
    const at = now();
    const token = randomUUID();
    const claimed = await deps.outbox.claim(row.sendId, {
      attempt,
      token,
      until: new Date(at.getTime() + CLAIM_MARGIN_MS).toISOString(),
      now: at.toISOString(),
      takeOver: true,
    });
    if (!claimed) return;
    const note = `the service could not make this attempt (${errorName(error)}), ${POSTBACK_WORKER.maxAttempts} times: given up`;
    const settled = await deps.outbox.settle(row.sendId, token, {
      attempt,
      state: "failed",
      nextAttemptAt: null,
      note,
      at: at.toISOString(),
      subject: withoutSender(row.subject),
    });
    if (!settled) return;
    logger.error("postback given up: the service failed it", {
      appId: row.appId,
      sendId: row.sendId,
      configId: row.configId,
      attempt,
      error,
    });
    await appendLog(
      {
        ...recordOf(row, await partnerNameOf(row)),
        ...serviceFailureLog({ attempt, at, error: note }),
      },
      attempt,
    );
  };

  const handle = async (message: WorkMessage<PostbackJob>) => {
    const job = message.body;
    const row = await deps.outbox.get(job.sendId);
    if (!row || row.appId !== job.appId || isFinalState(row.state)) return;
    if (row.attempts >= job.attempt) {
      // This attempt was made. Its message came again (its worker stopped after settling it):
      // the next attempt may never have been queued.
      if (row.state === "retrying" && row.attempts === job.attempt && message.attempt > 1) {
        await queueNext(row, now());
      }
      return;
    }
    // Not the next attempt: the message of an attempt that was never settled is the one.
    if (row.attempts !== job.attempt - 1) return;
    // Before its time: its delay was longer than the queue's longest, so it goes on again.
    const at = now();
    if (
      row.nextAttemptAt !== null &&
      Date.parse(row.nextAttemptAt) - at.getTime() > EARLY_TOLERANCE_MS
    ) {
      await deps.queue.send([job], { delaySeconds: delayUntil(row.nextAttemptAt, at) });
      return;
    }
    await attemptOnce(row, job, message.attempt > 1);
  };

  return async (message) => {
    try {
      await handle(message);
    } catch (error) {
      if (message.attempt >= POSTBACK_WORKER.maxAttempts) {
        await giveUp(message.body, error).catch((failed: unknown) =>
          logger.error("postback not given up: left open", {
            sendId: message.body.sendId,
            error: failed,
          }),
        );
      }
      throw error;
    }
  };
};

/** An error's name for a note the owner reads: its kind, never its message's internals. */
const errorName = (error: unknown): string =>
  error instanceof Error ? error.name : "an unknown error";

/** The worker's composition on both runtimes: its stores, its own queue, the safe sender. */
export const postbackWorkerFunction = /* @__PURE__ */ composition(
  POSTBACK_WORKER,
  ({ tables, queues, keyWrapper, settings }, runtime) =>
    createPostbackWorker({
      apps: runtime.apps(tables.apps),
      installs: tables.installs,
      attributions: tables.attributions,
      deletions: tables.deletions,
      configs: runtime.hotPostbackConfigs(tables.postbackConfigs),
      outbox: tables.outbox,
      log: tables.deliveryLog,
      queue: queues.postback,
      sender: createHttpSender({ allowLoopback: settings.postbacksAllowLoopback }),
      keyWrapper,
      parallel: postbackSlotsOn(runtime.kind),
    }),
);
