/**
 * The verdict on each event of a batch (docs/api.md#rules): accepted with its stored form,
 * ignored (a manual install), or rejected with the reason. One event's fault never costs the
 * others, and nothing here throws on any input: the body is untrusted JSON.
 */
import type * as z from "zod";
import { deviceClockOffsetMs, keptDeviceTime } from "../domain/device-clock.ts";
import { type EventType, toSnakeCase } from "../domain/event-types.ts";
import { DAY_MS, HOUR_MS } from "../domain/time.ts";
import { formatIssues, joinProblems, UNPROCESSABLE } from "../validation/issues.ts";
import { commonEvent } from "./common-event.ts";
import {
  eventFieldsSchema,
  eventSchema,
  type IncomingEventFields,
  type IncomingS2sEventFields,
  s2sEventFieldsSchema,
  s2sEventSchema,
} from "./event-schema.ts";
import { isIdentifier } from "./fields.ts";
import { type IgnoredReason, ignoredAs } from "./ignored.ts";
import { INGEST_LIMITS } from "./limits.ts";
import { isPlainMap, type ParameterMap, sanitizeParameters } from "./parameters.ts";
import { protectPii } from "./pii.ts";
import { type Open, type Revenue, readRevenue } from "./revenue.ts";

/** The types that are stored: a manual INSTALL never is. */
export type StoredEventType = Exclude<EventType, "INSTALL">;

/** An accepted event in the form the service keeps. */
export interface ValidEvent {
  readonly eventId: string;
  readonly eventType: StoredEventType;
  /** The CUSTOM event's own name, trimmed; null for the standard types. */
  readonly eventName: string | null;
  /** UTC, ISO 8601 with milliseconds. */
  readonly eventTime: string;
  /** The install named by an SDK event; null for a server-to-server event (resolved later). */
  readonly serviceId: string | null;
  /** The customer user id the event was sent with, if any (always set for S2S events). */
  readonly customerUserId: string | null;
  /** Sent in the SDK's anonymous mode: no device id or customer user id goes with it. */
  readonly anonymous: boolean;
  /** As stored: nulls dropped, matching PII hashed, sealed values still sealed. */
  readonly parameters: ParameterMap;
  /** `parameters` as JSON, as the lake keeps them; null when there are none. */
  readonly parametersJson: string | null;
  /** Null when the event carries no revenue, or revenue without a currency. */
  readonly revenue: Revenue | null;
  /**
   * What was accepted but not kept as sent (ignored keys, a PII value dropped, revenue without
   * currency).
   */
  readonly warnings: readonly string[];
}

export type EventVerdict =
  | { readonly kind: "accepted"; readonly index: number; readonly event: ValidEvent }
  | {
      readonly kind: "ignored";
      readonly reason: IgnoredReason;
      readonly index: number;
      readonly eventId: string | null;
      readonly detail: string;
    }
  | {
      readonly kind: "rejected";
      readonly index: number;
      readonly eventId: string | null;
      readonly error: string;
      readonly detail: string;
    };

export interface JudgeOptions {
  readonly now: Date;
  /**
   * The sender's clock when it sent the request (`sent_at`), if it said: each `event_time` is
   * then read on the service's clock (src/domain/device-clock.ts).
   */
  readonly sentAt?: string | null;
  /** True for `POST /v1/s2s/events`: events name `customer_user_id`, never `service_id`. */
  readonly s2s: boolean;
  /** Opens a sealed string, undefined for a plain one. Used for `revenue` and `currency` only. */
  readonly open: Open;
  /**
   * Tells a sealed string from a clear one, to leave sealed PII sealed. Defaults to asking
   * `open` (whose opened value is then discarded); a cheaper format check may be passed.
   */
  readonly isSealed?: (value: string) => boolean;
}

/** At most this many ignored keys are named in a warning. */
const MAX_KEYS_NAMED = 10;

const SDK_KEYS = new Set(Object.keys(eventSchema.shape));
const S2S_KEYS = new Set(Object.keys(s2sEventSchema.shape));

