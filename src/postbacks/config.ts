/**
 * An app's postback and webhook configurations, as the owner gives them and as they are kept.
 *
 * A partner configuration names a catalog partner (./partners.ts) or writes a custom template,
 * gives the advertiser's values (a secret one is stored sealed, by the store, never in clear),
 * says which installs go (`won`: those its media sources won; `all`), maps our event names to
 * the partner's (an unmapped event is not sent), with revenue per mapped event on or off, and
 * how long after the install an event still goes (180 days unless set, AppsFlyer's default).
 *
 * The schema checks everything that can be checked without the network; the URL's addresses
 * are checked by url-safety's checkConfiguredUrl over endpointsOf, before saving.
 */
import * as z from "zod";
import { ValidationError } from "../domain/errors.ts";
import { exportEventName, toSnakeCase } from "../domain/event-types.ts";
import { checked } from "../validation/issues.ts";
import {
  CUSTOM_PARTNER,
  HTTP_METHODS,
  INSTALL_SCOPES,
  type InstallScope,
  PARTNERS,
  type PartnerTemplate,
  partnerById,
  requestFor,
  templateTexts,
} from "./partners.ts";
import {
  credentialSegmentsOf,
  isCredentialName,
  textsUnderCredentials,
  urlCredentialsOf,
} from "./retries.ts";
import {
  fillUrl,
  headerBoundPassed,
  isKnownMacro,
  LEADING_PARTNER_MACRO,
  macrosIn,
  ownText,
  partnerValuesIn,
} from "./templates.ts";
import { REQUEST_LIMITS } from "./url-safety.ts";

/** AppsFlyer's default in-app event window: an event this long after the install still goes. */
export const DEFAULT_EVENT_WINDOW_DAYS = 180;
export const EVENT_WINDOW_DAYS = { min: 1, max: 365 } as const;
/** A Global Vendor List id: the TCF string gives vendor ids 16 bits. */
export const TCF_VENDOR_ID = { min: 1, max: 65_535 } as const;

const ID_RULE = "must be 1 to 64 characters of A-Z, a-z, 0-9, _ or -";
const id = () => z.string({ error: ID_RULE }).regex(/^[A-Za-z0-9_-]{1,64}$/, { error: ID_RULE });

const VALUE_NAME_RULE = "must be 1 to 64 characters of a-z, 0-9 and _, starting with a letter";
const valueName = () =>
  z.string({ error: VALUE_NAME_RULE }).regex(/^[a-z][a-z0-9_]{0,63}$/, { error: VALUE_NAME_RULE });

const text = (max: number, what = "a string") =>
  z
    .string({ error: `must be ${what}` })
    .min(1, { error: "must not be empty" })
    .max(max, { error: `must be at most ${max} characters` });

/** RFC 9110's token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** Headers the sender owns: framing, the connection, the host the URL names. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-connection",
]);

const requestTemplateSchema = z.strictObject({
  url: text(REQUEST_LIMITS.maxUrlBytes),
  headers: z
    .record(
      z.string().regex(HEADER_NAME, { error: "must be an HTTP header name" }),
      z.string().max(1024, { error: "must be at most 1024 characters" }),
    )
    .default({}),
  body: z
    .string()
    .max(REQUEST_LIMITS.maxBodyBytes, {
      error: `must be at most ${REQUEST_LIMITS.maxBodyBytes} characters`,
    })
    .nullish(),
});

/** A template of the owner's own, for a partner the catalog lacks. */
export const customTemplateSchema = z.strictObject({
  method: z.enum(HTTP_METHODS, { error: "must be GET or POST" }),
  install: requestTemplateSchema.nullish(),
  event: requestTemplateSchema.nullish(),
});
export type CustomTemplate = z.output<typeof customTemplateSchema>;

const mappingSchema = z.strictObject({
  /** The partner's name for the event. */
  name: text(100),
  /** Whether the event's revenue and currency go with it. */
  revenue: z.boolean({ error: "must be true or false" }).default(false),
});

