import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../domain/event-types.ts";
import { commonEvent } from "./common-event.ts";
import { eventFieldsSchema, s2sEventFieldsSchema } from "./event-schema.ts";
import { s2sEvent, sdkEvent } from "./ingest.test-support.ts";
import { INGEST_LIMITS } from "./limits.ts";

const FIELDS = [
  "event_id",
  "event_type",
  "event_name",
  "event_time",
  "service_id",
  "customer_user_id",
  "parameters",
  "anonymous",
] as const;

const pick = (value: Record<string, unknown>) =>
  Object.fromEntries(FIELDS.map((field) => [field, value[field]]));

const two = (min: number, max: number) =>
  fc.integer({ min, max }).map((n) => String(n).padStart(2, "0"));

/** A time in the SDK form from its parts, which may be out of their ranges. */
const sdkTime = (month: number, day: number, hour: number, minute: number) =>
  fc
    .tuple(
      fc.constantFrom("2024", "2026", "2100", "2000", "0000", "9999"),
      two(month === 12 ? 1 : 0, month),
      two(day === 31 ? 1 : 0, day),
      two(0, hour),
      two(0, minute),
      two(0, minute),
      fc.integer({ min: 0, max: 999 }).map((n) => String(n).padStart(3, "0")),
    )
    .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);

/** Mostly real times, with the 29th to 31st of every month; then every boundary and other form. */
const eventTime = fc.oneof(
  { arbitrary: sdkTime(12, 31, 23, 59), weight: 5 },
  sdkTime(13, 32, 25, 61),
  sdkTime(99, 99, 99, 99),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.constantFrom(
    "2026-09-16T10:00:00Z",
    "2026-09-16T10:00:00.250+02:00",
    "2026-09-16T10:00:00.25Z",
    "2026-09-16T10:00:00.250",
    "2026-09-16 10:00:00.250Z",
    "2026-09-16t10:00:00.250z",
    " 2026-09-16T10:00:00.250Z",
    undefined,
    null,
    1_789_000_000_000,
    "",
  ),
);

/** Mostly a value the field takes, sometimes one of the field's traps. */
const field = <T, U>(good: fc.Arbitrary<T>, traps: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: good, weight: 5 }, { arbitrary: traps, weight: 1 });

const id = field(
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,8}$/),
  fc.constantFrom(
    "a".repeat(INGEST_LIMITS.maxIdLength),
    "a".repeat(INGEST_LIMITS.maxIdLength + 1),
    "",
    "with space",
    "é",
    "a\ud800",
    "a\n",
    undefined,
    null,
    7,
    ["a"],
  ),
);

const name = field(
  fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("Boss Defeated", null)),
  fc.oneof(
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.constantFrom(
      "   ",
      "!!!",
      "😀 win",
      "x\ud800",
      "\udc00",
      "a".repeat(INGEST_LIMITS.maxEventNameLength),
      ` ${"a".repeat(INGEST_LIMITS.maxEventNameLength)} `,
      "a".repeat(INGEST_LIMITS.maxEventNameLength + 1),
      undefined,
      3,
      true,
    ),
  ),
);

const customerUserId = field(
  fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constant(null)),
  fc.oneof(
    fc.string({ unit: "binary", maxLength: 4 }),
    fc.constantFrom(
      "",
      "a".repeat(INGEST_LIMITS.maxCustomerUserIdLength),
      "a".repeat(INGEST_LIMITS.maxCustomerUserIdLength + 1),
      "u\udc00",
      "u\u0000x",
      "a\nb",
      undefined,
      42,
      {},
    ),
  ),
);

const anonymous = field(
  fc.constantFrom(true, false, null),
  fc.constantFrom(undefined, "true", 1, 0, "false", {}),
);

const parameters = field(
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constantFrom(undefined, null, [], "x", 3, Object.create(null), new Date(0)),
);

const eventType = field(
  fc.constantFrom(...EVENT_TYPES),
  fc.constantFrom("custom", "", " PURCHASE", undefined, null, 5),
);

/**
 * Events near the common form: each field mostly right and sometimes caught in one of its
 * traps, so that both the events vouched for and the near misses are many. An undefined field
 * is left out, as JSON leaves it. Some maps have no prototype, some an own `__proto__` key
 * (which JSON.parse makes) holding fields of its own.
 */
const anyEvent = (s2s: boolean) =>
  fc
    .tuple(
      fc.record({
        event_id: id,
        event_type: eventType,
        event_name: name,
        event_time: eventTime,
        service_id: s2s ? field(fc.constantFrom(undefined, null), id) : id,
        customer_user_id: customerUserId,
        parameters,
        // A server names no anonymous mode: its schema has no such field.
        anonymous: s2s ? fc.constantFrom(undefined, undefined, undefined, true) : anonymous,
        extra: fc.jsonValue({ maxDepth: 1 }),
      }),
      fc.constantFrom("plain", "no prototype", "own __proto__"),
    )
    .map(([event, kind]): Record<string, unknown> => {
      const entries = Object.entries(event).filter(([, value]) => value !== undefined);
      if (kind === "no prototype")
        return Object.assign(Object.create(null), Object.fromEntries(entries));
      if (kind === "own __proto__") {
        const json = JSON.stringify(Object.fromEntries(entries));
        const proto = JSON.stringify({ event_id: "from-proto", customer_user_id: "proto-user" });
        return JSON.parse(`{"__proto__":${proto},${json.slice(1)}`.replace(/,}$/, "}"));
      }
      return Object.fromEntries(entries);
    });

