/** The ingestion routes' contracts: installs, and events from the SDK and from servers. */
import * as z from "zod";
import type { Scope } from "../../domain/keys.ts";
import { eventsRequestSchema, s2sEventsRequestSchema } from "../../ingest/event-schema.ts";
import { IGNORED_REASONS } from "../../ingest/ignored.ts";
import { installRequestSchema } from "../../ingest/install.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import type { createIngestion, EventsAnswer } from "../../ingest/service.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  NOT_JSON,
  type RouteContract,
  TOO_LARGE,
  tiedTo,
  unauthorized,
} from "./shared.ts";

type InstallAnswer = Awaited<ReturnType<ReturnType<typeof createIngestion>["recordInstall"]>>;

export const installAnswerSchema = tiedTo<InstallAnswer>()(
  z
    .strictObject({
      service_id: installRequestSchema.shape.service_id.meta({
        description: "The install's service_id, as sent.",
      }),
    })
    .meta({
      id: "InstallAnswer",
      description:
        "The install is recorded (or was already: a repeat changes nothing but the consent " +
        "and device tracking it carries), also while the " +
        "app is switched off in its remote configuration, whose events are then not stored. " +
        "The same answer for an install whose data was deleted on request, which is not " +
        "stored again.",
    }),
);

/**
 * A batch's verdicts on its items (events, sessions), each named by its index and id: what a
 * 202 answer of an ingestion route lists, one shape for every kind of item.
 */
export const batchVerdicts = <Id extends string>(item: {
  /** `event`, `session`. */
  readonly noun: string;
  readonly id: Id;
  /** The `reason` of an ignored item, for the SDK. */
  readonly reasons: string;
  /** The `error` of a refused item. */
  readonly errors: string;
  readonly example: { readonly error: string; readonly detail: string };
}) => {
  const { noun } = item;
  const nouns = `${noun.charAt(0).toUpperCase()}${noun.slice(1)}s`;
  const fields = {
    index: z
      .int()
      .min(0)
      .meta({
        description: `The ${noun}'s position in the request's \`${noun}s\` list, from 0.`,
        example: 0,
      }),
    [item.id]: z
      .string()
      .nullable()
      .meta({
        description: `The ${noun}'s \`${item.id}\`, or null when it did not carry a valid one.`,
        example: "01J8Z3K4M5N6P7Q8R9S0T1V2W3",
      }),
  } as { index: z.ZodInt } & Record<Id, z.ZodNullable<z.ZodString>>;
  return {
    fields,
    ignored: z
      .array(
        z.strictObject({
          ...fields,
          reason: z
            .enum(IGNORED_REASONS)
            .meta({ description: `Why, for the SDK: ${item.reasons}`, example: "app_disabled" }),
          detail: z.string().meta({ description: "Why, in words." }),
        }),
      )
      .meta({ description: `${nouns} dropped without an error: do not send them again.` }),
    rejected: z
      .array(
        z.strictObject({
          ...fields,
          error: z.string().meta({ description: item.errors, example: item.example.error }),
          detail: z.string().meta({
            description: `What is wrong with the ${noun}, naming the field.`,
            example: item.example.detail,
          }),
          retryable: z.boolean().meta({
            description:
              `True when the same ${noun} may succeed later unchanged (its install is not ` +
              "recorded yet): keep it and send it again. False: it fails the same way every time.",
          }),
        }),
      )
      .meta({
        description: `${nouns} refused, in index order; the others were still stored.`,
      }),
  };
};

const eventVerdicts = batchVerdicts({
  noun: "event",
  id: "event_id",
  reasons:
    "`install_event` (installs are reported through POST /v1/installs; a CUSTOM event named " +
    "Install is one too), `app_disabled` (the app is switched off in its remote " +
    "configuration), `install_deleted` (the install's data was deleted on request, DELETE " +
    "/v1/installs/{service_id}), `duplicate_event` (an event of the same install and " +
    "`event_id` came earlier in the request).",
  errors:
    "`Unprocessable Entity` for an event that breaks a rule; `Conflict` (retryable) for an SDK " +
    "event whose install is not recorded yet, or a server's event whose `customer_user_id` no " +
    "install has sent yet.",
  example: { error: "Unprocessable Entity", detail: "event_time: is required" },
});

