/**
 * Sessions (`POST /v1/sessions`): the SDK reports one when the app starts and when it comes back
 * to the foreground after the remote configuration's `session_interval_seconds` away
 * (src/apps/app-config.ts). They feed
 * retention and active users (src/reports), and go to a lake table of their own, never to the
 * events the export returns.
 *
 * The answer has the shape of the events' answer, so an SDK handles both alike: a session of an
 * install not recorded yet is a retryable Conflict, one of a deleted install or a disabled app is
 * ignored. Duplicates (a retry sends the same `session_id`) are harmless: a session says an
 * install was active on a day, and readers count days, not rows.
 */
import * as z from "zod";
import { deviceClockOffsetMs, keptDeviceTime } from "../domain/device-clock.ts";
import { UnauthorizedError, ValidationError } from "../domain/errors.ts";
import { DAY_MS, HOUR_MS } from "../domain/time.ts";
import type { LakeRecord } from "../lake/lake-tables.ts";
import type { AddressCrowds } from "../ports/address-crowds.ts";
import type { App, AppStore } from "../ports/apps.ts";
import type { DeletionStore } from "../ports/deletions.ts";
import type { CountryResolver } from "../ports/geo.ts";
import type { InstallStore } from "../ports/installs.ts";
import type { RecordStream } from "../ports/lake.ts";
import { formatIssues, UNPROCESSABLE } from "../validation/issues.ts";
import { installTarget, type Target } from "./event-sources.ts";
import { dateTime, identifier, isIdentifier, serviceIdField } from "./fields.ts";
import { type IgnoredReason, ignoredAs } from "./ignored.ts";
import { INGEST_LIMITS } from "./limits.ts";
import type { Caller } from "./service.ts";
import { createSightingHints } from "./sightings.ts";

const NOT_AN_OBJECT = { error: "must be a JSON object" };

export const sessionSchema = z
  .object(
    {
      session_id: identifier().meta({
        description:
          "Unique identifier of the session, made by the SDK when it starts. A retry sends the " +
          "same id.",
        example: "01J8Z3K4M5N6P7Q8R9S0T1V2W3",
      }),
      service_id: serviceIdField(),
      started_at: dateTime().meta({
        description:
          "When the session started (the app's launch, or its return to the foreground), ISO " +
          "8601 with a UTC offset or Z; the same window as an event's `event_time`.",
        example: "2026-09-17T08:30:00.000Z",
      }),
    },
    NOT_AN_OBJECT,
  )
  .meta({ id: "Session", description: "A session of an install, as the SDK reports it." });

const SESSIONS_COUNT_RULE = `must be a list of 1 to ${INGEST_LIMITS.maxEventsPerRequest} sessions`;

const sessionsEnvelope = <T extends z.ZodType>(session: T) =>
  z.object(
    {
      sent_at: dateTime()
        .nullish()
        .meta({
          description:
            "The device's clock when this request was sent (set on each attempt), which reads " +
            "each `started_at` on the service's clock, as for events.",
          example: "2026-09-17T08:30:02Z",
        }),
      sessions: z
        .array(session, {
          error: (issue) => (issue.input === undefined ? "is required" : SESSIONS_COUNT_RULE),
        })
        .min(1, { error: SESSIONS_COUNT_RULE })
        .max(INGEST_LIMITS.maxEventsPerRequest, { error: SESSIONS_COUNT_RULE }),
    },
    NOT_AN_OBJECT,
  );

/** The `POST /v1/sessions` body, for documentation: the envelope below is what is parsed. */
export const sessionsRequestSchema = sessionsEnvelope(sessionSchema).meta({
  id: "SessionsRequest",
  description: "A batch of sessions; each gets its own verdict in the answer.",
});

/** The envelope alone: each session is judged on its own, and a bad one rejects it only. */
const envelopeSchema = sessionsEnvelope(z.unknown());

export interface SessionsAnswer {
  accepted: number;
  ignored: { index: number; session_id: string | null; reason: IgnoredReason; detail: string }[];
  rejected: {
    index: number;
    session_id: string | null;
    error: string;
    detail: string;
    /** True when the same session may succeed later unchanged: the SDK keeps it and retries. */
    retryable: boolean;
  }[];
}

interface ValidSession {
  readonly index: number;
  readonly sessionId: string;
  readonly serviceId: string;
  /** UTC with milliseconds, on the service's clock where the device's is off. */
  readonly startedAt: string;
}

type Verdict =
  | { readonly ok: true; readonly session: ValidSession }
  | { readonly ok: false; readonly rejected: SessionsAnswer["rejected"][number] };

const echoedSessionId = (raw: unknown): string | null => {
  const id =
    typeof raw === "object" && raw !== null && Object.hasOwn(raw, "session_id")
      ? (raw as Record<string, unknown>).session_id
      : undefined;
  return isIdentifier(id) ? id : null;
};

