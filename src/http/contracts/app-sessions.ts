/** The contract of `POST /v1/sessions`: the SDKs' sessions, each with its verdict. */
import * as z from "zod";
import { SESSION_INTERVAL_SECONDS } from "../../apps/app-config.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import { type SessionsAnswer, sessionsRequestSchema } from "../../ingest/sessions.ts";
import { batchVerdicts } from "./ingest.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  NOT_JSON,
  type RouteContract,
  TOO_LARGE,
  tiedTo,
  unauthorized,
} from "./shared.ts";

const sessionVerdicts = batchVerdicts({
  noun: "session",
  id: "session_id",
  reasons: "`app_disabled` or `install_deleted`, as for events.",
  errors:
    "`Unprocessable Entity` for a session that breaks a rule; `Conflict` for one whose install " +
    "is not recorded yet.",
  example: { error: "Conflict", detail: "started_at: is required" },
});

export const sessionsAnswerSchema = tiedTo<SessionsAnswer>()(
  z
    .strictObject({
      accepted: z.int().min(0).meta({ description: "How many sessions were stored.", example: 1 }),
      ignored: sessionVerdicts.ignored,
      rejected: sessionVerdicts.rejected,
    })
    .meta({
      id: "SessionsAnswer",
      description:
        "One verdict per session: counted as accepted, or listed as ignored or rejected.",
    }),
);

export const APP_SESSION_CONTRACTS = {
  "app-sessions": {
    summary: "Report sessions from the SDK",
    description:
      "The SDK reports a session when the app starts and when it returns to the foreground " +
      `after at least \`session_interval_seconds\` away (the remote configuration's, ${SESSION_INTERVAL_SECONDS} ` +
      `by default), ${INGEST_LIMITS.maxEventsPerRequest} at most per request. Sessions feed ` +
      "retention and active users; they are kept apart from events and are not in the export. " +
      "A retry sends the same `session_id`s; the reports count days, so a duplicate changes " +
      "nothing. Unknown keys are ignored; null is the same as absent.",
    request: {
      body: {
        description: "The sessions.",
        schema: sessionsRequestSchema,
      },
    },
    success: {
      status: 202,
      description: "Each session's verdict.",
      content: { [JSON_MEDIA_TYPE]: sessionsAnswerSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("ingest"),
      413: TOO_LARGE,
      422:
        "The envelope is wrong: the body is not a JSON object, or `sessions` is not a list of " +
        `1 to ${INGEST_LIMITS.maxEventsPerRequest} sessions. A bad session alone is rejected in ` +
        "the 202 answer.",
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
