/**
 * Postback configurations as the API, the CLI and the dashboard carry them: request bodies in
 * the API's snake_case, mapped onto the configuration schemas (./config.ts), whose problems are
 * named by the body's own field names; and the answers, which never hold a secret value (a
 * sealed value is named, never shown; a webhook's secret is shown once, when it is made) nor a
 * credential in a URL, a header or a value (masked, `***`, as the delivery log masks them:
 * everyone who may read an app's postbacks sees the answers, viewers included). A masked value
 * sent back as it was shown keeps the stored one.
 */
import * as z from "zod";
import { ValidationError } from "../domain/errors.ts";
import { OS_VALUES } from "../domain/install-facts.ts";
import { withoutProtoKey } from "../ingest/fields.ts";
import type {
  DeliveryCounts,
  DeliveryLogEntry,
  LogVerdict,
  PostbackSettings,
  StoredPartnerConfig,
  StoredWebhookConfig,
} from "../ports/postbacks.ts";
import { checked, formatIssues } from "../validation/issues.ts";
import {
  type CustomTemplate,
  credentialNamesOf,
  customTemplateSchema,
  isHttpUrl,
  type PartnerConfig,
  partnerConfigSchema,
} from "./config.ts";
import { INSTALL_SCOPES, PARTNERS, type PartnerTemplate, requestFor } from "./partners.ts";
import {
  credentialSegmentsOf,
  isCredentialName,
  MASK,
  maskBodyCredentials,
  maskUrl,
  textsUnderCredentials,
} from "./retries.ts";
import { MACROS, macrosIn, ownText } from "./templates.ts";

const mappingRequest = z.strictObject({
  name: z.string().meta({ description: "The partner's name for the event.", example: "purchase" }),
  revenue: z.boolean().optional().meta({
    description: "Whether the event's revenue and currency go with it (false unless set).",
  }),
});

/** `PUT /v1/postbacks/partners/{config_id}`: a partner configuration, whole. */
export const partnerRequestSchema = z
  .strictObject({
    partner: z.string().meta({
      description: `A catalog partner's id (${PARTNERS.map((p) => p.id).join(", ")}), or \`custom\` with a \`template\`.`,
      example: "generic",
    }),
    template: customTemplateSchema.nullish().meta({
      description:
        "A custom partner's template: `method`, and an `install` and/or `event` request, each a `url` with macros, optional `headers` and, for POST, a JSON `body` (docs/postbacks.md#templates-and-macros).",
    }),
    media_sources: z
      .array(z.string())
      .optional()
      .meta({
        description:
          "The media sources whose installs are this partner's wins; the catalog's when left out.",
        example: ["examplenet_int"],
      }),
    values: z
      .record(z.string(), z.string())
      .optional()
      .meta({
        description:
          "The advertiser's values the template names (`{partner.<name>}`): ids, keys, an endpoint. A secret value already saved may be left out to keep it.",
        example: { endpoint: "https://postbacks.example.net/install" },
      }),
    secret_values: z.array(z.string()).optional().meta({
      description:
        "Which values are secret, besides those the catalog marks so: kept sealed, masked in the log, never shown again.",
    }),
    installs: z.enum(INSTALL_SCOPES).optional().meta({
      description:
        "`won`: only the installs the partner's media sources won; `all`: every install (\"send all\"). The catalog's when left out.",
    }),
    // `__proto__` refused, not dropped: an object would take it as its prototype.
    events: withoutProtoKey(z.record(z.string(), mappingRequest))
      .optional()
      .meta({
        description:
          "Our event name as the export's `event_name` gives it (`service_` and the event in snake case: `service_purchase`, a CUSTOM event's `service_<name in snake_case>`; not `service_install`, which is the install's) to the partner's; a key in another form is refused (422). An unmapped event is not sent.",
        example: { service_purchase: { name: "purchase", revenue: true } },
      }),
    event_window_days: z.number().optional().meta({
      description: "How many days after the install an event still goes; 180 unless set.",
      example: 180,
    }),
    tcf_vendor_id: z.number().nullable().optional().meta({
      description:
        "The partner's id on the IAB's Global Vendor List (1 to 65535): an install whose consent platform's TCF string gives that vendor no consent is not reported to it (docs/postbacks.md#consent). The catalog's when left out (Google Ads: 755); null for none.",
      example: 755,
    }),
    enabled: z.boolean().optional().meta({ description: "On unless set.", example: true }),
  })
  .meta({ id: "PartnerConfigRequest" });
