/**
 * The postback routes' contracts: the partner catalog, an app's partner and webhook
 * configurations and settings, a test postback, and the delivery log.
 */
import * as z from "zod";
import { LOG_VERDICTS } from "../../ports/postbacks.ts";
import { customTemplateSchema } from "../../postbacks/config.ts";
import { LOG_PAGE_LIMITS } from "../../postbacks/configurations.ts";
import type { TestResult } from "../../postbacks/test-send.ts";
import {
  type CatalogPartnerAnswer,
  type DeliveryCountsAnswer,
  type DeliveryLogAnswer,
  type PartnerConfigAnswer,
  partnerRequestSchema,
  settingsRequestSchema,
  testRequestSchema,
  type WebhookAnswer,
  webhookRequestSchema,
} from "../../postbacks/wire.ts";
import { configIdParam, logQuery } from "../handlers/postbacks.ts";
import {
  INTERNAL,
  JSON_MEDIA_TYPE,
  NOT_JSON,
  OTHER_APP,
  type RouteContract,
  TOO_LARGE,
  tiedTo,
  UNKNOWN_PARAMETER,
  unauthorized,
} from "./shared.ts";

const described = <T extends z.ZodType>(schema: T, description: string) =>
  schema.meta({ description });

const catalogPartnerSchema = tiedTo<CatalogPartnerAnswer>()(
  z
    .strictObject({
      id: described(z.string(), "What a configuration's `partner` names."),
      name: z.string(),
      method: described(z.string(), "GET or POST."),
      installs: described(
        z.enum(["won", "all"]),
        "Which installs it expects unless the configuration says otherwise.",
      ),
      media_sources: described(
        z.array(z.string()),
        "The media sources whose installs are its wins, unless the configuration names others.",
      ),
      event_names: described(
        z.array(z.string()).nullable(),
        "The names an event may be mapped to; null: any.",
      ),
      takes_installs: z.boolean(),
      takes_events: z.boolean(),
      values: described(
        z.array(
          z.strictObject({
            name: z.string(),
            label: z.string(),
            secret: z.boolean(),
            kind: z.enum(["text", "url"]),
            description: z.string(),
          }),
        ),
        "The values the advertiser gives: the network's ids and keys.",
      ),
      macros: described(z.array(z.string()), "The macros its templates fill."),
      tcf_vendor_id: described(
        z.number().nullable(),
        "Its id on the IAB's Global Vendor List, whose consent in an install's TCF string it needs; null where the catalog does not know it.",
      ),
      sources: described(z.array(z.string()), "The public pages its templates follow."),
      notes: z.string(),
    })
    .meta({ id: "CatalogPartner" }),
);

const catalogSchema = z
  .strictObject({
    data: z.array(catalogPartnerSchema),
    macros: z.array(
      z.strictObject({
        name: z.string(),
        kind: z.enum(["text", "number"]),
        of: z.enum(["install", "event", "any"]),
        description: z.string(),
      }),
    ),
  })
  .meta({ id: "PartnerCatalog" });

const mappingSchema = z.strictObject({ name: z.string(), revenue: z.boolean() });

const partnerConfigSchema = tiedTo<PartnerConfigAnswer>()(
  z
    .strictObject({
      id: z.string(),
      partner: z.string(),
      template: described(
        customTemplateSchema.nullable(),
        "A custom partner's template, the value of every credential-named query key in its URLs and every credential-named header masked (`***`); null for a catalog one. Sent back masked as shown, a masked part keeps the stored one.",
      ),
      media_sources: z.array(z.string()),
      values: described(
        z.record(z.string(), z.string()),
        "The values that are not secret, in clear but for a URL's credential-named query values (`?key=***`). A value named like a credential, or placed under a credential-named header, query or body key, is secret: sealed on save, and shown as `***` if saved in clear before. Sent back masked as shown, a value keeps the stored one.",
      ),
      sealed_values: described(
        z.array(z.string()),
        "The names of the secret values saved: they are never shown.",
      ),
      secret_values: z.array(z.string()),
      installs: z.enum(["won", "all"]),
      events: z.record(z.string(), mappingSchema),
      event_window_days: z.number(),
      tcf_vendor_id: described(
        z.number().nullable(),
        "The partner's id on the IAB's Global Vendor List: an install whose TCF string gives it no consent is not reported to it; null for none.",
      ),
      enabled: z.boolean(),
      updated_at: z.iso.datetime(),
    })
    .meta({ id: "PartnerConfig", description: "A partner configuration, without its secrets." }),
);

const webhookSchema = tiedTo<WebhookAnswer>()(
  z
    .strictObject({
      id: z.string(),
      url: described(
        z.string(),
        "The URL, the value of every credential-named query key masked (`access_token=***`).",
      ),
      enabled: z.boolean(),
      updated_at: z.iso.datetime(),
      secret: described(
        z.string(),
        "The signing secret (`whsec_…`): only in the answer that made it. Keep it on the app's backend to verify `X-Attribution-Signature`.",
      ).optional(),
    })
    .meta({ id: "Webhook" }),
);