const ownValue = (value: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(value, key) ? value[key] : undefined;

const ignoredKeysWarning = (raw: Record<string, unknown>, known: ReadonlySet<string>) => {
  const unknown = Object.keys(raw).filter((key) => !known.has(key));
  const named = unknown.slice(0, MAX_KEYS_NAMED).map((key) => JSON.stringify(key.slice(0, 40)));
  const more =
    unknown.length > MAX_KEYS_NAMED ? ` and ${unknown.length - MAX_KEYS_NAMED} more` : "";
  return `ignored unknown keys: ${named.join(", ")}${more}`;
};

/** What the export names the install's own event, `service_install`, but for its prefix. */
const INSTALL_NAME = toSnakeCase("INSTALL");

/**
 * An install sent as an event: an INSTALL, or a CUSTOM event whose name the export would write
 * as the install's own `service_install`. The reports count installs by that name, so a custom
 * "Install" stored would count one more install with each event; it is the same manual install.
 */
const isManualInstall = (map: Record<string, unknown>): boolean => {
  const type = ownValue(map, "event_type");
  if (type === "INSTALL") return true;
  if (type !== "CUSTOM") return false;
  const name = ownValue(map, "event_name");
  return typeof name === "string" && toSnakeCase(name) === INSTALL_NAME;
};

const hasUnknownKey = (raw: Record<string, unknown>, known: ReadonlySet<string>): boolean => {
  for (const key in raw) if (!known.has(key)) return true;
  return false;
};

/**
 * Problems with the time of an event that is otherwise well formed, on the service's clock
 * (`serviceMs`); the messages name the clock the sender can see.
 */
const timeProblem = (serviceMs: number, batch: BatchContext): string | null => {
  if (serviceMs - batch.nowMs > INGEST_LIMITS.maxFutureSkewHours * HOUR_MS) {
    return batch.sentAt
      ? `event_time: is more than ${INGEST_LIMITS.maxFutureSkewHours} hours after sent_at`
      : `event_time: is more than ${INGEST_LIMITS.maxFutureSkewHours} hours ahead of the server's clock`;
  }
  if (batch.nowMs - serviceMs > INGEST_LIMITS.maxEventAgeDays * DAY_MS) {
    return batch.sentAt
      ? `event_time: is more than ${INGEST_LIMITS.maxEventAgeDays} days before sent_at; events that late are not accepted`
      : `event_time: is more than ${INGEST_LIMITS.maxEventAgeDays} days old; events that late are not accepted`;
  }
  return null;
};

/** `2026-09-16T10:00:00.250Z`: what SDKs send, and already the form the lake keeps. */
const CANONICAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** UTC with milliseconds, from a date-time zod has checked and `Date.parse` has read. */
const canonicalTime = (eventTime: string, eventMs: number): string =>
  CANONICAL_UTC.test(eventTime) ? eventTime : new Date(eventMs).toISOString();

const rejected = (index: number, eventId: string | null, detail: string): EventVerdict => ({
  kind: "rejected",
  index,
  eventId,
  error: UNPROCESSABLE,
  detail,
});

const NO_WARNINGS: readonly string[] = Object.freeze([]);

const jsonOrNull = (parameters: ParameterMap): string | null =>
  Object.keys(parameters).length > 0 ? JSON.stringify(parameters) : null;

type Checked =
  | {
      readonly ok: true;
      readonly fields: IncomingEventFields | IncomingS2sEventFields;
      readonly eventMs: number;
      /** UTC with milliseconds. */
      readonly eventTime: string;
    }
  | { readonly ok: false; readonly issues: readonly z.core.$ZodIssue[] };

/** The event's checked fields: the map itself when it is in the common form, else zod's copy. */
const check = (map: Record<string, unknown>, s2s: boolean): Checked => {
  const common = commonEvent(map, s2s);
  if (common) {
    const { fields, eventMs } = common;
    return { ok: true, fields, eventMs, eventTime: fields.event_time };
  }
  const parsed = s2s ? s2sEventFieldsSchema.safeParse(map) : eventFieldsSchema.safeParse(map);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues };
  const eventMs = Date.parse(parsed.data.event_time);
  return {
    ok: true,
    fields: parsed.data,
    eventMs,
    eventTime: canonicalTime(parsed.data.event_time, eventMs),
  };
};

/** What one batch's events are judged with, made once per batch. */
interface BatchContext {
  readonly nowMs: number;
  readonly sentAt: string | null;
  /** The service's clock minus the sender's (0 when it did not say). */
  readonly offsetMs: number;
  readonly s2s: boolean;
  readonly open: Open;
  readonly isSealed: (value: string) => boolean;
}

