import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import type { LakeRecord } from "../lake/lake-tables.ts";
import type { AddressSighting } from "../ports/address-crowds.ts";
import type { App } from "../ports/apps.ts";
import type { DeletionRequest } from "../ports/deletions.ts";
import type { AcceptedInstallEvent } from "../postbacks/triggers.ts";
import { S2S_EVENTS, SDK_EVENTS } from "./event-sources.ts";
import { ignoredAs } from "./ignored.ts";
import { ingestionDeps, NOW, s2sEvent, sdkEvent } from "./ingest.test-support.ts";
import { createIngestion, type IngestionDeps } from "./service.ts";

const APP: App = {
  appId: "com.a",
  name: "A",
  platform: "android",
  enabled: true,
  createdAt: "2026-01-01T00:00:00.000Z",
};

const install = (serviceId: string) => storedInstall(APP.appId, serviceId);

/** Counts the calls under way at once, each of which takes a few turns of the event loop. */
const overlap = () => {
  let now = 0;
  const seen = { most: 0 };
  const call = async <T>(value: T): Promise<T> => {
    now++;
    seen.most = Math.max(seen.most, now);
    for (let i = 0; i < 3; i++) await tick();
    now--;
    return value;
  };
  return { call, seen };
};

describe("recordEvents", () => {
  it("looks up a batch's installs and their deletion requests all at once, and ignores the deleted", async () => {
    const installs = overlap();
    const deletions = overlap();
    const known = new Map([
      ["known-1", install("known-1")],
      ["known-2", install("known-2")],
    ]);
    const stored: LakeRecord[] = [];
    // Purged: the install is gone. Pending: the install is still found until its purge.
    const request = (serviceId: string): DeletionRequest =>
      serviceId.startsWith("deleted")
        ? {
            requestId: `r-${serviceId}`,
            appId: APP.appId,
            serviceId,
            status: "completed",
            requestedAt: "2026-09-10T00:00:00.000Z",
            completedAt: "2026-09-10T00:01:00.000Z",
          }
        : {
            requestId: `r-${serviceId}`,
            appId: APP.appId,
            serviceId,
            status: "pending",
            requestedAt: "2026-09-16T09:00:00.000Z",
            completedAt: null,
          };
    const ingestion = createIngestion(
      ingestionDeps(APP, {
        installs: { get: (_, serviceId) => installs.call(known.get(serviceId)) },
        events: {
          put: async (records) => {
            stored.push(...records);
          },
        },
        deletions: {
          listByInstall: (_, serviceId) =>
            deletions.call(
              serviceId.startsWith("deleted") || serviceId === "known-2"
                ? [request(serviceId)]
                : [],
            ),
        },
      }),
    );
    const ids = ["known-1", "deleted-1", "known-2", "new-1", "deleted-2", "known-1", "new-1"];
    const answer = await ingestion.recordEvents(
      { appId: APP.appId, sourceIp: null, headers: {} },
      { events: ids.map((serviceId, i) => sdkEvent({ event_id: `e${i}`, service_id: serviceId })) },
      SDK_EVENTS,
    );
    expect(installs.seen.most).toBe(5);
    expect(deletions.seen.most).toBe(5);
    expect(stored.map((record) => record.event_id)).toEqual(["e0", "e5"]);
    expect(answer.accepted).toBe(2);
    expect(answer.ignored).toEqual([
      { index: 1, event_id: "e1", ...ignoredAs("install_deleted") },
      { index: 2, event_id: "e2", ...ignoredAs("install_deleted") },
      { index: 4, event_id: "e4", ...ignoredAs("install_deleted") },
    ]);
    expect(answer.rejected.map((r) => [r.index, r.error, r.retryable])).toEqual([
      [3, "Conflict", true],
      [6, "Conflict", true],
    ]);
  });
});

