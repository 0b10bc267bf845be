import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  eventSchema,
  eventsRequestSchema,
  parseEventsEnvelope,
  s2sEventSchema,
  s2sEventsRequestSchema,
} from "./event-schema.ts";
import { sdkEvent } from "./ingest.test-support.ts";
import { installRequestSchema } from "./install.ts";
import { INGEST_LIMITS } from "./limits.ts";

describe("parseEventsEnvelope", () => {
  it("returns the events, each still unchecked", () => {
    expect(parseEventsEnvelope({ events: [1, null, sdkEvent()], extra: true })).toEqual({
      ok: true,
      value: { events: [1, null, sdkEvent()], sentAt: null },
    });
  });

  it("reads the sender's clock, sent_at, beside the events", () => {
    const sentAt = "2026-09-16T10:00:02Z";
    expect(parseEventsEnvelope({ sent_at: sentAt, events: [1] })).toEqual({
      ok: true,
      value: { events: [1], sentAt },
    });
    expect(parseEventsEnvelope({ sent_at: "now", events: [1] })).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^sent_at: must be an ISO 8601/),
    });
  });

  it("accepts 1 to 100 events", () => {
    const events = (count: number) => ({ events: Array.from({ length: count }, () => ({})) });
    expect(parseEventsEnvelope(events(1)).ok).toBe(true);
    expect(parseEventsEnvelope(events(INGEST_LIMITS.maxEventsPerRequest)).ok).toBe(true);
    const rule = { ok: false, detail: "events: must be a list of 1 to 100 events" };
    expect(parseEventsEnvelope(events(0))).toEqual(rule);
    expect(parseEventsEnvelope(events(INGEST_LIMITS.maxEventsPerRequest + 1))).toEqual(rule);
    expect(parseEventsEnvelope({ events: sdkEvent() })).toEqual(rule);
  });

  it("refuses a body that is not an object with events", () => {
    expect(parseEventsEnvelope([sdkEvent()])).toEqual({
      ok: false,
      detail: "body: must be a JSON object",
    });
    expect(parseEventsEnvelope("x")).toEqual({ ok: false, detail: "body: must be a JSON object" });
    expect(parseEventsEnvelope({})).toEqual({ ok: false, detail: "events: is required" });
  });
});

describe("the documented schemas", () => {
  const schemas = { eventSchema, s2sEventSchema, installRequestSchema };

  it.each(Object.entries(schemas))("%s describes itself and every field", (_, schema) => {
    expect(z.globalRegistry.get(schema)?.description).toBeTruthy();
    for (const [field, fieldSchema] of Object.entries(schema.shape)) {
      expect(z.globalRegistry.get(fieldSchema)?.description, field).toBeTruthy();
    }
  });

  it("describes the request envelopes", () => {
    expect(z.globalRegistry.get(eventsRequestSchema)?.description).toBeTruthy();
    expect(z.globalRegistry.get(s2sEventsRequestSchema)?.description).toBeTruthy();
  });

  it("validates a whole documented body the way the handlers do", () => {
    expect(eventsRequestSchema.safeParse({ events: [sdkEvent()] }).success).toBe(true);
    expect(eventsRequestSchema.safeParse({ events: [] }).success).toBe(false);
  });
});
