import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../domain/event-types.ts";
import { DAY_MS, HOUR_MS } from "../domain/time.ts";
import { ignoredAs } from "./ignored.ts";
import { isSealed, NOW, open, s2sEvent, sdkEvent } from "./ingest.test-support.ts";
import { type EventVerdict, judgeEvents, type ValidEvent } from "./judge.ts";
import { INGEST_LIMITS } from "./limits.ts";
import type { ParameterValue } from "./parameters.ts";
import { PII_KEYS, sha256Marked } from "./pii.ts";

const judge = (events: readonly unknown[], s2s = false) =>
  judgeEvents(events, { now: NOW, s2s, open });

const one = (event: unknown, s2s = false): EventVerdict => {
  const [verdict] = judge([event], s2s);
  if (!verdict) throw new Error("no verdict");
  return verdict;
};

const accepted = (event: unknown, s2s = false): ValidEvent => {
  const verdict = one(event, s2s);
  if (verdict.kind !== "accepted") throw new Error(`not accepted: ${JSON.stringify(verdict)}`);
  return verdict.event;
};

const detailOf = (event: unknown, s2s = false): string => {
  const verdict = one(event, s2s);
  if (verdict.kind !== "rejected") throw new Error(`not rejected: ${JSON.stringify(verdict)}`);
  expect(verdict.error).toBe("Unprocessable Entity");
  return verdict.detail;
};

const ID_RULE = 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"';

