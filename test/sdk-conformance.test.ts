/**
 * The SDKs' conformance vectors (sdk/conformance/) against the service: every request body a
 * vector says an SDK sends is one the service accepts as its contract says (the zod schemas
 * the OpenAPI document is generated from, and the parameter and PII rules behind them); every
 * path and method is a route of spec/openapi.json; the event types, export names and PII
 * hashes are the service's own. The SDKs run the same files against their own code.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SESSION_INTERVAL_SECONDS } from "../src/apps/app-config.ts";
import { isSealed, seal } from "../src/crypto/envelope.ts";
import { EVENT_TYPES, type EventType, exportEventName } from "../src/domain/event-types.ts";
import { parseConsentRequest } from "../src/ingest/consent.ts";
import { eventSchema, eventsRequestSchema } from "../src/ingest/event-schema.ts";
import { customerUserIdField } from "../src/ingest/fields.ts";
import { parseInstallRequest } from "../src/ingest/install.ts";
import { INGEST_LIMITS } from "../src/ingest/limits.ts";
import { sanitizeParameters } from "../src/ingest/parameters.ts";
import {
  normalisePii,
  PII_KEYS,
  type PiiKey,
  protectPii,
  sha256Marked,
} from "../src/ingest/pii.ts";
import { sessionsRequestSchema } from "../src/ingest/sessions.ts";

const read = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../sdk/conformance/${name}`, import.meta.url), "utf8")) as T;
const openApi = JSON.parse(
  readFileSync(new URL("../spec/openapi.json", import.meta.url), "utf8"),
) as { paths: Record<string, Record<string, unknown>> };
const sealingVectors = JSON.parse(
  readFileSync(new URL("../spec/encryption-test-vectors.json", import.meta.url), "utf8"),
) as { recipient: { keyId: string; publicKeySpki: string } };

interface Request {
  method: string;
  path: string;
  query?: Record<string, string>;
  body: unknown;
}
interface RequestCase {
  name: string;
  platforms: string[];
  request: Request;
}
interface RequestVectors {
  installs: RequestCase[];
  events: RequestCase[];
  other: RequestCase[];
}

const recipient = {
  keyId: sealingVectors.recipient.keyId,
  publicKey: sealingVectors.recipient.publicKeySpki,
};

/**
 * Fills a vector's placeholders with values an SDK would send: one service_id per case, a
 * fresh event_id each time, the present time, and a real envelope for each sealed value.
 */
const filled = (value: unknown, serviceId: string): unknown => {
  if (typeof value === "string") {
    return value
      .replaceAll("{{service_id}}", serviceId)
      .replaceAll("{{event_id}}", () => randomUUID())
      .replaceAll("{{time}}", new Date().toISOString())
      .replaceAll("{{wait_seconds}}", "20");
  }
  if (Array.isArray(value)) return value.map((item) => filled(item, serviceId));
  if (value !== null && typeof value === "object") {
    if ("$sealed" in value) return seal(value.$sealed, recipient);
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, filled(item, serviceId)]),
    );
  }
  return value;
};

/** The OpenAPI path template a concrete path matches, if any. */
const templateOf = (path: string): string | undefined =>
  Object.keys(openApi.paths).find((template) =>
    new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path),
  );

const expectRoute = ({ method, path }: Request) => {
  const template = templateOf(path);
  expect(template, path).toBeDefined();
  expect(Object.keys(openApi.paths[template ?? ""] ?? {}), path).toContain(method.toLowerCase());
};

/** An event as the service takes it: fields by the schema, parameters by their full rules. */
const expectAcceptedEvent = (event: unknown, label: string) => {
  const parsed = eventSchema.safeParse(event);
  expect(parsed.error?.issues ?? [], label).toEqual([]);
  const parameters = (event as { parameters?: unknown }).parameters;
  const sanitized = sanitizeParameters(parameters);
  expect(sanitized.ok ? [] : sanitized.problems, label).toEqual([]);
  if (sanitized.ok) {
    // Hashed and sealed PII comes through untouched: nothing is hashed twice or refused.
    const pii = protectPii(sanitized.parameters, isSealed);
    expect(pii.warnings, label).toEqual([]);
    expect(pii.parameters, label).toEqual(sanitized.parameters);
  }
};

