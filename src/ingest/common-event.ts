/**
 * The event fields an SDK sends nearly every time, checked without zod. Every event of every
 * batch has its fields checked, and zod's general machinery (a copy of the object, a result per
 * field, the full ISO 8601 pattern) cost more than the rest of the event's path. So the common
 * form is recognised here first: ids and names as plain strings, the event time in the form
 * SDKs send (`2026-09-16T10:00:00.250Z`), nulls or nothing where a field is optional.
 *
 * The schemas in event-schema.ts stay the rules: an event this check does not vouch for is
 * judged by zod, which names what is wrong. This check only ever says yes where zod would say
 * yes with the same values, which common-event.test.ts holds it to against zod itself.
 */
import { EVENT_TYPES, toSnakeCase } from "../domain/event-types.ts";
import { hasControlCharacter } from "../validation/text.ts";
import type { IncomingEventFields, IncomingS2sEventFields } from "./event-schema.ts";
import { isIdentifier, missing } from "./fields.ts";
import { INGEST_LIMITS } from "./limits.ts";
import { isPlainMap } from "./parameters.ts";

const TYPES: ReadonlySet<unknown> = new Set(EVENT_TYPES);
/** The only time form vouched for here; any other is left to zod's full ISO 8601 check. */
const SDK_TIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * Unicode text of `min` to `max` UTF-16 units. Zod counts a string's length in code points, never
 * more than its UTF-16 units, so what passes here passes zod's length checks; a string of many
 * astral characters near the limit is left to zod.
 */
const isText = (value: unknown, min: number, max: number): value is string =>
  typeof value === "string" && value.length >= min && value.length <= max && value.isWellFormed();

/**
 * The time of a real calendar instant in the SDK form, or NaN. The pattern bounds every part,
 * but not each month's own length, and `Date.parse` rolls 30 February over to March: a day past
 * the 28th must come back unchanged.
 */
const sdkTimeMs = (value: unknown): number => {
  if (typeof value !== "string" || !SDK_TIME.test(value)) return Number.NaN;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return ms;
  return value.slice(8, 10) <= "28" || new Date(ms).toISOString() === value ? ms : Number.NaN;
};

/** A customer user id as `customerUserIdField` takes it. */
const isCustomerUserId = (value: unknown): value is string =>
  isText(value, 1, INGEST_LIMITS.maxCustomerUserIdLength) && !hasControlCharacter(value);

/** The CUSTOM name rule of event-schema.ts, for a name that is already a string or absent. */
const hasGoodName = (type: unknown, name: string | null | undefined): boolean => {
  if (type !== "CUSTOM") return true;
  const trimmed = name?.trim() ?? "";
  return (
    trimmed !== "" &&
    trimmed.length <= INGEST_LIMITS.maxEventNameLength &&
    toSnakeCase(trimmed) !== ""
  );
};

const hasCommonShared = (map: Record<string, unknown>): boolean => {
  const name = map.event_name;
  const parameters = map.parameters;
  return (
    isIdentifier(map.event_id) &&
    TYPES.has(map.event_type) &&
    (missing(parameters) || isPlainMap(parameters)) &&
    (missing(name) || isText(name, 0, Number.POSITIVE_INFINITY)) &&
    hasGoodName(map.event_type, name)
  );
};

/** True when zod would accept this SDK event's fields as they are. */
const isCommonSdkEvent = (
  map: Record<string, unknown>,
): map is Record<string, unknown> & IncomingEventFields => {
  const user = map.customer_user_id;
  const anonymous = map.anonymous;
  return (
    hasCommonShared(map) &&
    isIdentifier(map.service_id) &&
    (missing(user) || isCustomerUserId(user)) &&
    (missing(anonymous) || typeof anonymous === "boolean")
  );
};

/** True when zod would accept this server-to-server event's fields as they are. */
const isCommonS2sEvent = (
  map: Record<string, unknown>,
): map is Record<string, unknown> & IncomingS2sEventFields =>
  hasCommonShared(map) &&
  missing(map.service_id) &&
  isCustomerUserId(map.customer_user_id) &&
  // Zod leaves out a field the schema does not name; the map itself would keep it.
  !("anonymous" in map);

export interface CommonEvent {
  /** The map itself, as zod would have passed it. */
  readonly fields: IncomingEventFields | IncomingS2sEventFields;
  /** `event_time` in milliseconds; the string itself is already in the form the lake keeps. */
  readonly eventMs: number;
}

/** The event, when its fields are in the common form; undefined means only that zod must judge it. */
export const commonEvent = (
  map: Record<string, unknown>,
  s2s: boolean,
): CommonEvent | undefined => {
  const eventMs = sdkTimeMs(map.event_time);
  if (Number.isNaN(eventMs)) return undefined;
  if (s2s) return isCommonS2sEvent(map) ? { fields: map, eventMs } : undefined;
  return isCommonSdkEvent(map) ? { fields: map, eventMs } : undefined;
};