describe("judgeEvents: an accepted event", () => {
  it("is the same whether its fields are in the SDK form (checked without zod) or not", () => {
    for (const s2s of [false, true]) {
      const base = s2s ? s2sEvent : sdkEvent;
      for (const fields of [
        { event_type: "CUSTOM", event_name: "  Boss Defeated ", parameters: { boss: 3 } },
        { event_type: "LOGIN", event_name: "ignored", customer_user_id: "user-1" },
        { event_type: "PURCHASE", parameters: { revenue: 4.99, currency: "EUR", email: "A@b.co" } },
      ]) {
        const sdkForm = accepted(base({ ...fields, event_time: "2026-09-16T10:00:00.250Z" }), s2s);
        const other = accepted(
          base({ ...fields, event_time: "2026-09-16T10:00:00.25+00:00" }),
          s2s,
        );
        expect(sdkForm).toEqual(other);
      }
    }
  });

  it("is kept in its stored form", () => {
    const verdict = one(
      sdkEvent({
        event_time: "2026-09-16T12:00:00.250+02:00",
        customer_user_id: "user-1",
        parameters: { revenue: "9.99", currency: "EUR", note: null, items: [{ sku: "a" }, null] },
      }),
    );
    expect(verdict).toEqual({
      kind: "accepted",
      index: 0,
      event: {
        eventId: "evt-1",
        eventType: "PURCHASE",
        eventName: null,
        eventTime: "2026-09-16T10:00:00.250Z",
        serviceId: "svc-1",
        customerUserId: "user-1",
        anonymous: false,
        parameters: { revenue: "9.99", currency: "EUR", items: [{ sku: "a" }, null] },
        parametersJson: '{"revenue":"9.99","currency":"EUR","items":[{"sku":"a"},null]}',
        revenue: { amount: 9.99, currency: "EUR" },
        warnings: [],
      },
    });
  });

  it("treats null optional fields as absent", () => {
    const event = accepted(
      sdkEvent({ event_name: null, parameters: null, customer_user_id: null }),
    );
    expect(event.customerUserId).toBeNull();
    expect(event.parameters).toEqual({});
    expect(event.parametersJson).toBeNull();
  });

  it("keeps event times in UTC with milliseconds, whatever form they came in", () => {
    const timeOf = (event_time: string) => accepted(sdkEvent({ event_time })).eventTime;
    expect(timeOf("2026-09-16T10:00:00.250Z")).toBe("2026-09-16T10:00:00.250Z");
    expect(timeOf("2026-09-16T10:00:00Z")).toBe("2026-09-16T10:00:00.000Z");
    expect(timeOf("2026-09-16T10:00:00.1234Z")).toBe("2026-09-16T10:00:00.123Z");
    expect(timeOf("2026-09-16T11:00:00.250+01:00")).toBe("2026-09-16T10:00:00.250Z");
  });

  it("ignores unknown keys but names them in a warning", () => {
    expect(accepted(sdkEvent({ evnt_name: "x", extra: 1 })).warnings).toEqual([
      'ignored unknown keys: "evnt_name", "extra"',
    ]);
  });

  it("names at most ten unknown keys, each cut to 40 characters, and counts the rest", () => {
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    const many = Object.fromEntries(keys.map((key) => [key, 1]));
    expect(accepted(sdkEvent(many)).warnings).toEqual([
      `ignored unknown keys: ${keys
        .slice(0, 10)
        .map((key) => `"${key}"`)
        .join(", ")} and 2 more`,
    ]);
    const ten = Object.fromEntries(keys.slice(0, 10).map((key) => [key, 1]));
    expect(accepted(sdkEvent(ten)).warnings[0]).not.toContain("more");
    expect(accepted(sdkEvent({ ["x".repeat(50)]: 1 })).warnings).toEqual([
      `ignored unknown keys: "${"x".repeat(40)}"`,
    ]);
  });

  it("marks an event anonymous only when it says so", () => {
    expect(accepted(sdkEvent({ anonymous: true })).anonymous).toBe(true);
    expect(accepted(sdkEvent({ anonymous: false })).anonymous).toBe(false);
    expect(accepted(sdkEvent()).anonymous).toBe(false);
  });

  it("keeps revenue without a currency in the parameters only, with a warning", () => {
    const event = accepted(sdkEvent({ parameters: { revenue: 5 } }));
    expect(event.revenue).toBeNull();
    expect(event.parameters).toEqual({ revenue: 5 });
    expect(event.warnings).toEqual([
      "parameters.revenue was not recorded as revenue: parameters.currency (ISO 4217, e.g. USD) is missing",
    ]);
  });

  it("opens sealed revenue through the injected open and keeps it sealed in the parameters", () => {
    const event = accepted(sdkEvent({ parameters: { revenue: "sealed:12.5", currency: "GBP" } }));
    expect(event.revenue).toEqual({ amount: 12.5, currency: "GBP" });
    expect(event.parameters.revenue).toBe("sealed:12.5");
  });

  it("hashes clear PII and leaves sealed PII and other sealed values sealed", () => {
    const event = accepted(
      sdkEvent({
        parameters: { email: "Test@Example.com", name: 'sealed:"Ann"', secret: 'sealed:"x"' },
      }),
    );
    expect(event.parameters).toEqual({
      email: sha256Marked("test@example.com"),
      name: 'sealed:"Ann"',
      secret: 'sealed:"x"',
    });
    // The stored JSON is of the hashed map, never of the clear one.
    expect(event.parametersJson).toBe(JSON.stringify(event.parameters));
  });

  it("drops a PII value it cannot normalise with its key, with a warning, as the SDKs do", () => {
    const verdict = one(
      sdkEvent({
        parameters: { date_of_birth: "31.01.1990", gender: true, email: "A@b.co", level: 3 },
      }),
    );
    expect(verdict).toMatchObject({
      kind: "accepted",
      event: {
        parameters: { email: sha256Marked("a@b.co"), level: 3 },
        warnings: [
          "parameters.date_of_birth was dropped: it must be a date as YYYY-MM-DD or YYYYMMDD, e.g. 1990-01-31",
          "parameters.gender was dropped: it must be a string or a number (in clear or sealed)",
        ],
      },
    });
  });

  it("stores no parameters at all when the only one was a PII value dropped", () => {
    const event = accepted(sdkEvent({ parameters: { gender: true } }));
    expect(event.parameters).toEqual({});
    expect(event.parametersJson).toBeNull();
  });

  it("asks an injected isSealed, when given, instead of open", () => {
    const verdict = judgeEvents([sdkEvent({ parameters: { email: "enc:abc" } })], {
      now: NOW,
      s2s: false,
      open: () => {
        throw new Error("open must not be asked about PII");
      },
      isSealed: (value) => value.startsWith("enc:"),
    });
    expect(verdict[0]?.kind === "accepted" && verdict[0].event.parameters.email).toBe("enc:abc");
  });
});

