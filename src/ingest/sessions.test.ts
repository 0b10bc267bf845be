import { describe, expect, it } from "vitest";
import { storedInstall } from "../../test/support/installs.ts";
import { UnauthorizedError, ValidationError } from "../domain/errors.ts";
import type { LakeRecord } from "../lake/lake-tables.ts";
import type { AddressSighting } from "../ports/address-crowds.ts";
import type { App } from "../ports/apps.ts";
import { createSessionIngestion, judgeSessions, type SessionIngestionDeps } from "./sessions.ts";

const NOW = new Date("2026-09-17T12:00:00.000Z");
const APP: App = {
  appId: "com.a",
  name: "A",
  platform: "android",
  enabled: true,
  createdAt: "2026-01-01T00:00:00.000Z",
};
const CALLER = { appId: APP.appId, sourceIp: "203.0.113.7", headers: {} };

const ingestion = (overrides: Partial<SessionIngestionDeps> & { app?: App } = {}) => {
  const stored: LakeRecord[][] = [];
  const sighted: AddressSighting[] = [];
  const deps: SessionIngestionDeps = {
    apps: { get: async (appId) => (appId === APP.appId ? (overrides.app ?? APP) : undefined) },
    installs: {
      get: async (appId, serviceId) =>
        serviceId.startsWith("known") ? storedInstall(appId, serviceId) : undefined,
    },
    deletions: {
      listByInstall: async (appId, serviceId) =>
        serviceId.startsWith("known-deleted")
          ? [
              {
                requestId: "r",
                appId,
                serviceId,
                status: "pending",
                requestedAt: "2026-09-16T00:00:00.000Z",
                completedAt: null,
              },
            ]
          : [],
    },
    sessions: { put: async (records) => void stored.push([...records]) },
    countries: { countryOf: () => "DE" },
    sightings: { recordSightings: async (sightings) => void sighted.push(...sightings) },
    now: () => NOW,
    ...overrides,
  };
  return { sessions: createSessionIngestion(deps), stored, sighted };
};

const session = (serviceId: string, startedAt = "2026-09-17T11:00:00.000Z", id = "s-1") => ({
  session_id: id,
  service_id: serviceId,
  started_at: startedAt,
});

describe("recordSessions", () => {
  it("stores a batch's sessions in one put, with the install's platform and the caller's country", async () => {
    const { sessions, stored } = ingestion();
    const answer = await sessions.recordSessions(CALLER, {
      sessions: [session("known-1"), session("known-2", "2026-09-17T11:30:00+02:00", "s-2")],
    });
    expect(answer).toEqual({ accepted: 2, ignored: [], rejected: [] });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toEqual([
      {
        app_id: "com.a",
        service_id: "known-1",
        session_id: "s-1",
        started_at: "2026-09-17T11:00:00.000Z",
        received_at: NOW.toISOString(),
        os: "android",
        country: "DE",
      },
      expect.objectContaining({ session_id: "s-2", started_at: "2026-09-17T09:30:00.000Z" }),
    ]);
  });

  it("judges each session alone: a bad one is rejected, an unknown install's is retryable, a deleted install's ignored", async () => {
    const { sessions, stored } = ingestion();
    const answer = await sessions.recordSessions(CALLER, {
      sessions: [
        session("known-1"),
        { session_id: "s-2", service_id: "known-1" },
        session("unknown", undefined, "s-3"),
        session("known-deleted", undefined, "s-4"),
        session("known-1", "2026-07-01T00:00:00.000Z", "s-5"),
        "not a session",
        // An id no SDK makes is not echoed back.
        { session_id: "x".repeat(10_000), service_id: "known-1" },
      ],
    });
    expect(answer.accepted).toBe(1);
    expect(answer.ignored).toEqual([
      expect.objectContaining({ index: 3, session_id: "s-4", reason: "install_deleted" }),
    ]);
    expect(answer.rejected).toEqual([
      expect.objectContaining({
        index: 1,
        session_id: "s-2",
        detail: "started_at: is required",
        retryable: false,
      }),
      expect.objectContaining({ index: 2, session_id: "s-3", error: "Conflict", retryable: true }),
      expect.objectContaining({
        index: 4,
        retryable: false,
        detail: expect.stringContaining("days old"),
      }),
      expect.objectContaining({ index: 5, session_id: null, retryable: false }),
      expect.objectContaining({ index: 6, session_id: null, retryable: false }),
    ]);
    expect(stored.flat().map((row) => row.session_id)).toEqual(["s-1"]);
  });

  it("ignores every session of a disabled app and stores nothing", async () => {
    const { sessions, stored } = ingestion({ app: { ...APP, enabled: false } });
    const answer = await sessions.recordSessions(CALLER, { sessions: [session("known-1")] });
    expect(answer).toMatchObject({ accepted: 0, ignored: [{ index: 0, reason: "app_disabled" }] });
    expect(stored).toEqual([]);
  });

  it("refuses a bad envelope whole, and a key whose app is gone", async () => {
    const { sessions, stored } = ingestion();
    const rule = "sessions: must be a list of 1 to 100 sessions";
    for (const [body, detail] of [
      [{ sessions: [] }, rule],
      [{ sessions: Array.from({ length: 101 }, () => session("known-1")) }, rule],
      [{ sessions: session("known-1") }, rule],
      [{}, "sessions: is required"],
    ] as const) {
      const refused = sessions.recordSessions(CALLER, body);
      await expect(refused).rejects.toThrow(ValidationError);
      await expect(refused).rejects.toThrow(detail);
    }
    await expect(sessions.recordSessions(CALLER, [])).rejects.toThrow(ValidationError);
    await expect(
      sessions.recordSessions({ ...CALLER, appId: "com.gone" }, { sessions: [session("known-1")] }),
    ).rejects.toThrow(UnauthorizedError);
    expect(stored).toEqual([]);
  });

  it("counts each stored session's install among those sending from the caller's address", async () => {
    const { sessions, sighted } = ingestion();
    const phone = { ...CALLER, sourceIp: "81.2.69.160" };
    await sessions.recordSessions(phone, {
      sessions: [session("known-1"), session("unknown-1", undefined, "s-2")],
    });
    expect(sighted).toEqual([
      { appId: "com.a", serviceId: "known-1", ip: "81.2.69.160", at: NOW.toISOString() },
    ]);
  });

  it("stores the sessions when the address's sighting is not written: it is a hint, not the request", async () => {
    const { sessions, stored } = ingestion({
      sightings: {
        recordSightings: async () => {
          throw new Error("table down");
        },
      },
    });
    const answer = await sessions.recordSessions(
      { ...CALLER, sourceIp: "81.2.69.160" },
      { sessions: [session("known-1")] },
    );
    expect(answer.accepted).toBe(1);
    expect(stored).toHaveLength(1);
  });

  it("fails the request when the put fails, so the SDK sends it again whole", async () => {
    const { sessions } = ingestion({
      sessions: {
        put: async () => {
          throw new Error("stream down");
        },
      },
    });
    await expect(
      sessions.recordSessions(CALLER, { sessions: [session("known-1")] }),
    ).rejects.toThrow("stream down");
  });
});