describe("commonEvent", () => {
  for (const [s2s, schema] of [
    [false, eventFieldsSchema],
    [true, s2sEventFieldsSchema],
  ] as const) {
    it(`vouches only for ${s2s ? "S2S" : "SDK"} events zod accepts, with zod's own values`, () => {
      let vouched = 0;
      fc.assert(
        fc.property(anyEvent(s2s), (event) => {
          const common = commonEvent(event, s2s);
          if (common === undefined) return;
          vouched += 1;
          const parsed = schema.safeParse(event);
          expect(parsed.success).toBe(true);
          if (!parsed.success) return;
          expect(pick(common.fields)).toEqual(pick(parsed.data));
          expect(common.eventMs).toBe(Date.parse(parsed.data.event_time));
          expect(new Date(common.eventMs).toISOString()).toBe(parsed.data.event_time);
        }),
        { numRuns: 5_000 },
      );
      // Both sides of the line are tried many times.
      expect(vouched).toBeGreaterThan(500);
      expect(vouched).toBeLessThan(4_500);
    });
  }

  it("vouches for what SDKs send: the SDK time form, any event type, nulls for unset fields", () => {
    const time = "2026-09-16T10:00:00.250Z";
    for (const type of EVENT_TYPES) {
      const event = sdkEvent({
        event_type: type,
        event_time: time,
        event_name: type === "CUSTOM" ? "Boss Defeated" : null,
        customer_user_id: null,
        parameters: { level: 3 },
      });
      expect(commonEvent(event, false)?.fields).toBe(event);
    }
    const leapDay = sdkEvent({ event_time: "2028-02-29T23:59:59.999Z" });
    expect(commonEvent(leapDay, false)?.eventMs).toBe(Date.parse("2028-02-29T23:59:59.999Z"));
    const s2s = s2sEvent({ event_time: time, service_id: null });
    expect(commonEvent(s2s, true)?.fields).toBe(s2s);
  });

  it("leaves every other time form, and every fault, to zod", () => {
    const time = "2026-09-16T10:00:00.250Z";
    const sdk = (overrides: Record<string, unknown>) =>
      sdkEvent({ event_time: time, ...overrides });
    const s2s = (overrides: Record<string, unknown>) =>
      s2sEvent({ event_time: time, ...overrides });
    // Each case below differs from these in one field only.
    expect(commonEvent(sdk({}), false)?.eventMs).toBe(Date.parse(time));
    expect(commonEvent(s2s({}), true)?.eventMs).toBe(Date.parse(time));
    const leaveSdk = [
      sdkEvent(), // no milliseconds: valid, but not the SDK form
      sdk({ event_time: "2026-02-29T10:00:00.000Z" }),
      sdk({ event_time: "2026-04-31T10:00:00.000Z" }),
      sdk({ event_time: "2026-09-16T24:00:00.000Z" }),
      sdk({ event_time: "2026-00-16T10:00:00.000Z" }),
      sdk({ event_time: "2026-09-00T10:00:00.000Z" }),
      sdk({ event_type: "CUSTOM", event_name: "!!!" }),
      sdk({ event_type: "CUSTOM", event_name: "   " }),
      sdk({ event_name: "x\ud800" }),
      sdk({ service_id: null }),
      sdk({ service_id: "has space" }),
      sdk({ event_id: "a".repeat(INGEST_LIMITS.maxIdLength + 1) }),
      sdk({ customer_user_id: "" }),
      sdk({ customer_user_id: "😀".repeat(INGEST_LIMITS.maxCustomerUserIdLength) }),
      sdk({ customer_user_id: "u\u0000x" }),
      sdk({ customer_user_id: "u\u007f" }),
      sdk({ parameters: [] }),
      // Anonymous mode is true or false: "true" or 1 is zod's to refuse, never taken as off.
      sdk({ anonymous: "true" }),
      sdk({ anonymous: 1 }),
    ];
    for (const event of leaveSdk) expect(commonEvent(event, false)).toBeUndefined();
    expect(commonEvent(s2s({ service_id: "svc-1" }), true)).toBeUndefined();
    expect(commonEvent(s2s({ customer_user_id: null }), true)).toBeUndefined();
    expect(commonEvent(s2s({ customer_user_id: "u\u0001" }), true)).toBeUndefined();
    // A server's event names no anonymous mode: zod leaves the field out, the map would not.
    expect(commonEvent(s2s({ anonymous: true }), true)).toBeUndefined();
    expect(commonEvent(sdk({}), true)).toBeUndefined();
  });
});