const partnerConfigObject = z.strictObject({
  id: id(),
  appId: text(255),
  /** A catalog partner's id, or `custom` with a template. */
  partner: text(64),
  template: customTemplateSchema.nullish(),
  /** The media sources whose installs are this partner's; the catalog's when left out. */
  mediaSources: z.array(text(100)).max(20, { error: "must be at most 20" }).optional(),
  /** The advertiser's values: ids and keys the templates name as `{partner.<name>}`. */
  values: z.record(valueName(), z.string().max(4096)).default({}),
  /** Which values are secret, besides the catalog's and the credentials (credentialNamesOf). */
  secretValues: z.array(valueName()).max(20).default([]),
  installs: z.enum(INSTALL_SCOPES, { error: "must be won or all" }).optional(),
  /**
   * Our event name (the exported `event_name`, e.g. `service_purchase`: isMappableEventName)
   * → the partner's.
   */
  events: z.record(text(200), mappingSchema).default({}),
  eventWindowDays: z
    .int({ error: "must be a whole number of days" })
    .min(EVENT_WINDOW_DAYS.min, { error: `must be at least ${EVENT_WINDOW_DAYS.min}` })
    .max(EVENT_WINDOW_DAYS.max, { error: `must be at most ${EVENT_WINDOW_DAYS.max}` })
    .default(DEFAULT_EVENT_WINDOW_DAYS),
  /** The partner's Global Vendor List id; the catalog's when left out, none when null. */
  tcfVendorId: z
    .int({ error: "must be a whole number" })
    .min(TCF_VENDOR_ID.min, { error: `must be at least ${TCF_VENDOR_ID.min}` })
    .max(TCF_VENDOR_ID.max, { error: `must be at most ${TCF_VENDOR_ID.max}` })
    .nullable()
    .optional(),
  enabled: z.boolean({ error: "must be true or false" }).default(true),
});

type ParsedConfig = z.output<typeof partnerConfigObject>;

/** A partner configuration as kept: every default applied. */
export interface PartnerConfig {
  readonly id: string;
  readonly appId: string;
  readonly partner: string;
  readonly template: CustomTemplate | null;
  readonly mediaSources: readonly string[];
  /** In clear here; the store seals those secretNamesOf names. */
  readonly values: Readonly<Record<string, string>>;
  readonly secretValues: readonly string[];
  readonly installs: InstallScope;
  readonly events: Readonly<Record<string, { readonly name: string; readonly revenue: boolean }>>;
  readonly eventWindowDays: number;
  /** The partner's Global Vendor List id, or null: what its TCF consent is read by. */
  readonly tcfVendorId: number | null;
  readonly enabled: boolean;
}

/** The template a configuration sends with: its catalog row, or its own as one. */
export const partnerTemplateOf = (
  config: Pick<ParsedConfig, "partner" | "template">,
): PartnerTemplate | undefined => {
  if (config.partner !== CUSTOM_PARTNER) return partnerById(config.partner);
  if (!config.template) return undefined;
  return {
    id: CUSTOM_PARTNER,
    name: "Custom template",
    method: config.template.method,
    install: config.template.install
      ? { ...config.template.install, body: config.template.install.body ?? undefined }
      : null,
    event: config.template.event
      ? { ...config.template.event, body: config.template.event.body ?? undefined }
      : null,
    values: [],
    mediaSources: [],
    installs: "won",
    eventNames: null,
    requires: [],
    tcfVendorId: null,
    sources: [],
    notes: "",
  };
};

const CATALOG_IDS = PARTNERS.map((partner) => partner.id).join(", ");

const EVENT_PREFIX = "service_";
/** The install's own name in the export: its postback is the install template's. */
const INSTALL_EVENT = exportEventName("INSTALL");

/**
 * Whether a mapping's key is an event's name as ingestion gives every event it accepts (the
 * export's `event_name`, exportEventName): `service_` and the event in snake case. A key in any
 * other form (`PURCHASE`, `purchase`) would be saved and never match an event.
 */
const isMappableEventName = (name: string): boolean => {
  const event = name.startsWith(EVENT_PREFIX) ? name.slice(EVENT_PREFIX.length) : "";
  return event !== "" && toSnakeCase(event) === event && name !== INSTALL_EVENT;
};