const settingsSchema = settingsRequestSchema;

const countsSchema = tiedTo<DeliveryCountsAnswer>()(
  z
    .strictObject({
      day: z.string().meta({ example: "2026-11-29" }),
      config_id: z.string(),
      partner: z.string(),
      delivered: z.number(),
      retry: z.number(),
      failed: z.number(),
      skipped: described(
        z.number(),
        "Sends skipped (nothing sent: docs/postbacks.md#skipped-sends), apart from the failures.",
      ),
    })
    .meta({ id: "DeliveryCounts", description: "One day's attempts of one configuration." }),
);

const listSchema = z
  .strictObject({
    partners: z.array(partnerConfigSchema),
    webhooks: z.array(webhookSchema),
    settings: settingsSchema,
    counts: described(
      z.array(countsSchema),
      "The delivery log's attempts of the last 30 days, per day and configuration, by verdict.",
    ),
  })
  .meta({ id: "Postbacks" });

const testResultSchema = tiedTo<TestResult>()(
  z
    .strictObject({
      request: z.strictObject({
        method: z.string(),
        url: described(z.string(), "As sent, its secret values masked (`***`)."),
        headers: z.record(z.string(), z.string()),
        body: z.string().nullable(),
      }),
      response: z.strictObject({
        status: described(z.number().nullable(), "Null when there was no answer."),
        body: described(z.string().nullable(), "The answer's first KiB."),
        error: described(
          z.string().nullable(),
          "Why there was no usable answer: a time-out, a connection error, a redirect not followed, an address refused.",
        ),
      }),
      verdict: described(
        z.enum(["delivered", "retry", "failed"]),
        "What a real send would do after this answer.",
      ),
      warnings: described(
        z.array(z.string()),
        "What real sends would meet that the test's sample install (consent given, an all-zero advertising id) does not: a partner that matches on the advertising id skips every real install with none to share.",
      ),
    })
    .meta({ id: "PostbackTestResult" }),
);

const logEntrySchema = tiedTo<DeliveryLogAnswer>()(
  z
    .strictObject({
      time: z.iso.datetime(),
      send_id: described(z.string(), "The same on every attempt of one send."),
      config_id: z.string(),
      target: z.enum(["partner", "webhook"]),
      partner: described(z.string(), "The catalog partner's id, `custom`, or `webhook`."),
      kind: z.enum(["install", "event"]),
      service_id: z.string(),
      event_id: z.string().nullable(),
      method: z.string(),
      url: described(z.string(), "As sent, its secret values masked; empty for a skipped send."),
      status: z.number().nullable(),
      answer: described(z.string().nullable(), "The answer's first KiB."),
      error: z.string().nullable(),
      attempt: described(
        z.number(),
        "1 to 5 for a partner, 1 to 10 for a webhook; for a skipped send, the attempt it took the place of.",
      ),
      retry: z.boolean(),
      verdict: described(
        z.enum(LOG_VERDICTS),
        "`skipped`: no request was made, for the `reason` given.",
      ),
      final: z.boolean(),
      reason: described(
        z.string().nullable(),
        "Why a send was skipped (`no_consent`, `not_won`, `missing:advertising_id`, …: docs/postbacks.md#skipped-sends); null for an attempt made.",
      ),
    })
    .meta({ id: "DeliveryAttempt" }),
);

const logPageSchema = z
  .strictObject({
    data: described(z.array(logEntrySchema), "Attempts, newest first."),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: "DeliveryLogPage" });

const configParams = z.object({
  config_id: configIdParam.meta({
    description: "The configuration's id, chosen by the owner: 1 to 64 of A-Z, a-z, 0-9, _, -.",
    example: "examplenet",
  }),
});

const BAD_ID = "The config_id is not 1 to 64 of A-Z, a-z, 0-9, _ or -.";
const NO_CONFIG = "The app has no such configuration.";
const UNSAFE =
  "the URL is not https or leads to a loopback, private, link-local, carrier-NAT or metadata address";