export type PartnerRequest = z.output<typeof partnerRequestSchema>;

/** The body's names of the configuration's fields, for the problems' paths. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  mediaSources: "media_sources",
  secretValues: "secret_values",
  eventWindowDays: "event_window_days",
  tcfVendorId: "tcf_vendor_id",
};

/** A body's partner configuration for the app, its problems named by the body's fields. */
export const partnerConfigFrom = (
  appId: string,
  id: string,
  body: PartnerRequest,
  kept: Readonly<Record<string, string>> = {},
): PartnerConfig => {
  const parsed = partnerConfigSchema.safeParse({
    id,
    appId,
    partner: body.partner,
    template: body.template,
    mediaSources: body.media_sources,
    values: { ...kept, ...body.values },
    secretValues: body.secret_values,
    installs: body.installs,
    events: body.events,
    eventWindowDays: body.event_window_days,
    tcfVendorId: body.tcf_vendor_id,
    enabled: body.enabled,
  });
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const [first, ...rest] = issue.path;
    const renamed = typeof first === "string" ? (WIRE_NAMES[first] ?? first) : first;
    return { ...issue, path: renamed === undefined ? [] : [renamed, ...rest] };
  });
  throw new ValidationError(formatIssues(issues, "body"));
};

/** `PUT /v1/postbacks/webhooks/{config_id}`. */
export const webhookRequestSchema = z
  .strictObject({
    url: z.string().meta({
      description:
        "The https URL of the app's backend that receives the deliveries. Answers give it with " +
        "its secrets masked (an access_token's value, say); sent back as answered, masked, it " +
        "keeps the stored URL.",
      example: "https://api.example.com/attribution-webhook",
    }),
    enabled: z.boolean().optional().meta({ description: "On unless set.", example: true }),
    rotate_secret: z.boolean().optional().meta({
      description:
        "Makes a new signing secret, shown in this answer only. A new webhook always gets one.",
    }),
  })
  .meta({ id: "WebhookRequest" });
export type WebhookRequest = z.output<typeof webhookRequestSchema>;

/** `PUT /v1/postbacks/settings`. */
export const settingsRequestSchema = z
  .strictObject({
    share_device_data_without_consent: z.boolean().meta({
      description:
        "Whether device ids and the address of an install whose user was never asked about ad user data may go to ad networks: the owner's decision under the app's own consent flow. A user who said no is never shared.",
      example: false,
    }),
  })
  .meta({ id: "PostbackSettings" });

export const settingsFrom = (body: z.output<typeof settingsRequestSchema>): PostbackSettings => ({
  shareDeviceDataWithoutConsent: body.share_device_data_without_consent,
});

export const settingsAnswer = (settings: PostbackSettings) => ({
  share_device_data_without_consent: settings.shareDeviceDataWithoutConsent,
});

/** `POST /v1/postbacks/{partners|webhooks}/{config_id}/test`. */
export const testRequestSchema = z
  .strictObject({
    kind: z
      .enum(["install", "event"])
      .default("install")
      .meta({ description: "What the sample is: an install, or one of its events." }),
    platform: z.enum(OS_VALUES).optional().meta({
      description: "The sample install's platform; the app's (Android for both) when left out.",
    }),
    event_name: z.string().max(200).optional().meta({
      description:
        "For an event: our event name (`service_purchase`); the first mapped event when left out.",
    }),
  })
  .meta({ id: "PostbackTestRequest" });

export const parseTestRequest = (body: unknown) => checked(testRequestSchema, body ?? {}, "body");

/** A partner configuration as answered: its secret values named, never shown. */
export interface PartnerConfigAnswer {
  readonly id: string;
  readonly partner: string;
  /** A custom partner's, its credentials masked; null for a catalog one. */
  readonly template: CustomTemplate | null;
  readonly media_sources: string[];
  readonly values: Readonly<Record<string, string>>;
  readonly sealed_values: string[];
  readonly secret_values: string[];
  readonly installs: "won" | "all";
  readonly events: Readonly<Record<string, { readonly name: string; readonly revenue: boolean }>>;
  readonly event_window_days: number;
  readonly tcf_vendor_id: number | null;
  readonly enabled: boolean;
  readonly updated_at: string;
}