/** What is wrong with a mapping's key, naming the form expected (and, when it can, the key). */
const eventKeyProblem = (name: string): string | null => {
  if (isMappableEventName(name)) return null;
  const meant = `${EVENT_PREFIX}${toSnakeCase(name.replace(/^service_/i, ""))}`;
  if (name === INSTALL_EVENT || meant === INSTALL_EVENT) {
    return "is the install, which goes by the partner's install postback, not by an event mapping";
  }
  return (
    "must be our event name as the export gives it: service_ and the event in snake case " +
    "(service_purchase, service_level_complete, or a CUSTOM event's service_<name in snake_case>)" +
    (isMappableEventName(meant) ? `: ${meant}?` : "")
  );
};

/** The part of a URL template before its path: it must be literal, or be the leading value. */
const authorityOf = (url: string): string | null => {
  if (/^\{partner\.[A-Za-z0-9_.~-]+\}/.test(url)) return null;
  const match = /^https?:\/\/([^/?#]*)/.exec(url);
  return match ? (match[1] ?? "") : "";
};

export const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
};

/**
 * What is wrong with an advertiser's value that stands for a whole URL, or null. A fragment is
 * refused here: the sender refuses to send one, so a configuration holding one would be saved
 * and then fail every send. So is a brace: a value is not a template (its `{click_id}` would be
 * sent as written), and a URL whose host is not known before it is filled is never sent.
 */
const urlValueProblem = (value: string): string | null => {
  if (!isHttpUrl(value)) return "must be an https URL";
  if (value.includes("#")) return "must have no #fragment: a postback is sent without one";
  if (/[{}]/.test(value)) {
    return "must have no { or }: the URL is sent as given, with the facts added as parameters (a brace the URL needs is written %7B, %7D)";
  }
  return null;
};

const checkTemplate = (
  partner: PartnerTemplate,
  ctx: z.core.$RefinementCtx,
  path: (string | number)[],
): void => {
  for (const kind of ["install", "event"] as const) {
    const template = partner[kind];
    if (!template) continue;
    for (const platform of ["android", "ios"] as const) {
      const request = requestFor(partner, kind, platform);
      if (!request) continue;
      const authority = authorityOf(request.url);
      if (authority === "") {
        ctx.addIssue({
          code: "custom",
          path: [...path, kind, "url"],
          message: "must begin with https:// or with {partner.<name>} holding a URL",
        });
      } else if (authority?.includes("{")) {
        ctx.addIssue({
          code: "custom",
          path: [...path, kind, "url"],
          message: "must name its host literally: a macro may not choose where a postback goes",
        });
      }
      const leading = LEADING_PARTNER_MACRO.exec(request.url);
      const rest = leading ? request.url.slice(leading[0].length) : "";
      if (leading && rest !== "" && !rest.startsWith("/") && !rest.startsWith("?")) {
        // What follows the advertiser's URL would be read as more of its host or port.
        ctx.addIssue({
          code: "custom",
          path: [...path, kind, "url"],
          message: `must follow {partner.${leading[1]}} with /, ? or nothing: a macro may not choose where a postback goes`,
        });
      }
      const passed = headerBoundPassed(request.headers, request.body !== null);
      if (passed) {
        const adds =
          request.body !== null &&
          !Object.keys(request.headers).some((name) => name.toLowerCase() === "content-type");
        ctx.addIssue({
          code: "custom",
          path: [...path, kind, "headers"],
          message:
            passed === "count"
              ? `must be at most ${REQUEST_LIMITS.maxHeaders} headers${adds ? ", with the Content-Type a JSON body adds" : ""}`
              : `must be at most ${REQUEST_LIMITS.maxHeaderBytes} bytes of names and values together`,
        });
      }
      if (request.body !== null) {
        if (partner.method !== "POST") {
          ctx.addIssue({ code: "custom", path: [...path, kind, "body"], message: "needs POST" });
        }
        // An object or a list: a partner's API takes one, and a lone value whose macro is
        // empty would leave the body nothing at all.
        let parsed: unknown;
        try {
          parsed = JSON.parse(request.body);
        } catch {
          ctx.addIssue({ code: "custom", path: [...path, kind, "body"], message: "must be JSON" });
        }
        if (parsed !== undefined && (parsed === null || typeof parsed !== "object")) {
          ctx.addIssue({
            code: "custom",
            path: [...path, kind, "body"],
            message: "must be a JSON object or array",
          });
        }
      }
      for (const name of Object.keys(request.headers)) {
        if (RESERVED_HEADERS.has(name.toLowerCase())) {
          ctx.addIssue({
            code: "custom",
            path: [...path, kind, "headers", name],
            message: "is set by the sender, not by a template",
          });
        }
      }
    }
  }
  for (const textOf of templateTexts(partner)) {
    for (const name of macrosIn(textOf)) {
      if (!isKnownMacro(name)) {
        // The engine fills an unknown macro with nothing; a typo caught here is not sent empty
        // for ever.
        ctx.addIssue({
          code: "custom",
          path: [...path],
          message: `names the macro {${name}}, which the service does not know (docs/postbacks.md#macros)`,
        });
      }
    }
  }
};

const checkConfig = (config: ParsedConfig, ctx: z.core.$RefinementCtx): void => {
  const custom = config.partner === CUSTOM_PARTNER;
  if (custom && !config.template) {
    ctx.addIssue({
      code: "custom",
      path: ["template"],
      message: "is required for a custom partner",
    });
    return;
  }
  if (!custom && config.template) {
    ctx.addIssue({
      code: "custom",
      path: ["template"],
      message: "is only for a custom partner: a catalog partner's template is the catalog's",
    });
    return;
  }
  const partner = partnerTemplateOf(config);
  if (!partner) {
    ctx.addIssue({
      code: "custom",
      path: ["partner"],
      message: `must be one of ${CATALOG_IDS} or ${CUSTOM_PARTNER}`,
    });
    return;
  }
  if (custom) {
    checkTemplate(partner, ctx, ["template"]);
    if (!partner.install && !partner.event) {
      ctx.addIssue({
        code: "custom",
        path: ["template"],
        message: "needs an install or an event template",
      });
    }
  }

  const referenced = new Set(templateTexts(partner).flatMap(partnerValuesIn));
  const declared = new Map(partner.values.map((value) => [value.name, value]));
  for (const name of referenced) {
    if (!ownText(config.values, name)) {
      ctx.addIssue({
        code: "custom",
        path: ["values", name],
        message: `is required: ${custom ? "the template" : `the ${partner.name} template`} uses it`,
      });
    }
  }
  for (const [name, value] of Object.entries(config.values)) {
    if (!custom && !declared.has(name)) {
      ctx.addIssue({
        code: "custom",
        path: ["values", name],
        message: `is not a value of ${partner.name} (${[...declared.keys()].join(", ")})`,
      });
    }
    const problem = declared.get(name)?.kind === "url" ? urlValueProblem(value) : null;
    if (problem) ctx.addIssue({ code: "custom", path: ["values", name], message: problem });
  }
  if (custom) {
    // A value standing for a whole URL at the template's start must be one.
    for (const kind of ["install", "event"] as const) {
      const url = partner[kind]?.url;
      const leading = typeof url === "string" ? /^\{partner\.([a-z0-9_]+)\}/.exec(url) : null;
      const value = leading ? ownText(config.values, leading[1] ?? "") : undefined;
      const problem = value === undefined ? null : urlValueProblem(value);
      if (leading && problem) {
        ctx.addIssue({
          code: "custom",
          path: ["values", leading[1] ?? ""],
          message: `${problem}: the template begins with it`,
        });
      }
    }
  }
  config.secretValues.forEach((name, index) => {
    if (ownText(config.values, name) === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["secretValues", index],
        message: `names ${name}, which is not among the values`,
      });
    }
  });

  const installs = config.installs ?? partner.installs;
  const mediaSources = config.mediaSources ?? partner.mediaSources;
  if (installs === "won" && mediaSources.length === 0) {
    ctx.addIssue({
      code: "custom",
      path: ["mediaSources"],
      message: "must name at least one media source: only the installs they won go",
    });
  }

  const mappings = Object.entries(config.events);
  if (mappings.length > 0 && !partner.event) {
    ctx.addIssue({
      code: "custom",
      path: ["events"],
      message: `cannot be mapped: ${partner.name} takes no event postbacks`,
    });
  }
  const allowed = partner.eventNames ? new Set<string>(partner.eventNames) : null;
  for (const [ours, mapping] of mappings) {
    const keyProblem = eventKeyProblem(ours);
    if (keyProblem) ctx.addIssue({ code: "custom", path: ["events", ours], message: keyProblem });
    if (allowed && !allowed.has(mapping.name)) {
      ctx.addIssue({
        code: "custom",
        path: ["events", ours, "name"],
        message: `must be one of ${[...allowed].join(", ")}`,
      });
    }
  }
};