describe("SDK conformance vectors", () => {
  const requests = read<RequestVectors>("requests.json");

  it.each(requests.installs.map((c) => [c.name, c] as const))(
    "install body is accepted: %s",
    (_name, vector) => {
      const request = filled(vector.request, randomUUID()) as Request;
      expectRoute(request);
      const parsed = parseInstallRequest(request.body, { now: new Date() });
      expect(parsed.ok ? "" : parsed.detail).toBe("");
    },
  );

  it.each(requests.events.map((c) => [c.name, c] as const))(
    "events body is accepted: %s",
    (name, vector) => {
      const request = filled(vector.request, randomUUID()) as Request;
      expectRoute(request);
      const parsed = eventsRequestSchema.safeParse(request.body);
      expect(parsed.error?.issues ?? []).toEqual([]);
      const { events } = request.body as { events: unknown[] };
      for (const [index, event] of events.entries())
        expectAcceptedEvent(event, `${name} #${index}`);
    },
  );

  it.each(requests.other.map((c) => [c.name, c] as const))(
    "request is a route of the OpenAPI document, its body one the service takes: %s",
    (_name, vector) => {
      const request = filled(vector.request, randomUUID()) as Request;
      expectRoute(request);
      if (request.method === "GET" || request.method === "DELETE") {
        expect(request.body).toBeNull();
      } else {
        const parsed = parseConsentRequest(request.body);
        expect(parsed.ok ? "" : parsed.detail).toBe("");
      }
    },
  );

  const sessions = read<{
    limits: {
      defaultSessionIntervalSeconds: number;
      maxSessionsPerRequest: number;
      maxQueuedSessions: number;
    };
    requests: { name: string; request: Request }[];
  }>("sessions.json");

  it.each(sessions.requests.map((c) => [c.name, c] as const))(
    "sessions body is accepted, with sent_at: %s",
    (_name, vector) => {
      const request = filled(vector.request, randomUUID()) as Request;
      expectRoute(request);
      expect(request.body).toHaveProperty("sent_at");
      const parsed = sessionsRequestSchema.safeParse(request.body);
      expect(parsed.error?.issues ?? []).toEqual([]);
    },
  );

  it("states the service's session interval and batch bound", () => {
    expect(sessions.limits.defaultSessionIntervalSeconds).toBe(SESSION_INTERVAL_SECONDS);
    expect(sessions.limits.maxSessionsPerRequest).toBe(INGEST_LIMITS.maxEventsPerRequest);
    expect(sessionsRequestSchema.safeParse({ sessions: [] }).success).toBe(false);
  });

  it("sends sent_at with every body that carries device times", () => {
    for (const vector of [...requests.installs, ...requests.events]) {
      expect((vector.request.body as { sent_at?: unknown }).sent_at, vector.name).toBe("{{time}}");
    }
  });

  it("every event a sendEvent vector sends is accepted", () => {
    const { cases } = read<{
      cases: { name: string; expect: Record<string, { sent?: Record<string, unknown> }> }[];
    }>("parameters.json");
    const sent = cases.flatMap((c) =>
      Object.entries(c.expect).flatMap(([platform, outcome]) =>
        outcome.sent ? [[`${c.name} (${platform})`, outcome.sent] as const] : [],
      ),
    );
    expect(sent.length).toBeGreaterThan(20);
    for (const [label, event] of sent) {
      expectAcceptedEvent(
        {
          ...event,
          event_id: randomUUID(),
          event_time: new Date().toISOString(),
          service_id: randomUUID(),
        },
        label,
      );
    }
  });

  it("lists the service's event types, in order, with their export names", () => {
    const { eventTypes, customNames } = read<{
      eventTypes: { wire: EventType; flutter: string; exportEventName: string }[];
      customNames: { name: string; exportEventName: string }[];
    }>("event-types.json");
    expect(eventTypes.map((t) => t.wire)).toEqual([...EVENT_TYPES]);
    for (const type of eventTypes) {
      expect(type.exportEventName).toBe(exportEventName(type.wire));
      // The Flutter case is the wire value in lowerCamelCase.
      expect(type.flutter.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()).toBe(type.wire);
    }
    for (const custom of customNames) {
      expect(exportEventName("CUSTOM", custom.name)).toBe(custom.exportEventName);
    }
  });

  it("keeps the customer user ids the service takes, and only those", () => {
    const { cases } = read<{
      cases: {
        name: string;
        value: string | { repeat: string; times: number };
        outcome: "kept" | "refused" | "none";
      }[];
    }>("customer-user-ids.json");
    expect(new Set(cases.map((c) => c.outcome))).toEqual(new Set(["kept", "refused", "none"]));
    for (const c of cases) {
      const value = typeof c.value === "string" ? c.value : c.value.repeat.repeat(c.value.times);
      if (c.outcome === "none") {
        expect(value.trim(), c.name).toBe("");
        continue;
      }
      expect(customerUserIdField().safeParse(value).success, c.name).toBe(c.outcome === "kept");
    }
  });

  it("normalises and hashes matching parameters as the service does", () => {
    const { keys, cases } = read<{
      keys: string[];
      cases: {
        name: string;
        normalised: Record<string, unknown>;
        parameters: Record<string, unknown>;
        encryptionOff: Record<string, unknown>;
      }[];
    }>("pii.json");
    expect(keys).toEqual([...PII_KEYS]);
    for (const c of cases) {
      for (const key of PII_KEYS) {
        const raw = c.parameters[key];
        const normalised = c.normalised[key];
        if (typeof normalised !== "string" || /^(sha256:)?[0-9a-f]{64}$/i.test(normalised)) {
          continue;
        }
        // A phone number sent as a JSON number is normalised from its digits.
        expect(normalisePii(key as PiiKey, String(raw)), c.name).toEqual({
          ok: true,
          value: normalised,
        });
        expect(c.encryptionOff[key], c.name).toBe(sha256Marked(normalised));
      }
      // What the SDK sends is what the service would keep: hashing it again changes nothing.
      const sanitized = sanitizeParameters(c.encryptionOff);
      if (!sanitized.ok) throw new Error(`${c.name}: ${sanitized.problems.join("; ")}`);
      expect(protectPii(sanitized.parameters, isSealed).parameters, c.name).toEqual(
        c.encryptionOff,
      );
    }
  });
});