/**
 * A URL as answered: the value of every query key named like a credential masked, and every
 * path segment that reads as one. Sent back as answered, it stands for the stored URL.
 */
export const shownUrl = (url: string): string => maskUrl(url, credentialSegmentsOf(url));

/** A value as answered: a URL's credentials masked (an endpoint's `?key=`), any other as it is. */
const shownValue = (value: string): string => (isHttpUrl(value) ? shownUrl(value) : value);

/**
 * A stored configuration's values as answered: a credential (credentialNamesOf) masked whole,
 * as a credential header is; the others as shownValue shows them. A configuration saved since
 * keeps its credentials sealed, so they are not among them; one saved before kept them in clear.
 */
const shownValues = (stored: StoredPartnerConfig): Record<string, string> => {
  const credentials = new Set(
    credentialNamesOf({
      partner: stored.partner,
      // Stored from a checked configuration (./config.ts): a custom template, or null.
      template: (stored.template ?? null) as CustomTemplate | null,
      values: stored.values,
    }),
  );
  return Object.fromEntries(
    Object.entries(stored.values).map(([name, value]) => [
      name,
      credentials.has(name) && value !== "" ? MASK : shownValue(value),
    ]),
  );
};

/** A header's value as answered: masked whole when the header is named like a credential. */
const shownHeader = (name: string, value: string): string =>
  isCredentialName(name) && value !== "" ? MASK : value;

type RequestTemplate = NonNullable<CustomTemplate["install"]>;

/** A template's JSON body as answered: each text or number under a credential's key masked. */
const shownBody = (body: string | null | undefined): string | null | undefined =>
  typeof body === "string" ? maskBodyCredentials(body) : body;

const shownRequest = (request: RequestTemplate): RequestTemplate => ({
  ...request,
  url: shownUrl(request.url),
  headers: Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, shownHeader(name, value)]),
  ),
  ...(request.body === undefined ? {} : { body: shownBody(request.body) }),
});

/** A custom template as answered: its URLs', headers' and bodies' credentials masked. */
const shownTemplate = (template: unknown): CustomTemplate | null => {
  // Stored from a checked configuration (./config.ts): a custom template, or null.
  const custom = (template ?? null) as CustomTemplate | null;
  if (!custom) return null;
  return {
    ...custom,
    ...(custom.install ? { install: shownRequest(custom.install) } : {}),
    ...(custom.event ? { event: shownRequest(custom.event) } : {}),
  };
};

/** Whether a JSON body sends the mask (`***`) under a key named like a credential. */
const sendsBodyMask = (body: string): boolean => {
  try {
    return textsUnderCredentials(JSON.parse(body)).includes(MASK);
  } catch {
    return false;
  }
};

/**
 * Whether a URL sends the mask (`***`) where an answer puts it: as the value of a query key
 * named like a credential, as a path segment, or as its host's first label (shownUrl).
 */