/** The owner's configuration checked, with its defaults (the catalog's, the service's). */
export const partnerConfigSchema = partnerConfigObject
  .superRefine(checkConfig)
  .transform((config): PartnerConfig => {
    // checkConfig refused a configuration without a template; the fallback keeps types honest.
    const partner = partnerTemplateOf(config);
    return {
      id: config.id,
      appId: config.appId,
      partner: config.partner,
      template: config.template ?? null,
      mediaSources: config.mediaSources ?? partner?.mediaSources ?? [],
      values: config.values,
      secretValues: config.secretValues,
      installs: config.installs ?? partner?.installs ?? "won",
      events: config.events,
      eventWindowDays: config.eventWindowDays,
      tcfVendorId:
        config.tcfVendorId === undefined ? (partner?.tcfVendorId ?? null) : config.tcfVendorId,
      enabled: config.enabled,
    };
  });
export type PartnerConfigInput = z.input<typeof partnerConfigSchema>;

/** A configuration checked, or a ValidationError (a 422) naming what is wrong. */
export const parsePartnerConfig = (input: unknown): PartnerConfig =>
  checked(partnerConfigSchema, input, "configuration");

/** A key as a query names it: decoded, `+` a space (what the log's masking reads too). */
const queryKey = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
};

/** The advertiser's values a JSON body sends under a key named like a credential. */
const credentialsInBody = (body: unknown): string[] =>
  textsUnderCredentials(body).flatMap(partnerValuesIn);

