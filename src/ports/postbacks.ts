/**
 * Postbacks and webhooks as the service keeps them (docs/postbacks.md): each app's partner and
 * webhook configurations, their secret values sealed; the outbox, one row per send, which a
 * second send of the same install or event to the same configuration cannot be added to; the
 * delivery log, a record of every attempt, kept 30 days; and the sender that makes one attempt.
 */
/** How long the delivery log keeps an attempt's record and a day's counts. */
export const DELIVERY_LOG_DAYS = 30;

/**
 * How long a send's outbox row is kept: past the 30 days for which an event is still accepted
 * (an SDK's retry of an old event must still find its send), and a sweep's margin.
 */
export const OUTBOX_DAYS = 45;

/** Who a send goes to: a partner (an ad network) or the app's own backend. */
export type SendTarget = "partner" | "webhook";

/** Which installs a partner configuration reports (src/postbacks/partners.ts). */
export type StoredInstallScope = "won" | "all";

/**
 * A partner configuration as stored: its values in clear except the secret ones, which are
 * held sealed (`sealedValues`, each by the key wrapper, under a context naming the app, the
 * configuration and the value: src/postbacks/secrets.ts).
 */
export interface StoredPartnerConfig {
  readonly id: string;
  readonly appId: string;
  readonly partner: string;
  /** A custom template, as the owner wrote it (src/postbacks/config.ts); null for a catalog one. */
  readonly template: unknown;
  readonly mediaSources: readonly string[];
  /** The values that are not secret. */
  readonly values: Readonly<Record<string, string>>;
  /** The secret values, each sealed. */
  readonly sealedValues: Readonly<Record<string, string>>;
  readonly secretValues: readonly string[];
  readonly installs: StoredInstallScope;
  readonly events: Readonly<Record<string, { readonly name: string; readonly revenue: boolean }>>;
  readonly eventWindowDays: number;
  /** The partner's Global Vendor List id, or null (src/postbacks/config.ts). */
  readonly tcfVendorId: number | null;
  readonly enabled: boolean;
  /** ISO 8601 UTC. */
  readonly updatedAt: string;
}

/** A webhook configuration as stored: its signing secret sealed. */
export interface StoredWebhookConfig {
  readonly id: string;
  readonly appId: string;
  readonly url: string;
  readonly sealedSecret: string;
  /** The secret a rotation replaced, sealed, and until when it still signs (ISO 8601). */
  readonly previous: { readonly sealedSecret: string; readonly until: string } | null;
  readonly enabled: boolean;
  readonly updatedAt: string;
}

/** An app's postback settings, beside its configurations. */
export interface PostbackSettings {
  /**
   * Whether the device ids and address of an install whose user was never asked (no answer on
   * ad user data, consent not required) may go to ad networks: the owner's decision under the
   * app's own consent flow. Off unless the owner turns it on.
   */
  readonly shareDeviceDataWithoutConsent: boolean;
}

export const DEFAULT_POSTBACK_SETTINGS: PostbackSettings = {
  shareDeviceDataWithoutConsent: false,
};

/** Everything an app has configured, as the triggers and the worker read it. */
export interface AppPostbackConfigs {
  readonly partners: readonly StoredPartnerConfig[];
  readonly webhooks: readonly StoredWebhookConfig[];
  readonly settings: PostbackSettings;
}

export interface PostbackConfigStore {
  /** An app's configurations, partners and webhooks, and its settings. */
  listByApp(appId: string): Promise<AppPostbackConfigs>;
  getPartner(appId: string, id: string): Promise<StoredPartnerConfig | undefined>;
  getWebhook(appId: string, id: string): Promise<StoredWebhookConfig | undefined>;
  /** Creates or replaces a partner configuration. */
  putPartner(config: StoredPartnerConfig): Promise<void>;
  /** Creates or replaces a webhook configuration. */
  putWebhook(config: StoredWebhookConfig): Promise<void>;
  /** Forgets a configuration; false when there was none. */
  delete(appId: string, target: SendTarget, id: string): Promise<boolean>;
  putSettings(appId: string, settings: PostbackSettings): Promise<void>;
}