describe("which installs send from an address", () => {
  const INSTALL_BODY = {
    service_id: "new-1",
    os: "android",
    sdk_platform: "kotlin",
    sdk_version: "1.11.0",
    first_open_time: "2026-09-16T11:59:00Z",
  };

  /** Ingestion over stores in memory; what it recorded of addresses, and when the job went. */
  const ingestionOf = (options: { sightingsFail?: boolean } = {}) => {
    const sightings: AddressSighting[] = [];
    const steps: string[] = [];
    const known = new Map([["known-1", install("known-1")]]);
    const deps = ingestionDeps(APP, {
      installs: { get: async (_, serviceId) => known.get(serviceId) },
      customerUsers: { get: async () => "known-1" },
      attribution: { queue: { send: async () => void steps.push("queued") } },
      sightings: {
        recordSightings: async (batch) => {
          if (options.sightingsFail) throw new Error("touch store down");
          sightings.push(...batch);
          steps.push("sighted");
        },
      },
    });
    return { ingestion: createIngestion(deps), sightings, steps };
  };
  const from = (sourceIp: string | null) => ({ appId: APP.appId, sourceIp, headers: {} });

  it("records an install at its address before its attribution job is queued", async () => {
    const { ingestion, sightings, steps } = ingestionOf();
    await ingestion.recordInstall(from("81.2.69.142"), INSTALL_BODY);
    expect(sightings).toEqual([
      { appId: APP.appId, serviceId: "new-1", ip: "81.2.69.142", at: NOW.toISOString() },
    ]);
    expect(steps).toEqual(["sighted", "queued"]);
  });

  it("records the installs of a phone's events, never a server's", async () => {
    const { ingestion, sightings } = ingestionOf();
    await ingestion.recordEvents(
      from("81.2.69.150"),
      { events: [sdkEvent({ service_id: "known-1" }), sdkEvent({ service_id: "unknown-1" })] },
      SDK_EVENTS,
    );
    // The event of an install not yet stored is refused, and names no install seen there.
    expect(sightings.map((s) => [s.serviceId, s.ip])).toEqual([["known-1", "81.2.69.150"]]);
    await ingestion.recordEvents(from("81.2.69.151"), { events: [s2sEvent()] }, S2S_EVENTS);
    expect(sightings).toHaveLength(1);
  });

  it("takes the install in when the address cannot be recorded", async () => {
    const { ingestion, steps } = ingestionOf({ sightingsFail: true });
    expect(await ingestion.recordInstall(from("81.2.69.142"), INSTALL_BODY)).toEqual({
      service_id: "new-1",
    });
    expect(steps).toEqual(["queued"]);
  });
});

describe("an install reported again after a failure part-way", () => {
  it("is matched as of its first report, not its retry", async () => {
    const stored = new Map<string, Awaited<ReturnType<IngestionDeps["installs"]["get"]>>>();
    const pendings: { receivedAt: string; clockOffsetMs: number | null }[] = [];
    let clock = new Date("2026-09-16T12:00:00.000Z");
    let failNext = true;
    const ingestion = createIngestion(
      ingestionDeps(APP, {
        installs: {
          get: async (_, serviceId) => stored.get(serviceId),
          putIfAbsent: async (found) => {
            const first = stored.get(found.serviceId);
            if (first) return { install: first, created: false };
            stored.set(found.serviceId, found);
            return { install: found, created: true };
          },
        },
        attribution: {
          store: {
            createPending: async ({ facts }) => {
              if (failNext) {
                failNext = false;
                throw new Error("attributions table unreachable");
              }
              pendings.push({ receivedAt: facts.receivedAt, clockOffsetMs: facts.clockOffsetMs });
              return true;
            },
          },
        },
        now: () => clock,
      }),
    );
    const report = (sentAt: string) =>
      ingestion.recordInstall(
        { appId: APP.appId, sourceIp: "81.2.69.142", headers: {} },
        {
          service_id: "retried-1",
          os: "android",
          sdk_platform: "kotlin",
          sdk_version: "1.11.0",
          first_open_time: "2026-09-16T11:59:00Z",
          sent_at: sentAt,
        },
      );
    await expect(report("2026-09-16T12:00:00Z")).rejects.toThrow("unreachable");
    // Sent again ten minutes on, by a phone whose clock runs two minutes fast.
    clock = new Date("2026-09-16T12:10:00.000Z");
    await report("2026-09-16T12:12:00Z");
    // A touch a network reports between the two requests came after the install was reported;
    // the phone's offset is this request's own.
    expect(pendings).toEqual([{ receivedAt: "2026-09-16T12:00:00.000Z", clockOffsetMs: -120_000 }]);
  });
});