/**
 * The advertiser's values a template sends as credentials: in a header named like one
 * (`Authorization: Bearer {partner.token}`), as the value of a query key named like one
 * (`?api_key={partner.key}`), or under such a key of a JSON body. The answers mask exactly
 * those places of a template; the values filling them are as secret.
 */
const credentialUsesOf = (partner: PartnerTemplate): Set<string> => {
  const names = new Set<string>();
  for (const kind of ["install", "event"] as const) {
    for (const platform of ["android", "ios"] as const) {
      const request = requestFor(partner, kind, platform);
      if (!request) continue;
      const queryAt = request.url.indexOf("?");
      const query = queryAt < 0 ? "" : request.url.slice(queryAt + 1).split("#")[0];
      for (const pair of (query ?? "").split("&")) {
        const at = pair.indexOf("=");
        if (at > 0 && isCredentialName(queryKey(pair.slice(0, at)))) {
          for (const name of partnerValuesIn(pair.slice(at + 1))) names.add(name);
        }
      }
      for (const [header, value] of Object.entries(request.headers)) {
        if (isCredentialName(header)) for (const name of partnerValuesIn(value)) names.add(name);
      }
      if (request.body !== null) {
        let body: unknown;
        try {
          body = JSON.parse(request.body);
        } catch {
          // A body that is not JSON is refused when saved; it sends nothing.
        }
        for (const name of credentialsInBody(body)) names.add(name);
      }
    }
  }
  return names;
};

/**
 * The names of a configuration's values that are credentials whatever the owner marked: named
 * like one (`api_key`, `token`), or sent as one by its template (credentialUsesOf). A custom
 * template's owner may not think to list them in `secret_values`; shown in clear, every reader
 * of the app's postbacks, viewers included, would have them.
 */