/** Each session's checked fields and time, on the service's clock. */
export const judgeSessions = (
  raw: readonly unknown[],
  options: { readonly now: Date; readonly sentAt: string | null },
): Verdict[] => {
  const nowMs = options.now.getTime();
  const offsetMs = deviceClockOffsetMs(options.now, options.sentAt);
  return Array.from(raw, (value, index): Verdict => {
    const reject = (detail: string): Verdict => ({
      ok: false,
      rejected: {
        index,
        session_id: echoedSessionId(value),
        error: UNPROCESSABLE,
        detail,
        retryable: false,
      },
    });
    const parsed = sessionSchema.safeParse(value);
    if (!parsed.success) return reject(formatIssues(parsed.error.issues, "session"));
    const startedMs = Date.parse(parsed.data.started_at);
    const serviceMs = startedMs + offsetMs;
    if (serviceMs - nowMs > INGEST_LIMITS.maxFutureSkewHours * HOUR_MS) {
      return reject(
        `started_at: is more than ${INGEST_LIMITS.maxFutureSkewHours} hours ahead of ${options.sentAt ? "sent_at" : "the server's clock"}`,
      );
    }
    if (nowMs - serviceMs > INGEST_LIMITS.maxEventAgeDays * DAY_MS) {
      return reject(
        `started_at: is more than ${INGEST_LIMITS.maxEventAgeDays} days ${options.sentAt ? "before sent_at" : "old"}; sessions that late are not accepted`,
      );
    }
    return {
      ok: true,
      session: {
        index,
        sessionId: parsed.data.session_id,
        serviceId: parsed.data.service_id,
        startedAt: new Date(keptDeviceTime(startedMs, offsetMs)).toISOString(),
      },
    };
  });
};

export interface SessionIngestionDeps {
  readonly apps: Pick<AppStore, "get">;
  readonly installs: Pick<InstallStore, "get">;
  readonly deletions: Pick<DeletionStore, "listByInstall">;
  readonly sessions: RecordStream;
  readonly countries: CountryResolver;
  /** Where the installs that send from each address are kept (./sightings.ts). */
  readonly sightings: Pick<AddressCrowds, "recordSightings">;
  readonly now?: () => Date;
}

export const createSessionIngestion = (deps: SessionIngestionDeps) => {
  const now = deps.now ?? (() => new Date());
  const sighted = createSightingHints(deps.sightings);
  const appOf = async (caller: Caller): Promise<App> => {
    const app = await deps.apps.get(caller.appId);
    if (!app) throw new UnauthorizedError();
    return app;
  };
  return {
    async recordSessions(caller: Caller, body: unknown): Promise<SessionsAnswer> {
      const app = await appOf(caller);
      const receivedAt = now();
      const envelope = envelopeSchema.safeParse(body);
      if (!envelope.success) throw new ValidationError(formatIssues(envelope.error.issues, "body"));
      const answer: SessionsAnswer = { accepted: 0, ignored: [], rejected: [] };
      const { sessions: raw, sent_at: sentAt } = envelope.data;
      if (!app.enabled) {
        answer.ignored = raw.map((value, index) => ({
          index,
          session_id: echoedSessionId(value),
          ...ignoredAs("app_disabled"),
        }));
        return answer;
      }
      const valid: ValidSession[] = [];
      for (const verdict of judgeSessions(raw, { now: receivedAt, sentAt: sentAt ?? null })) {
        if (verdict.ok) valid.push(verdict.session);
        else answer.rejected.push(verdict.rejected);
      }
      // Each install is looked up once, all at the same time, as for an events batch.
      const lookups = {
        installOf: (serviceId: string) => deps.installs.get(app.appId, serviceId),
        deletedOf: async (serviceId: string) =>
          (await deps.deletions.listByInstall(app.appId, serviceId)).length > 0,
      };
      const targets = new Map<string, Target>(
        await Promise.all(
          [...new Set(valid.map((session) => session.serviceId))].map(
            async (serviceId) => [serviceId, await installTarget(serviceId, lookups)] as const,
          ),
        ),
      );
      const country = deps.countries.countryOf(caller);
      const records: LakeRecord[] = [];
      /** The installs of the sessions stored, which send from the caller's address. */
      const sent: string[] = [];
      const receivedAtIso = receivedAt.toISOString();
      for (const session of valid) {
        const target = targets.get(session.serviceId);
        if (!target) throw new Error("a session's install was not resolved");
        if ("ignored" in target) {
          answer.ignored.push({
            index: session.index,
            session_id: session.sessionId,
            ...ignoredAs(target.ignored),
          });
        } else if ("detail" in target) {
          answer.rejected.push({ index: session.index, session_id: session.sessionId, ...target });
        } else {
          sent.push(session.serviceId);
          records.push({
            app_id: app.appId,
            service_id: session.serviceId,
            session_id: session.sessionId,
            started_at: session.startedAt,
            received_at: receivedAtIso,
            os: target.install.os,
            country,
          });
        }
      }
      // One put: every accepted session is stored, or the request fails and is sent again whole.
      if (records.length > 0) {
        await Promise.all([
          deps.sessions.put(records),
          sighted(app.appId, caller.sourceIp, sent, receivedAt),
        ]);
      }
      answer.accepted = records.length;
      // The loop above adds the installs' refusals after those of the sessions' own fields.
      answer.rejected.sort((a, b) => a.index - b.index);
      return answer;
    },
  };
};