describe("judgeEvents: event_type and event_name", () => {
  it("ignores a manual INSTALL without looking further, and counts it", () => {
    for (const s2s of [false, true]) {
      expect(one({ event_type: "INSTALL", event_id: "i-1", junk: Number.NaN }, s2s)).toEqual({
        kind: "ignored",
        index: 0,
        eventId: "i-1",
        ...ignoredAs("install_event"),
      });
    }
  });

  it("ignores a CUSTOM event named as the install is exported, as it does a manual INSTALL", () => {
    for (const s2s of [false, true]) {
      const base = s2s ? s2sEvent : sdkEvent;
      for (const event_name of ["Install", "install", " INSTALL ", "_install_", "Install!"]) {
        // Whichever path would judge its fields, and with a field at fault, as an INSTALL is.
        for (const event_time of ["2026-09-16T10:00:00.250Z", "2026-09-16T10:00:00Z", "soon"]) {
          const event = base({ event_id: "c-1", event_type: "CUSTOM", event_name, event_time });
          expect(one(event, s2s)).toEqual({
            kind: "ignored",
            index: 0,
            eventId: "c-1",
            ...ignoredAs("install_event"),
          });
        }
      }
    }
    // A standard event's name is no install's: the name of a PURCHASE is not read.
    expect(accepted(sdkEvent({ event_type: "PURCHASE", event_name: "Install" }))).toMatchObject({
      eventType: "PURCHASE",
      eventName: null,
    });
    // Only a name the export writes as service_install: the others stay the app's own.
    for (const event_name of ["Install Started", "Reinstall", "Purchase", "Installs"]) {
      expect(accepted(sdkEvent({ event_type: "CUSTOM", event_name })).eventName).toBe(event_name);
    }
  });

  it("refuses a type that is not a wire value", () => {
    const rule = `event_type: must be one of ${EVENT_TYPES.join(", ")}`;
    expect(detailOf(sdkEvent({ event_type: "purchase" }))).toBe(rule);
    expect(detailOf(sdkEvent({ event_type: 3 }))).toBe(rule);
    expect(detailOf(sdkEvent({ event_type: undefined }))).toBe("event_type: is required");
  });

  it("requires a non-blank name for CUSTOM, up to 100 characters", () => {
    const custom = (event_name: unknown) => sdkEvent({ event_type: "CUSTOM", event_name });
    const required = "event_name: is required for CUSTOM events and must not be blank";
    expect(detailOf(custom(undefined))).toBe(required);
    expect(detailOf(custom(null))).toBe(required);
    expect(detailOf(custom("   "))).toBe(required);
    expect(detailOf(custom("x".repeat(101)))).toBe("event_name: must be at most 100 characters");
    expect(accepted(custom("x".repeat(100))).eventName).toBe("x".repeat(100));
    expect(accepted(custom("  Boss Defeated ")).eventName).toBe("Boss Defeated");
  });

  it("refuses a CUSTOM name that the export's snake-casing would erase", () => {
    expect(detailOf(sdkEvent({ event_type: "CUSTOM", event_name: "!?! ---" }))).toBe(
      "event_name: must contain at least one letter or digit: it is exported as service_<name in snake_case>",
    );
    expect(accepted(sdkEvent({ event_type: "CUSTOM", event_name: "購入" })).eventName).toBe("購入");
  });

  it("ignores the name of a standard event, even a long one", () => {
    expect(accepted(sdkEvent({ event_name: "x".repeat(500) })).eventName).toBeNull();
  });
});