export const credentialNamesOf = (
  config: Pick<PartnerConfig, "partner" | "template" | "values">,
): string[] => {
  const partner = partnerTemplateOf(config);
  const used = partner ? credentialUsesOf(partner) : new Set<string>();
  return Object.keys(config.values).filter((name) => isCredentialName(name) || used.has(name));
};

/**
 * The names of a configuration's secret values: the catalog's secret ones, the owner's, and
 * its credentials (credentialNamesOf).
 */
export const secretNamesOf = (config: PartnerConfig): string[] => {
  const partner = partnerTemplateOf(config);
  const catalog = (partner?.values ?? []).filter((value) => value.secret).map((v) => v.name);
  return [...new Set([...catalog, ...config.secretValues, ...credentialNamesOf(config)])].filter(
    (name) => ownText(config.values, name) !== undefined,
  );
};

/**
 * The secret values themselves, in clear: what the attempt log masks. Besides the secret
 * values, the credentials inside any value that is a URL (a generic endpoint's token segment or
 * `?key=`), which the configuration's answers mask too (./wire.ts's shownUrl).
 */
export const secretsOf = (config: PartnerConfig): string[] => [
  ...new Set([
    ...secretNamesOf(config)
      .map((name) => ownText(config.values, name) ?? "")
      .filter((value) => value !== ""),
    ...Object.values(config.values).flatMap((value) =>
      isHttpUrl(value) ? urlCredentialsOf(value) : [],
    ),
    // A custom template's own URL may hold a hook's secret as its answers mask it (a Zapier
    // hook id, a Pipedream host): the attempt's record and a test's mask it as well.
    ...[config.template?.install?.url, config.template?.event?.url].flatMap((url) =>
      url ? credentialSegmentsOf(url) : [],
    ),
  ]),
];

/**
 * Where a configuration's postbacks go: each distinct URL its templates lead to on either
 * platform, query left out (it holds keys) and all else kept (a fragment or credentials, which
 * the check refuses as the sender would), for checkConfiguredUrl before the configuration is
 * saved. Throws a ValidationError for a template that fills to no URL at all: where it goes
 * could not be checked, and it could never be sent.
 */
export const endpointsOf = (config: PartnerConfig): string[] => {
  const partner = partnerTemplateOf(config);
  if (!partner) return [];
  // Only the advertiser's values can move a URL's host (a leading value); facts fill the rest.
  const lookup = (name: string) =>
    name.startsWith("partner.")
      ? (ownText(config.values, name.slice("partner.".length)) ?? "")
      : "0";
  const endpoints = new Set<string>();
  for (const kind of ["install", "event"] as const) {
    for (const platform of ["android", "ios"] as const) {
      const request = requestFor(partner, kind, platform);
      if (!request) continue;
      let url: URL;
      try {
        url = new URL(fillUrl(request.url, lookup));
      } catch {
        throw new ValidationError(
          `configuration: its ${kind} URL does not fill to an absolute URL, so where it goes cannot be checked`,
        );
      }
      url.search = "";
      endpoints.add(url.href);
    }
  }
  return [...endpoints];
};

/** An app's webhook: where every install and event of the app goes, signed (./signing.ts). */
export const webhookConfigSchema = z.strictObject({
  id: id(),
  appId: text(255),
  url: text(2048).refine(isHttpUrl, { error: "must be an https URL" }),
  /** The signing secret: made by the service (newWebhookSecret), kept sealed. */
  secret: z
    .string({ error: "must be a string" })
    .min(32, { error: "must be at least 32 characters" })
    .max(256, { error: "must be at most 256 characters" }),
  enabled: z.boolean({ error: "must be true or false" }).default(true),
  /**
   * The secret a rotation replaced, and until when deliveries are signed with it too
   * (ROTATION_GRACE_HOURS): a backend that still checks with it keeps taking them meanwhile.
   */
  previous: z
    .strictObject({ secret: z.string().min(32).max(256), until: z.iso.datetime() })
    .nullable()
    .default(null),
});
export type WebhookConfig = z.output<typeof webhookConfigSchema>;

export const parseWebhookConfig = (input: unknown): WebhookConfig =>
  checked(webhookConfigSchema, input, "webhook");