export const eventsAnswerSchema = tiedTo<EventsAnswer>()(
  z
    .strictObject({
      accepted: z.int().min(0).meta({
        description: "How many events were stored. They reach the export within minutes.",
        example: 1,
      }),
      ignored: eventVerdicts.ignored,
      rejected: eventVerdicts.rejected,
      warnings: z
        .array(
          z.strictObject({
            ...eventVerdicts.fields,
            detail: z.string().meta({
              description:
                "What of the event was not kept as sent, each part separated by `; `: unknown " +
                "keys ignored, a PII value dropped (not normalisable, or empty once " +
                "normalised), revenue without a currency kept as a plain parameter.",
              example:
                "parameters.revenue was not recorded as revenue: parameters.currency (ISO 4217, " +
                "e.g. USD) is missing",
            }),
          }),
        )
        .meta({
          description:
            "Accepted events, in index order, of which something was not kept as sent. They " +
            "are stored and counted in `accepted`: do not send them again.",
        }),
    })
    .meta({
      id: "EventsAnswer",
      description:
        "One verdict per event of the request: counted as accepted, or listed by index as " +
        "ignored or rejected. An accepted event may also be listed under warnings.",
    }),
);

/** The two event routes share their shape: each event's verdict in a 202 answer. */
const eventsContract = (route: {
  summary: string;
  description: string;
  scope: Scope;
  schema: z.ZodType;
}): RouteContract => ({
  summary: route.summary,
  description: route.description,
  request: { body: { description: "The events.", schema: route.schema } },
  success: {
    status: 202,
    description: "Each event's verdict.",
    content: { [JSON_MEDIA_TYPE]: eventsAnswerSchema },
  },
  errors: {
    400: NOT_JSON,
    401: unauthorized(route.scope),
    413: TOO_LARGE,
    422:
      "The envelope is wrong: the body is not a JSON object, or `events` is not a list of 1 " +
      `to ${INGEST_LIMITS.maxEventsPerRequest} events. A bad event alone does not fail the ` +
      "request: it is rejected in the 202 answer.",
    500: INTERNAL,
  },
});

export const INGEST_CONTRACTS = {
  installs: {
    summary: "Record an install's first open",
    description:
      "Sent once by the SDK, on the app's first open on the device. Idempotent on " +
      "`service_id`: a repeat answers the same and changes nothing (the first report wins), " +
      "but for the consent it carries, which replaces the install's with the device's " +
      "tracking (`maid`, `att_status`) when either differs, as POST " +
      "/v1/installs/{service_id}/consent would: an SDK whose first report went unanswered " +
      "sends it again holding the consent as it now stands. " +
      "Send it before the install's events: an event of an install not recorded yet is " +
      "rejected as retryable. Unknown keys are ignored; null is the same as absent.",
    request: {
      body: {
        description: "The install and its device signals.",
        schema: installRequestSchema.meta({ id: "InstallRequest" }),
      },
    },
    success: {
      status: 202,
      description: "Recorded (or already recorded).",
      content: { [JSON_MEDIA_TYPE]: installAnswerSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("ingest"),
      413: TOO_LARGE,
      422:
        "The body breaks a rule; the detail names each field at fault (`body.os: must be one " +
        `of android, ios\`). Also a \`first_open_time\` more than ${INGEST_LIMITS.maxFutureSkewHours} ` +
        "hours ahead of the server's clock.",
      500: INTERNAL,
    },
  },
  events: eventsContract({
    summary: "Send events from the SDK",
    description:
      `A batch of 1 to ${INGEST_LIMITS.maxEventsPerRequest} events of installs recorded ` +
      "through POST /v1/installs. The envelope is checked as a whole (422); then each event " +
      "on its own, and the 202 answer counts the accepted ones and lists the ignored and " +
      "rejected ones by index. A 202 is durable. Delivery is at least once: a request that " +
      "failed can be sent again whole, and the export removes the duplicates a retry makes " +
      "(the same `event_id` of the same install). Unknown keys are ignored; null is the same as " +
      "absent.",
    scope: "ingest",
    schema: eventsRequestSchema.meta({ id: "EventsRequest" }),
  }),
  "s2s-events": eventsContract({
    summary: "Send events from the app's server",
    description:
      "As POST /v1/events, with a server key. Each event names its user by " +
      "`customer_user_id` (the id the app set through the SDK), which the service resolves to " +
      "the install that last sent events under it; `service_id` is not allowed. An event " +
      "whose `customer_user_id` no install has sent yet is rejected as `Conflict`, retryable: " +
      "sent again once the app has sent an event with the id, it is taken. The event's country is " +
      "the install's, not the calling server's.",
    scope: "s2s",
    schema: s2sEventsRequestSchema.meta({ id: "S2sEventsRequest" }),
  }),
} as const satisfies Record<string, RouteContract>;