describe("judgeEvents: identifiers and time", () => {
  it("requires ids of 1 to 128 safe characters, echoing only a valid one", () => {
    expect(accepted(sdkEvent({ event_id: "e".repeat(128) })).eventId).toBe("e".repeat(128));
    const tooLong = one(sdkEvent({ event_id: "e".repeat(129) }));
    expect(tooLong).toMatchObject({
      kind: "rejected",
      eventId: null,
      detail: `event_id: ${ID_RULE}`,
    });
    expect(detailOf(sdkEvent({ event_id: "a b" }))).toBe(`event_id: ${ID_RULE}`);
    expect(detailOf(sdkEvent({ event_id: "" }))).toBe(`event_id: ${ID_RULE}`);
    expect(detailOf(sdkEvent({ service_id: "svc/1" }))).toBe(`service_id: ${ID_RULE}`);
    expect(one(sdkEvent({ service_id: undefined }))).toMatchObject({
      eventId: "evt-1",
      detail: "service_id: is required",
    });
  });

  it("bounds customer_user_id to 1 to 256 characters", () => {
    const rule = "customer_user_id: must be 1 to 256 characters";
    expect(accepted(sdkEvent({ customer_user_id: "u".repeat(256) })).customerUserId).toHaveLength(
      256,
    );
    expect(detailOf(sdkEvent({ customer_user_id: "u".repeat(257) }))).toBe(rule);
    expect(detailOf(sdkEvent({ customer_user_id: "" }))).toBe(rule);
  });

  it("refuses a customer_user_id with a control character, in either form and route", () => {
    const rule = "customer_user_id: must not contain control characters";
    for (const s2s of [false, true]) {
      const base = s2s ? s2sEvent : sdkEvent;
      for (const customer_user_id of [
        "u\u0000x",
        "u\u0001",
        "tab\there",
        "line\n",
        "del\u007f",
        "c1\u0085",
      ]) {
        for (const event_time of ["2026-09-16T10:00:00.250Z", "2026-09-16T10:00:00Z"]) {
          expect(detailOf(base({ customer_user_id, event_time }), s2s)).toBe(rule);
        }
      }
      // Any other text is the app's own id.
      expect(accepted(base({ customer_user_id: "Ünïcode ü@x.y" }), s2s).customerUserId).toBe(
        "Ünïcode ü@x.y",
      );
    }
  });

  it("requires an ISO 8601 event_time with an offset", () => {
    const rule =
      "event_time: must be an ISO 8601 date-time with a UTC offset or Z, e.g. 2026-09-16T10:00:00Z";
    for (const event_time of [
      "2026-09-16T10:00:00",
      "2026-09-16",
      "1789552800",
      1789552800,
      "2026-02-30T10:00:00Z",
    ]) {
      expect(detailOf(sdkEvent({ event_time }))).toBe(rule);
    }
    expect(detailOf(sdkEvent({ event_time: undefined }))).toBe("event_time: is required");
  });

  it("accepts event_time up to 24 hours ahead of the clock", () => {
    const at = (ms: number) => sdkEvent({ event_time: new Date(NOW.getTime() + ms).toISOString() });
    expect(accepted(at(INGEST_LIMITS.maxFutureSkewHours * HOUR_MS)).eventId).toBe("evt-1");
    expect(detailOf(at(INGEST_LIMITS.maxFutureSkewHours * HOUR_MS + 1))).toBe(
      "event_time: is more than 24 hours ahead of the server's clock",
    );
  });

  it("accepts event_time up to 30 days old", () => {
    const at = (ms: number) => sdkEvent({ event_time: new Date(NOW.getTime() - ms).toISOString() });
    expect(accepted(at(INGEST_LIMITS.maxEventAgeDays * DAY_MS)).eventId).toBe("evt-1");
    expect(detailOf(at(INGEST_LIMITS.maxEventAgeDays * DAY_MS + 1))).toBe(
      "event_time: is more than 30 days old; events that late are not accepted",
    );
  });
});

describe("judgeEvents: the sender's clock (sent_at)", () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  /** One event of a phone whose clock is `aheadMs` ahead, `ageMs` before it sent the request. */
  const fromPhone = (aheadMs: number, ageMs: number) => {
    const sentMs = NOW.getTime() + aheadMs;
    const [verdict] = judgeEvents([sdkEvent({ event_time: iso(sentMs - ageMs) })], {
      now: NOW,
      sentAt: iso(sentMs),
      s2s: false,
      open,
    });
    if (!verdict) throw new Error("no verdict");
    return verdict;
  };
  const keptTime = (verdict: EventVerdict) =>
    verdict.kind === "accepted" ? verdict.event.eventTime : verdict;

  it("takes a phone days ahead, and keeps its events at their time by the service's clock", () => {
    expect(keptTime(fromPhone(30 * HOUR_MS, 5 * 60_000))).toBe(iso(NOW.getTime() - 5 * 60_000));
    expect(keptTime(fromPhone(-3 * DAY_MS, HOUR_MS))).toBe(iso(NOW.getTime() - HOUR_MS));
  });

  it("keeps the time as sent when the clocks agree within a minute", () => {
    expect(keptTime(fromPhone(59_000, 10_000))).toBe(iso(NOW.getTime() + 59_000 - 10_000));
    expect(keptTime(fromPhone(-800, 10_000))).toBe(iso(NOW.getTime() - 800 - 10_000));
    // A minute off exactly is within it; a second more, or two minutes, is not.
    expect(keptTime(fromPhone(60_000, 10_000))).toBe(iso(NOW.getTime() + 60_000 - 10_000));
    expect(keptTime(fromPhone(61_000, 10_000))).toBe(iso(NOW.getTime() - 10_000));
    expect(keptTime(fromPhone(-120_000, 10_000))).toBe(iso(NOW.getTime() - 10_000));
  });

  it("bounds event_time by sent_at, and says so", () => {
    expect(fromPhone(30 * HOUR_MS, -24 * HOUR_MS).kind).toBe("accepted");
    expect(fromPhone(30 * HOUR_MS, -24 * HOUR_MS - 1)).toMatchObject({
      detail: "event_time: is more than 24 hours after sent_at",
    });
    expect(fromPhone(30 * HOUR_MS, 30 * DAY_MS).kind).toBe("accepted");
    expect(fromPhone(30 * HOUR_MS, 30 * DAY_MS + 1)).toMatchObject({
      detail: "event_time: is more than 30 days before sent_at; events that late are not accepted",
    });
  });
});