describe("judgeSessions", () => {
  it("reads a phone's times on the service's clock when its clock is off by more than a minute", () => {
    const [slow, close] = [
      judgeSessions([session("a", "2026-09-17T11:45:00.000Z")], {
        now: NOW,
        sentAt: "2026-09-17T11:50:00.000Z",
      })[0],
      judgeSessions([session("a", "2026-09-17T11:45:00.000Z")], {
        now: NOW,
        sentAt: "2026-09-17T11:59:30.000Z",
      })[0],
    ];
    expect(slow).toMatchObject({ ok: true, session: { startedAt: "2026-09-17T11:55:00.000Z" } });
    expect(close).toMatchObject({ ok: true, session: { startedAt: "2026-09-17T11:45:00.000Z" } });
  });

  it("bounds a session's time on the service's clock: a phone days fast or slow sends its sessions all the same", () => {
    const judged = (startedAt: string, sentAt: string | null) =>
      judgeSessions([session("a", startedAt)], { now: NOW, sentAt })[0];
    const DAY = 24 * 60 * 60 * 1000;
    const shifted = (ms: number) => new Date(NOW.getTime() + ms).toISOString();
    // Three days fast, or forty days slow: its session of an hour ago by its own clock is kept.
    expect(judged(shifted(3 * DAY - 3_600_000), shifted(3 * DAY))).toMatchObject({ ok: true });
    expect(judged(shifted(-40 * DAY - 3_600_000), shifted(-40 * DAY))).toMatchObject({
      ok: true,
      session: { startedAt: shifted(-3_600_000) },
    });
    // On the service's clock: up to a day ahead and thirty days back, each bound included.
    expect(judged(shifted(DAY), null)).toMatchObject({ ok: true });
    expect(judged(shifted(DAY + 1), null)).toMatchObject({
      ok: false,
      rejected: { detail: "started_at: is more than 24 hours ahead of the server's clock" },
    });
    expect(judged(shifted(2 * DAY + 1), shifted(DAY))).toMatchObject({
      ok: false,
      rejected: { detail: "started_at: is more than 24 hours ahead of sent_at" },
    });
    expect(judged(shifted(-30 * DAY), null)).toMatchObject({ ok: true });
    expect(judged(shifted(-30 * DAY - 1), null)).toMatchObject({
      ok: false,
      rejected: {
        detail: "started_at: is more than 30 days old; sessions that late are not accepted",
      },
    });
    expect(judged(shifted(-31 * DAY), shifted(0))).toMatchObject({
      ok: false,
      rejected: {
        detail:
          "started_at: is more than 30 days before sent_at; sessions that late are not accepted",
      },
    });
  });

  it("refuses a session more than a day ahead of the sender's clock", () => {
    const [ahead] = judgeSessions([session("a", "2026-09-19T12:00:00.000Z")], {
      now: NOW,
      sentAt: null,
    });
    expect(ahead).toMatchObject({
      ok: false,
      rejected: { detail: expect.stringContaining("ahead") },
    });
  });
});