/** An event's revenue as its sends carry it. */
export interface SendRevenue {
  readonly amount: number;
  readonly currency: string;
  /** The amount in USD, as ingestion converted it for the lake (`revenue_usd`); null when no rate was known. */
  readonly usd: number | null;
}

/** What a send is about, with what the trigger knew of its request that is kept nowhere else. */
export type OutboxSubject =
  | {
      readonly kind: "install";
      readonly serviceId: string;
      /** The address the install was reported from, when the trigger knew it. */
      readonly ip: string | null;
      readonly userAgent: string | null;
    }
  | {
      readonly kind: "event";
      readonly serviceId: string;
      readonly eventId: string;
      /** Our name for it: the exported `event_name`. */
      readonly name: string;
      /** ISO 8601. */
      readonly time: string;
      readonly revenue: SendRevenue | null;
      /** The device's address and user agent, for an event the SDK sent; null for S2S. */
      readonly ip: string | null;
      readonly userAgent: string | null;
      /**
       * The customer user id the event was sent with (an S2S event's names its user), as the
       * export's `customer_user_id` has it: a user who logged in after the install is named by
       * their events, not by the install. Null when the event named none.
       */
      readonly customerUserId: string | null;
      /**
       * Sent in the SDK's anonymous mode: the send names no device (no advertising id, IDFV,
       * address or agent) and no customer user id, not even the install's. Absent: false.
       */
      readonly anonymous?: boolean;
    };

/**
 * Where a send stands: `queued` until its first attempt (or until its install's attribution
 * is resolved), `retrying` between attempts, and final once `delivered`, `failed` (its last
 * attempt, or one that may not be tried again) or `skipped` (nothing to send after all: the
 * configuration went, or the install was deleted).
 */
export const OUTBOX_STATES = ["queued", "retrying", "delivered", "failed", "skipped"] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

export const isFinalState = (state: OutboxState): boolean =>
  state === "delivered" || state === "failed" || state === "skipped";