describe("judgeEvents: server-to-server events", () => {
  it("names the user by customer_user_id and carries no service_id", () => {
    const event = accepted(s2sEvent(), true);
    expect(event.customerUserId).toBe("user-1");
    expect(event.serviceId).toBeNull();
    expect(accepted(s2sEvent({ service_id: null }), true).serviceId).toBeNull();
  });

  it("refuses a service_id and requires customer_user_id", () => {
    expect(detailOf(s2sEvent({ service_id: "svc-1" }), true)).toBe(
      "service_id: is not allowed in server-to-server events: name the user by customer_user_id",
    );
    expect(detailOf(s2sEvent({ customer_user_id: undefined }), true)).toBe(
      "customer_user_id: is required",
    );
  });

  it("takes no anonymous mark, which is an SDK's: the key is named as ignored", () => {
    const event = accepted(s2sEvent({ anonymous: true }), true);
    expect(event.anonymous).toBe(false);
    expect(event.warnings).toEqual(['ignored unknown keys: "anonymous"']);
  });

  it("needs a service_id from the SDK instead", () => {
    expect(detailOf(s2sEvent(), false)).toBe("service_id: is required");
  });
});

describe("judgeEvents: rejections", () => {
  it("refuses what is not an object", () => {
    for (const raw of [null, 1, "x", [sdkEvent()], undefined]) {
      expect(detailOf(raw)).toBe("event: must be a JSON object");
    }
  });

  it("lists every field problem in one detail", () => {
    expect(detailOf({ event_id: "e-1" })).toBe(
      `event_type: is required; event_time: is required; service_id: is required`,
    );
    // Parameters that are not a map are one of the field problems, whatever else is wrong.
    expect(detailOf({ event_id: "e-1", event_type: "LOGIN", parameters: 5 })).toBe(
      "parameters: must be a map of string keys to values; event_time: is required; service_id: is required",
    );
    expect(detailOf(sdkEvent({ event_time: "2020-01-01T00:00:00Z", parameters: [] }))).toBe(
      "parameters: must be a map of string keys to values",
    );
  });

  it("refuses text that is not Unicode: a lone surrogate could never be read back", () => {
    expect(detailOf(sdkEvent({ customer_user_id: "user-\ud800" }))).toBe(
      "customer_user_id: must be Unicode text: it holds a lone surrogate",
    );
    expect(detailOf(sdkEvent({ event_type: "CUSTOM", event_name: "Boss \udfff" }))).toBe(
      "event_name: must be Unicode text: it holds a lone surrogate",
    );
    // A pair is one character, and welcome.
    expect(accepted(sdkEvent({ customer_user_id: "user-\ud83d\ude00" })).customerUserId).toBe(
      "user-\u{1F600}",
    );
  });

  it("names the path of a parameter problem", () => {
    expect(detailOf(sdkEvent({ parameters: { items: [0, 1, 2, { price: Number.NaN }] } }))).toBe(
      "parameters.items[3].price: must be a finite number",
    );
    expect(detailOf(sdkEvent({ parameters: [1] }))).toBe(
      "parameters: must be a map of string keys to values",
    );
  });

  it("refuses bad revenue", () => {
    expect(detailOf(sdkEvent({ parameters: { revenue: "1,5", currency: "EUR" } }))).toBe(
      'parameters.revenue: must be a finite number or a decimal string such as "9.99"',
    );
  });

  it("costs only the faulty event its place in the batch", () => {
    const verdicts = judge([sdkEvent({ event_id: "a" }), null, sdkEvent({ event_id: "c" })]);
    expect(verdicts.map((v) => [v.index, v.kind])).toEqual([
      [0, "accepted"],
      [1, "rejected"],
      [2, "accepted"],
    ]);
  });

  it("gives a verdict to each hole of a sparse list", () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point of the test
    const verdicts = judge([sdkEvent(), , sdkEvent()]);
    expect(verdicts.map((v) => v.kind)).toEqual(["accepted", "rejected", "accepted"]);
  });
});