/** An event's id as an answer echoes it: only a valid one, never a 10 KiB string. */
export const echoedEventId = (raw: unknown): string | null => {
  const id = isPlainMap(raw) ? ownValue(raw, "event_id") : undefined;
  return isIdentifier(id) ? id : null;
};

// Each step below runs for every event of every batch: the common case (a valid event with a
// few parameters, no PII, no unknown keys) allocates only what the verdict keeps.
const judgeOne = (raw: unknown, index: number, batch: BatchContext): EventVerdict => {
  const map = isPlainMap(raw) ? raw : null;
  const eventId = echoedEventId(raw);

  // Nothing of a manual install is stored, so nothing else of it needs checking.
  if (map && isManualInstall(map)) {
    return { kind: "ignored", index, eventId, ...ignoredAs("install_event") };
  }
  if (!map) return rejected(index, eventId, "event: must be a JSON object");

  const checked = check(map, batch.s2s);
  if (!checked.ok) return rejected(index, eventId, formatIssues(checked.issues, "event"));
  const { fields: event, eventMs } = checked;
  const eventType = event.event_type;
  // Unreachable after the check above, but it narrows the type without a cast.
  if (eventType === "INSTALL")
    return { kind: "ignored", index, eventId, ...ignoredAs("install_event") };

  const keptMs = keptDeviceTime(eventMs, batch.offsetMs);
  const late = timeProblem(eventMs + batch.offsetMs, batch);
  if (late !== null) return rejected(index, eventId, late);

  // The raw map, not zod's copy: zod silently drops a `__proto__` key, the walker names it.
  const sanitized = sanitizeParameters(ownValue(map, "parameters"));
  if (!sanitized.ok) return rejected(index, eventId, joinProblems(sanitized.problems));

  const pii = protectPii(sanitized.parameters, batch.isSealed);
  const parameters = pii.parameters;

  // `revenue` and `currency` are not PII keys, so reading them after hashing sees them as sent.
  const revenue = readRevenue(parameters, batch.open);
  if (!revenue.ok) return rejected(index, eventId, joinProblems(revenue.problems));

  const known = batch.s2s ? S2S_KEYS : SDK_KEYS;
  const unknownKeys = hasUnknownKey(map, known);
  const warnings =
    unknownKeys || pii.warnings.length > 0 || revenue.warnings.length > 0
      ? [
          ...(unknownKeys ? [ignoredKeysWarning(map, known)] : []),
          ...pii.warnings,
          ...revenue.warnings,
        ]
      : NO_WARNINGS;

  return {
    kind: "accepted",
    index,
    event: {
      eventId: event.event_id,
      eventType,
      eventName: eventType === "CUSTOM" ? (event.event_name?.trim() ?? null) : null,
      eventTime: keptMs === eventMs ? checked.eventTime : new Date(keptMs).toISOString(),
      serviceId:
        "service_id" in event && typeof event.service_id === "string" ? event.service_id : null,
      customerUserId: event.customer_user_id ?? null,
      anonymous: "anonymous" in event && event.anonymous === true,
      parameters,
      // Hashing PII changed the map: its JSON is written again.
      parametersJson: parameters === sanitized.parameters ? sanitized.json : jsonOrNull(parameters),
      revenue: revenue.revenue,
      warnings,
    },
  };
};

/**
 * One verdict per index of `rawEvents`, in order. `rawEvents` is the envelope's list as parsed
 * by `parseEventsEnvelope`; each element may be any JSON value.
 */
export function judgeEvents(rawEvents: readonly unknown[], options: JudgeOptions): EventVerdict[] {
  const { open } = options;
  const sentAt = options.sentAt ?? null;
  const batch: BatchContext = {
    nowMs: options.now.getTime(),
    sentAt,
    offsetMs: deviceClockOffsetMs(options.now, sentAt),
    s2s: options.s2s,
    open,
    isSealed: options.isSealed ?? ((value: string) => open(value) !== undefined),
  };
  // Array.from, not map: a sparse list must still get a verdict at every index.
  return Array.from(rawEvents, (raw, index) => judgeOne(raw, index, batch));
}