/** One send: one install or event to one configuration. */
export interface OutboxRow {
  /** sendIdOf(configuration id, subject): the same however often the trigger runs. */
  readonly sendId: string;
  readonly appId: string;
  readonly configId: string;
  readonly target: SendTarget;
  readonly subject: OutboxSubject;
  readonly state: OutboxState;
  /** Attempts made so far (0 to its target's retry policy's last: src/postbacks/retries.ts). */
  readonly attempts: number;
  /** When the next attempt is due (ISO 8601 UTC), between attempts. */
  readonly nextAttemptAt: string | null;
  /** Why a send was skipped, or its last attempt's error. */
  readonly note: string | null;
  /** Held by a worker sending the next attempt, until `claimedUntil`. */
  readonly claimToken: string | null;
  readonly claimedUntil: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What is recorded when an attempt ends. */
export interface AttemptSettlement {
  readonly attempt: number;
  readonly state: Exclude<OutboxState, "queued" | "skipped">;
  readonly nextAttemptAt: string | null;
  readonly note: string | null;
  readonly at: string;
  /** The send's subject as kept from now on, in place of its own (a final attempt's). */
  readonly subject?: OutboxSubject;
}

export interface OutboxStore {
  /** Adds the row unless its send id has one: true when this call added it. */
  add(row: OutboxRow): Promise<boolean>;
  get(sendId: string): Promise<OutboxRow | undefined>;
  /**
   * Takes the send's attempt `attempt` for `token` until `until`: only when `attempt - 1`
   * attempts are made, the send is not final, and no other holder's claim is alive (`now`
   * before its end) unless `takeOver` (the queue delivered the message again: its last holder
   * is gone). The row as claimed, or undefined.
   */
  claim(
    sendId: string,
    claim: {
      readonly attempt: number;
      readonly token: string;
      readonly until: string;
      readonly now: string;
      readonly takeOver: boolean;
    },
  ): Promise<OutboxRow | undefined>;
  /** Records the end of the attempt the token holds; false when the claim was lost. */
  settle(sendId: string, token: string, settlement: AttemptSettlement): Promise<boolean>;
  /**
   * Marks a send not yet final as skipped, with why, and its subject as kept from now on when
   * given: true when this call did; false when the send was final already, or is gone (a
   * deletion request purged it).
   */
  skip(sendId: string, note: string, at: string, subject?: OutboxSubject): Promise<boolean>;
  /** Forgets rows past their lifetime (OUTBOX_DAYS) at `now` (DynamoDB's TTL on AWS); how many. */
  reap(now: Date): Promise<number>;
  /** Forgets every send of an install (its deletion request); how many. */
  purgeInstall(appId: string, serviceId: string): Promise<number>;
}

/**
 * What the log says of an attempt: delivered, to be tried again, failed, or `skipped` (no
 * request was made: the send's record says why, in `reason`).
 */
export const LOG_VERDICTS = ["delivered", "retry", "failed", "skipped"] as const;
export type LogVerdict = (typeof LOG_VERDICTS)[number];

/** One attempt as the delivery log keeps it (src/postbacks/retries.ts's record, and whose). */
export interface DeliveryLogEntry {
  readonly appId: string;
  readonly sendId: string;
  readonly configId: string;
  readonly target: SendTarget;
  /** The catalog partner's id, `custom`, or `webhook`. */
  readonly partner: string;
  readonly subject: {
    readonly kind: "install" | "event";
    readonly serviceId: string;
    readonly eventId: string | null;
  };
  /** When the attempt ended (ISO 8601 UTC). */
  readonly time: string;
  /** The URL as sent, every secret masked. */
  readonly url: string;
  readonly method: string;
  readonly status: number | null;
  readonly answer: string | null;
  readonly error: string | null;
  readonly attempt: number;
  readonly retry: boolean;
  readonly verdict: LogVerdict;
  readonly final: boolean;
  /**
   * Why a send was skipped (`no_consent`, `not_won`, `missing:advertising_id`, …:
   * docs/postbacks.md#skipped-sends); null for an attempt that was made.
   */
  readonly reason: string | null;
}

/** An app's attempts of one day and configuration, by verdict. */
export interface DeliveryCounts {
  /** The UTC day (YYYY-MM-DD). */
  readonly day: string;
  readonly configId: string;
  readonly partner: string;
  readonly delivered: number;
  readonly retry: number;
  readonly failed: number;
  /** Sends skipped: no request made, counted apart from the failures. */
  readonly skipped: number;
}

export interface DeliveryLog {
  /** Records an attempt; the same send's same attempt recorded again replaces it, counted once. */
  append(entry: DeliveryLogEntry): Promise<void>;
  /** An app's attempts, newest first, a page at a time (`after`: the last page's `next`). */
  listByApp(
    appId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<{ readonly entries: DeliveryLogEntry[]; readonly next: string | null }>;
  /** An app's attempts per day, configuration and verdict, from the day of `since` on. */
  counts(appId: string, since: Date): Promise<DeliveryCounts[]>;
  /** Forgets records and counts past their lifetime at `now` (DynamoDB's TTL on AWS); how many. */
  reap(now: Date): Promise<number>;
  /** Forgets every attempt of an install (its deletion request); the days' counts stay. */
  purgeInstall(appId: string, serviceId: string): Promise<number>;
}

/** Every method of a delivery log, for what stands in for one (a proxy to it, a lazy opener). */
export const DELIVERY_LOG_METHODS = [
  "append",
  "listByApp",
  "counts",
  "reap",
  "purgeInstall",
] as const satisfies readonly (keyof DeliveryLog)[];

/** A request ready to go (src/postbacks/templates.ts's, or a webhook's). */
export interface OutgoingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

/** How one attempt ended, as src/postbacks/retries.ts judges it. */
export type SendOutcome =
  | {
      readonly kind: "answer";
      readonly status: number;
      readonly body?: string;
      /** The answer's Retry-After header, when it had one. */
      readonly retryAfter?: string;
    }
  | { readonly kind: "timeout" }
  | { readonly kind: "connection"; readonly code: string; readonly message?: string }
  | { readonly kind: "refused"; readonly reason: string };

/**
 * Makes one attempt: no redirect followed, the answer read up to its bound, a time-out, and
 * every address the connection goes to checked (src/postbacks/url-safety.ts).
 */
export interface PostbackSender {
  send(request: OutgoingRequest): Promise<SendOutcome>;
}