/** True when no map anywhere in the value holds a null (lists may). */
const noNullInMaps = (value: ParameterValue): boolean => {
  if (Array.isArray(value)) return value.every((item) => item === null || noNullInMaps(item));
  if (value !== null && typeof value === "object") {
    return Object.values(value).every((item) => item !== null && noNullInMaps(item));
  }
  return true;
};

const parameterKey = fc.oneof(
  fc.constantFrom(...PII_KEYS, "revenue", "currency", "items"),
  fc.string({ maxLength: 12 }),
);

const parameterValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom("sealed:1", 'sealed:"EUR"', "sealed:{", "USD", "9.99", "1990-01-31", "a@b.c"),
);

/** Events that are valid but for their parameters, which are anything JSON. */
const mostlyValidEvent = fc.record({
  event_id: fc.stringMatching(/^[A-Za-z0-9._:-]{1,20}$/),
  service_id: fc.stringMatching(/^[A-Za-z0-9._:-]{1,20}$/),
  event_type: fc.constantFrom(...EVENT_TYPES),
  event_name: fc.option(fc.string({ maxLength: 20 })),
  event_time: fc
    .integer({ min: -31 * DAY_MS, max: 25 * HOUR_MS })
    .map((offset) => new Date(NOW.getTime() + offset).toISOString()),
  parameters: fc.option(fc.dictionary(parameterKey, parameterValue, { maxKeys: 8 })),
});

const THROWING_OPEN = (): unknown => {
  throw new Error("broken");
};

describe("judgeEvents: properties", () => {
  it("never throws and gives each index exactly one verdict, in order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.anything(), fc.jsonValue(), mostlyValidEvent), { maxLength: 10 }),
        fc.boolean(),
        fc.boolean(),
        (events, s2s, throwing) => {
          const verdicts = judgeEvents(events, {
            now: NOW,
            s2s,
            open: throwing ? THROWING_OPEN : open,
          });
          expect(verdicts.map((v) => v.index)).toEqual(events.map((_, index) => index));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps no null map value and no clear PII in accepted parameters", () => {
    fc.assert(
      fc.property(fc.array(mostlyValidEvent, { minLength: 1, maxLength: 5 }), (events) => {
        for (const verdict of judge(events)) {
          if (verdict.kind !== "accepted") continue;
          const { parameters } = verdict.event;
          expect(noNullInMaps(parameters)).toBe(true);
          for (const key of PII_KEYS) {
            if (!Object.hasOwn(parameters, key)) continue;
            const value = parameters[key];
            expect(typeof value).toBe("string");
            if (typeof value === "string") {
              expect(/^sha256:[0-9a-f]{64}$/.test(value) || isSealed(value)).toBe(true);
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("accepts mostly valid events often enough for the property above to mean something", () => {
    const sample = fc.sample(mostlyValidEvent, { numRuns: 300, seed: 42 });
    const kinds = judge(sample).map((v) => v.kind);
    expect(kinds.filter((kind) => kind === "accepted").length).toBeGreaterThan(50);
  });

  it("records revenue only with a known currency and a finite amount", () => {
    fc.assert(
      fc.property(fc.array(mostlyValidEvent, { minLength: 1, maxLength: 5 }), (events) => {
        for (const verdict of judge(events)) {
          if (verdict.kind !== "accepted" || verdict.event.revenue === null) continue;
          expect(Number.isFinite(verdict.event.revenue.amount)).toBe(true);
          expect(verdict.event.revenue.currency).toMatch(/^[A-Z]{3}$/);
        }
      }),
      { numRuns: 300 },
    );
  });
});