export const POSTBACK_CONTRACTS = {
  "list-partners": {
    summary: "List the partner catalog",
    description:
      "The ad networks whose postback templates the service knows, what each needs from the advertiser, and the macros a custom template may use.",
    success: {
      status: 200,
      description: "The catalog.",
      content: { [JSON_MEDIA_TYPE]: catalogSchema },
    },
    errors: { 401: unauthorized("postbacks"), 500: INTERNAL },
  },
  "list-postbacks": {
    summary: "List the app's postbacks",
    description:
      "The app's partner configurations and webhooks (secrets never shown), its postback settings, and the delivery log's counts of the last 30 days.",
    success: {
      status: 200,
      description: "The configurations.",
      content: { [JSON_MEDIA_TYPE]: listSchema },
    },
    errors: { 401: unauthorized("postbacks"), 500: INTERNAL },
  },
  "put-partner-postback": {
    summary: "Save a partner configuration",
    description:
      "Creates or replaces a partner configuration: a catalog partner or a custom template, the advertiser's values (secret ones sealed), which installs go, the event mapping, the window, on or off. A secret value already saved may be left out to keep it. Every URL must be https and lead to public addresses.",
    request: {
      params: configParams,
      body: { description: "The configuration, whole.", schema: partnerRequestSchema },
    },
    success: {
      status: 200,
      description: "The configuration as saved.",
      content: { [JSON_MEDIA_TYPE]: partnerConfigSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("postbacks"),
      413: TOO_LARGE,
      422: `${BAD_ID} Or the body breaks a rule (the detail names the field), or ${UNSAFE}.`,
      500: INTERNAL,
    },
  },
  "delete-partner-postback": {
    summary: "Delete a partner configuration",
    description: "Its sends not yet made are skipped; its log stays for 30 days.",
    request: { params: configParams },
    success: { status: 204, description: "Deleted." },
    errors: { 401: unauthorized("postbacks"), 404: NO_CONFIG, 422: BAD_ID, 500: INTERNAL },
  },
  "test-partner-postback": {
    summary: "Send a test postback",
    description:
      "Sends one postback of the configuration (on or off) for a sample install or event whose ids are all zero, and answers the request as sent and the partner's answer. Nothing is logged or counted.",
    request: {
      params: configParams,
      body: { description: "What to send; every field optional.", schema: testRequestSchema },
    },
    success: {
      status: 200,
      description: "What was sent and what came back, whatever the partner answered.",
      content: { [JSON_MEDIA_TYPE]: testResultSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("postbacks"),
      404: NO_CONFIG,
      413: TOO_LARGE,
      422: `${BAD_ID} Or the body breaks a rule, or the configuration cannot make such a postback (no event mapped, no event template).`,
      500: INTERNAL,
    },
  },
  "put-webhook": {
    summary: "Save a webhook",
    description:
      "Creates or changes a webhook of the app's own backend. A new one, or one saved with `rotate_secret`, gets a signing secret shown in this answer only; a rotated secret still signs beside the new one for 24 hours (docs/postbacks.md#webhooks-and-verifying-them).",
    request: {
      params: configParams,
      body: { description: "The webhook.", schema: webhookRequestSchema },
    },
    success: {
      status: 200,
      description: "The webhook as saved, with its secret when one was made.",
      content: { [JSON_MEDIA_TYPE]: webhookSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("postbacks"),
      413: TOO_LARGE,
      422: `${BAD_ID} Or the body breaks a rule, or ${UNSAFE}.`,
      500: INTERNAL,
    },
  },
  "delete-webhook": {
    summary: "Delete a webhook",
    description: "Its deliveries not yet made are skipped; its log stays for 30 days.",
    request: { params: configParams },
    success: { status: 204, description: "Deleted." },
    errors: { 401: unauthorized("postbacks"), 404: NO_CONFIG, 422: BAD_ID, 500: INTERNAL },
  },
  "test-webhook": {
    summary: "Send a test webhook delivery",
    description:
      "Sends one signed delivery of a sample install or event to the webhook, and answers the request and the answer. Nothing is logged or counted.",
    request: {
      params: configParams,
      body: { description: "What to send; every field optional.", schema: testRequestSchema },
    },
    success: {
      status: 200,
      description: "What was sent and what came back.",
      content: { [JSON_MEDIA_TYPE]: testResultSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("postbacks"),
      404: NO_CONFIG,
      413: TOO_LARGE,
      422: `${BAD_ID} Or the body breaks a rule.`,
      500: INTERNAL,
    },
  },
  "put-postback-settings": {
    summary: "Save the app's postback settings",
    description:
      "Whether device data of an install whose user was never asked may go to ad networks.",
    request: { body: { description: "The settings.", schema: settingsRequestSchema } },
    success: {
      status: 200,
      description: "The settings as saved.",
      content: { [JSON_MEDIA_TYPE]: settingsSchema },
    },
    errors: {
      400: NOT_JSON,
      401: unauthorized("postbacks"),
      413: TOO_LARGE,
      422: "The body breaks a rule (the detail names the field).",
      500: INTERNAL,
    },
  },
  "postback-log": {
    summary: "Read the delivery log",
    description:
      "Every attempt of the app's postbacks and webhooks of the last 30 days, newest first: its URL (secrets masked), status, the answer's first KiB, error and attempt number; and every send skipped, with why.",
    request: { query: logQuery },
    success: {
      status: 200,
      description: "A page of attempts.",
      content: { [JSON_MEDIA_TYPE]: logPageSchema },
    },
    errors: {
      401: unauthorized("postbacks"),
      404: OTHER_APP,
      422: `\`limit\` is not from 1 to ${LOG_PAGE_LIMITS.maxLimit}, or \`cursor\` is not a page's \`next_cursor\`. ${UNKNOWN_PARAMETER}`,
      500: INTERNAL,
    },
  },
} as const satisfies Record<string, RouteContract>;