describe("one request's events", () => {
  /** Ingestion over stores in memory: what reached the lake and the postbacks. */
  const ingestionOf = (options: {
    installs: readonly string[];
    customerUsers?: Readonly<Record<string, string>>;
    /** The ids whose mappings a purge removed, and the install each named. */
    purgedUsers?: Readonly<Record<string, string>>;
    /** Each id's other installs, the latest use first. */
    otherInstalls?: Readonly<Record<string, readonly string[]>>;
    deleted?: readonly string[];
  }) => {
    const stored: LakeRecord[] = [];
    const sent: AcceptedInstallEvent[] = [];
    const mapped: string[] = [];
    const known = new Map(options.installs.map((serviceId) => [serviceId, install(serviceId)]));
    const deletion = (serviceId: string): DeletionRequest => ({
      requestId: `r-${serviceId}`,
      appId: APP.appId,
      serviceId,
      status: "completed",
      requestedAt: "2026-09-10T00:00:00.000Z",
      completedAt: "2026-09-10T00:01:00.000Z",
    });
    const ingestion = createIngestion(
      ingestionDeps(APP, {
        installs: { get: async (_, serviceId) => known.get(serviceId) },
        customerUsers: {
          get: async (_, customerUserId, which) =>
            (which?.purged ? options.purgedUsers : options.customerUsers)?.[customerUserId],
          otherInstalls: async (_, customerUserId) => [
            ...(options.otherInstalls?.[customerUserId] ?? []),
          ],
          put: async (_, customerUserId, serviceId, seenAt) => {
            mapped.push(`${customerUserId}:${serviceId}`);
            return { serviceId, seenAt };
          },
        },
        events: { put: async (records) => void stored.push(...records) },
        postbacks: {
          triggers: {
            eventsAccepted: async (_, events) => {
              sent.push(...events);
              return events.length;
            },
          },
          attributions: { get: async () => undefined },
        },
        deletions: {
          listByInstall: async (_, serviceId) =>
            options.deleted?.includes(serviceId) ? [deletion(serviceId)] : [],
        },
      }),
    );
    const caller = { appId: APP.appId, sourceIp: null, headers: {} };
    return { ingestion, caller, stored, sent, mapped };
  };

  const purchase = (revenue: number, overrides: Record<string, unknown> = {}) => ({
    event_id: "dup-1",
    event_type: "PURCHASE",
    event_time: "2026-09-16T10:00:00.250Z",
    parameters: { revenue, currency: "EUR" },
    ...overrides,
  });

  it("names no user of an event sent anonymous: not in its lake row, its sends, nor the mapping", async () => {
    const { ingestion, caller, stored, sent, mapped } = ingestionOf({ installs: ["svc-1"] });
    const answer = await ingestion.recordEvents(
      caller,
      {
        events: [
          sdkEvent(
            purchase(1, { service_id: "svc-1", customer_user_id: "user-8812", anonymous: true }),
          ),
          sdkEvent(
            purchase(2, { event_id: "named", service_id: "svc-1", customer_user_id: "user-7" }),
          ),
        ],
      },
      SDK_EVENTS,
    );
    expect(answer.accepted).toBe(2);
    expect(stored.map((r) => [r.event_id, r.customer_user_id, r.maid])).toEqual([
      ["dup-1", null, null],
      ["named", "user-7", expect.anything()],
    ]);
    expect(sent.map((s) => s.customerUserId)).toEqual([null, "user-7"]);
    expect(mapped).toEqual(["user-7:svc-1"]);
  });

  it("maps a user named by two installs' events to the install of the latest event, whatever their order", async () => {
    const { ingestion, caller, mapped } = ingestionOf({ installs: ["svc-new", "svc-old"] });
    const answer = await ingestion.recordEvents(
      caller,
      {
        events: [
          sdkEvent(
            purchase(1, {
              event_id: "later",
              service_id: "svc-new",
              customer_user_id: "user-2",
              event_time: "2026-09-16T11:00:00.250Z",
            }),
          ),
          // Sent after it in the batch, but of an earlier moment: a phone's queue sent late.
          sdkEvent(
            purchase(2, {
              event_id: "earlier",
              service_id: "svc-old",
              customer_user_id: "user-2",
              event_time: "2026-09-16T09:00:00.250Z",
            }),
          ),
        ],
      },
      SDK_EVENTS,
    );
    expect(answer.accepted).toBe(2);
    expect(mapped).toEqual(["user-2:svc-new"]);
  });

  it("hands the sends a phone's address and agent and the revenue in USD as its lake row has it; a server's event, no device", async () => {
    const { ingestion, stored, sent } = ingestionOf({
      installs: ["svc-1"],
      customerUsers: { "user-1": "svc-1" },
    });
    const phone = {
      appId: APP.appId,
      sourceIp: "203.0.113.9",
      headers: { "user-agent": "Game/1.0" },
    };
    await ingestion.recordEvents(phone, { events: [sdkEvent(purchase(10))] }, SDK_EVENTS);
    await ingestion.recordEvents(phone, { events: [s2sEvent(purchase(10))] }, S2S_EVENTS);
    const usd = stored[0]?.revenue_usd;
    expect(typeof usd).toBe("number");
    expect(sent.map((s) => [s.ip, s.userAgent, s.event.revenue])).toEqual([
      ["203.0.113.9", "Game/1.0", { amount: 10, currency: "EUR", usd }],
      [null, null, { amount: 10, currency: "EUR", usd }],
    ]);
  });

  it("keeps the first of an install's events sent twice under one event_id, and ignores the repeat", async () => {
    const { ingestion, caller, stored, sent } = ingestionOf({ installs: ["svc-1", "svc-2"] });
    const answer = await ingestion.recordEvents(
      caller,
      {
        events: [
          sdkEvent(purchase(1, { service_id: "svc-1" })),
          sdkEvent(purchase(1000, { service_id: "svc-1" })),
          // Another install's event of the same id is its own.
          sdkEvent(purchase(5, { service_id: "svc-2" })),
        ],
      },
      SDK_EVENTS,
    );
    expect(answer.accepted).toBe(2);
    expect(answer.ignored).toEqual([
      { index: 1, event_id: "dup-1", ...ignoredAs("duplicate_event") },
    ]);
    expect(stored.map((r) => [r.service_id, r.event_id, r.revenue])).toEqual([
      ["svc-1", "dup-1", 1],
      ["svc-2", "dup-1", 5],
    ]);
    expect(sent.map((s) => [s.serviceId, s.event.revenue?.amount])).toEqual([
      ["svc-1", 1],
      ["svc-2", 5],
    ]);
  });

  it("keeps the first of a server's events under one event_id for one install, whichever user named it", async () => {
    const { ingestion, caller, stored } = ingestionOf({
      installs: ["svc-1"],
      customerUsers: { "user-1": "svc-1", "user-1-alias": "svc-1" },
    });
    const answer = await ingestion.recordEvents(
      caller,
      {
        events: [
          s2sEvent(purchase(1)),
          s2sEvent(purchase(2)),
          s2sEvent(purchase(3, { customer_user_id: "user-1-alias" })),
        ],
      },
      S2S_EVENTS,
    );
    expect(answer.accepted).toBe(1);
    expect(answer.ignored.map((i) => [i.index, i.reason])).toEqual([
      [1, "duplicate_event"],
      [2, "duplicate_event"],
    ]);
    expect(stored.map((r) => r.revenue)).toEqual([1]);
  });

  it("takes a server's event for a user whose latest install was deleted to their latest other install alive", async () => {
    for (const deletedLatest of [
      // Asked for, not yet purged: the mapping still names it.
      { customerUsers: { "two-devices": "svc-phone" } },
      // Purged: the mapping is gone, its mark names it.
      { purgedUsers: { "two-devices": "svc-phone" } },
    ]) {
      const { ingestion, caller, stored } = ingestionOf({
        installs: ["svc-phone", "svc-tablet", "svc-old"],
        ...deletedLatest,
        otherInstalls: { "two-devices": ["svc-gone-too", "svc-tablet", "svc-old"] },
        deleted: ["svc-phone", "svc-gone-too"],
      });
      const answer = await ingestion.recordEvents(
        caller,
        { events: [s2sEvent({ customer_user_id: "two-devices" })] },
        S2S_EVENTS,
      );
      expect(answer).toMatchObject({ accepted: 1, ignored: [], rejected: [] });
      expect(stored.map((r) => r.service_id)).toEqual(["svc-tablet"]);
    }
    // Every install of the user deleted: ignored, as for one.
    const { ingestion, caller, stored } = ingestionOf({
      installs: [],
      purgedUsers: { "two-devices": "svc-phone" },
      otherInstalls: { "two-devices": ["svc-tablet"] },
      deleted: ["svc-phone", "svc-tablet"],
    });
    const answer = await ingestion.recordEvents(
      caller,
      { events: [s2sEvent({ customer_user_id: "two-devices" })] },
      S2S_EVENTS,
    );
    expect(answer.ignored).toEqual([
      { index: 0, event_id: "evt-1", ...ignoredAs("install_deleted") },
    ]);
    expect(stored).toEqual([]);
  });

  it("ignores a server's event for a user whose install was purged, as before its purge", async () => {
    // The purge removed the install and the mapping; the mapping's mark still names it.
    const { ingestion, caller, stored } = ingestionOf({
      installs: [],
      purgedUsers: { "gone-user": "svc-gone" },
      deleted: ["svc-gone"],
    });
    const answer = await ingestion.recordEvents(
      caller,
      { events: [s2sEvent({ customer_user_id: "gone-user" })] },
      S2S_EVENTS,
    );
    expect(answer).toMatchObject({ accepted: 0, rejected: [] });
    expect(answer.ignored).toEqual([
      { index: 0, event_id: "evt-1", ...ignoredAs("install_deleted") },
    ]);
    expect(stored).toEqual([]);
  });
});