export const sendsMask = (url: string): boolean => {
  const authority = url.indexOf("//");
  const rest = authority < 0 ? url : url.slice(authority + 2);
  const pathEnd = rest.search(/[?#]/);
  const hostAndPath = pathEnd < 0 ? rest : rest.slice(0, pathEnd);
  const [host = "", ...segments] = hostAndPath.split("/");
  if (host.split(".")[0] === MASK || segments.includes(MASK)) return true;
  return [...url.matchAll(/[?&]([^=&#]*)=\*\*\*(?=[&#]|$)/g)].some((match) => {
    try {
      return isCredentialName(decodeURIComponent((match[1] ?? "").replace(/\+/g, " ")));
    } catch {
      return isCredentialName(match[1] ?? "");
    }
  });
};

/**
 * Where a body, its masks restored (unmaskedPartnerRequest), still sends `***` as a credential:
 * a mask no stored value stands behind (the URL around it was edited, or the body is another
 * configuration's answer), which would go to the partner as it is.
 */
export const maskedLeft = (body: PartnerRequest): string[] => {
  // The body is checked after this (a value of another type is refused there, in its words):
  // only its texts are read here.
  const masks = (value: unknown) =>
    typeof value === "string" && (value === MASK || sendsMask(value));
  return [
    ...Object.entries(body.values ?? {}).flatMap(([name, value]) =>
      masks(value) ? [`values.${name}`] : [],
    ),
    ...(["install", "event"] as const).flatMap((kind) => {
      const request = body.template?.[kind];
      if (!request || typeof request !== "object") return [];
      const {
        url,
        headers,
        body: sentBody,
      } = request as {
        url?: unknown;
        headers?: unknown;
        body?: unknown;
      };
      return [
        ...(typeof url === "string" && sendsMask(url) ? [`template.${kind}.url`] : []),
        ...(typeof sentBody === "string" && sendsBodyMask(sentBody)
          ? [`template.${kind}.body`]
          : []),
        ...Object.entries(headers && typeof headers === "object" ? headers : {}).flatMap(
          ([name, value]) =>
            isCredentialName(name) && value === MASK ? [`template.${kind}.headers.${name}`] : [],
        ),
      ];
    }),
  ];
};

/**
 * A body with each masked value it sends back as answered (`shownValues`, `shownUrl`,
 * `shownHeader`) replaced by the stored one it stands for, and the paths of those replaced: a
 * client that sends back what it was shown (the dashboard's Edit form) does not save `***` in
 * place of a key. Only the same partner's stored values stand behind its masks.
 */
export const unmaskedPartnerRequest = (
  body: PartnerRequest,
  stored: StoredPartnerConfig | undefined,
): { readonly body: PartnerRequest; readonly restored: readonly string[] } => {
  if (!stored || stored.partner !== body.partner) return { body, restored: [] };
  const restored: string[] = [];
  const values = body.values && { ...body.values };
  const shown = shownValues(stored);
  for (const [name, value] of Object.entries(values ?? {})) {
    const kept = ownText(stored.values, name);
    if (values && kept !== undefined && value !== kept && value === ownText(shown, name)) {
      values[name] = kept;
      restored.push(`values.${name}`);
    }
  }
  const keptTemplate = (stored.template ?? null) as CustomTemplate | null;
  const unmask = (kind: "install" | "event"): RequestTemplate | null | undefined => {
    const sent = body.template?.[kind];
    const kept = keptTemplate?.[kind];
    if (!sent || !kept) return sent;
    let url = sent.url;
    if (url !== kept.url && url === shownUrl(kept.url)) {
      url = kept.url;
      restored.push(`template.${kind}.url`);
    }
    let sentBody = sent.body;
    if (
      typeof sentBody === "string" &&
      typeof kept.body === "string" &&
      sentBody !== kept.body &&
      sentBody === shownBody(kept.body)
    ) {
      sentBody = kept.body;
      restored.push(`template.${kind}.body`);
    }
    const headers = { ...sent.headers };
    for (const [name, value] of Object.entries(headers)) {
      const keptValue = ownText(kept.headers, name);
      if (
        keptValue !== undefined &&
        value !== keptValue &&
        value === shownHeader(name, keptValue)
      ) {
        headers[name] = keptValue;
        restored.push(`template.${kind}.headers.${name}`);
      }
    }
    return { ...sent, url, headers, ...(sentBody === sent.body ? {} : { body: sentBody }) };
  };
  const template = body.template && {
    ...body.template,
    install: unmask("install"),
    event: unmask("event"),
  };
  return {
    body: {
      ...body,
      ...(values ? { values } : {}),
      ...(body.template ? { template } : {}),
    },
    restored,
  };
};

export const partnerAnswer = (stored: StoredPartnerConfig): PartnerConfigAnswer => ({
  id: stored.id,
  partner: stored.partner,
  template: shownTemplate(stored.template),
  media_sources: [...stored.mediaSources],
  values: shownValues(stored),
  sealed_values: Object.keys(stored.sealedValues).sort(),
  secret_values: [...stored.secretValues],
  installs: stored.installs,
  events: stored.events,
  event_window_days: stored.eventWindowDays,
  tcf_vendor_id: stored.tcfVendorId,
  enabled: stored.enabled,
  updated_at: stored.updatedAt,
});

export interface WebhookAnswer {
  readonly id: string;
  readonly url: string;
  readonly enabled: boolean;
  readonly updated_at: string;
  /** The signing secret: in the answer that made it only. */
  readonly secret?: string;
}

/** A webhook as answered: its URL's credentials masked (`access_token=***`). */
export const webhookAnswer = (stored: StoredWebhookConfig, secret?: string): WebhookAnswer => ({
  id: stored.id,
  url: shownUrl(stored.url),
  enabled: stored.enabled,
  updated_at: stored.updatedAt,
  ...(secret === undefined ? {} : { secret }),
});

export interface DeliveryCountsAnswer {
  readonly day: string;
  readonly config_id: string;
  readonly partner: string;
  readonly delivered: number;
  readonly retry: number;
  readonly failed: number;
  readonly skipped: number;
}

export const countsAnswer = (counts: DeliveryCounts): DeliveryCountsAnswer => ({
  day: counts.day,
  config_id: counts.configId,
  partner: counts.partner,
  delivered: counts.delivered,
  retry: counts.retry,
  failed: counts.failed,
  skipped: counts.skipped,
});

export interface DeliveryLogAnswer {
  readonly time: string;
  readonly send_id: string;
  readonly config_id: string;
  readonly target: "partner" | "webhook";
  readonly partner: string;
  readonly kind: "install" | "event";
  readonly service_id: string;
  readonly event_id: string | null;
  readonly method: string;
  readonly url: string;
  readonly status: number | null;
  readonly answer: string | null;
  readonly error: string | null;
  readonly attempt: number;
  readonly retry: boolean;
  readonly verdict: LogVerdict;
  readonly final: boolean;
  readonly reason: string | null;
}

export const logEntryAnswer = (entry: DeliveryLogEntry): DeliveryLogAnswer => ({
  time: entry.time,
  send_id: entry.sendId,
  config_id: entry.configId,
  target: entry.target,
  partner: entry.partner,
  kind: entry.subject.kind,
  service_id: entry.subject.serviceId,
  event_id: entry.subject.eventId,
  method: entry.method,
  url: entry.url,
  status: entry.status,
  answer: entry.answer,
  error: entry.error,
  attempt: entry.attempt,
  retry: entry.retry,
  verdict: entry.verdict,
  final: entry.final,
  reason: entry.reason,
});

export interface CatalogPartnerAnswer {
  readonly id: string;
  readonly name: string;
  readonly method: string;
  readonly installs: "won" | "all";
  readonly media_sources: string[];
  readonly event_names: string[] | null;
  readonly takes_installs: boolean;
  readonly takes_events: boolean;
  readonly values: {
    readonly name: string;
    readonly label: string;
    readonly secret: boolean;
    readonly kind: "text" | "url";
    readonly description: string;
  }[];
  /** The macros its templates fill, on either platform. */
  readonly macros: string[];
  readonly tcf_vendor_id: number | null;
  readonly sources: string[];
  readonly notes: string;
}

const macrosOf = (partner: PartnerTemplate): string[] => {
  const names = new Set<string>();
  for (const kind of ["install", "event"] as const) {
    for (const platform of OS_VALUES) {
      const request = requestFor(partner, kind, platform);
      if (!request) continue;
      const texts = [request.url, ...Object.values(request.headers), request.body ?? ""];
      for (const text of texts) for (const name of macrosIn(text)) names.add(name);
    }
  }
  return [...names].sort();
};

export const catalogAnswer = (partner: PartnerTemplate): CatalogPartnerAnswer => ({
  id: partner.id,
  name: partner.name,
  method: partner.method,
  installs: partner.installs,
  media_sources: [...partner.mediaSources],
  event_names: partner.eventNames && [...partner.eventNames],
  takes_installs: partner.install !== null,
  takes_events: partner.event !== null,
  values: partner.values.map((value) => ({ ...value })),
  macros: macrosOf(partner),
  tcf_vendor_id: partner.tcfVendorId,
  sources: [...partner.sources],
  notes: partner.notes,
});

/** The catalog and the macros a custom template may use. */
export const catalogPage = () => ({
  data: PARTNERS.map(catalogAnswer),
  macros: MACROS.map((macro) => ({
    name: macro.name,
    kind: macro.kind,
    of: macro.of,
    description: macro.description,
  })),
});
