/**
 * The partner form's values as typed, what they send, and the service's refusal read back in
 * the form's own words. The service names a problem by the request body's field
 * (`values.endpoint: must be an https URL`, `events.service_purchase.name: …`, or, for an
 * address refused, `body: https://10.0.0.1/ points to a private address`); the form shows each
 * beside the input it is about, under the input's label.
 */
import type {
  CatalogPartner,
  CustomTemplate,
  HttpMethod,
  InstallScope,
  PartnerConfig,
  PartnerConfigRequest,
  RequestTemplate,
} from "../api.ts";
import { capitalised, moreProblems, problemsOf } from "../messages.ts";

export const CUSTOM = "custom";
export const DEFAULT_WINDOW_DAYS = 180;

export interface MappingRow {
  /** Stable across edits, for the row's inputs' ids. */
  readonly key: number;
  readonly ours: string;
  readonly theirs: string;
  readonly revenue: boolean;
}

export interface PartnerDraft {
  readonly id: string;
  readonly partner: string;
  readonly method: HttpMethod;
  readonly installUrl: string;
  readonly eventUrl: string;
  readonly installBody: string;
  readonly eventBody: string;
  /** A custom template's headers, one `Name: value` a line; a masked credential as shown. */
  readonly installHeaders: string;
  readonly eventHeaders: string;
  /** Every value typed; a secret one left empty keeps the one saved. */
  readonly values: Readonly<Record<string, string>>;
  /** The values the owner marked secret (a custom template's), besides the catalog's. */
  readonly secretNames: readonly string[];
  /** Comma-separated, as typed. */
  readonly mediaSources: string;
  readonly installs: InstallScope;
  readonly mappings: readonly MappingRow[];
  readonly windowDays: string;
  /** The Global Vendor List id as typed; empty for none. */
  readonly vendorId: string;
  readonly enabled: boolean;
}

let nextKey = 1;
export const mappingRow = (ours = "", theirs = "", revenue = false): MappingRow => ({
  key: nextKey++,
  ours,
  theirs,
  revenue,
});

const vendorIdText = (id: number | null): string => (id === null ? "" : String(id));

/** A new configuration of a catalog partner (or a custom template): the catalog's defaults. */
export const newDraft = (partner: CatalogPartner | undefined, id = ""): PartnerDraft => ({
  id,
  partner: partner?.id ?? CUSTOM,
  method: "GET",
  installUrl: "",
  eventUrl: "",
  installBody: "",
  eventBody: "",
  installHeaders: "",
  eventHeaders: "",
  values: {},
  secretNames: [],
  mediaSources: partner?.media_sources.join(", ") ?? "",
  installs: partner?.installs ?? "won",
  mappings: [],
  windowDays: String(DEFAULT_WINDOW_DAYS),
  vendorId: vendorIdText(partner?.tcf_vendor_id ?? null),
  enabled: true,
});

const isTemplate = (value: unknown): value is CustomTemplate =>
  typeof value === "object" && value !== null && "method" in value;

const headersText = (headers: Readonly<Record<string, string>> | undefined): string =>
  Object.entries(headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");

/** A line of the headers' text that names no header (`Name: value`), by its number from 1. */
export const headerLinesRefused = (text: string): number[] =>
  text.split(/\r?\n/).flatMap((line, index) => {
    if (line.trim() === "") return [];
    const colon = line.indexOf(":");
    return colon <= 0 || line.slice(0, colon).trim() === "" ? [index + 1] : [];
  });

/**
 * The headers' text as the template's headers. A value keeps its spaces but those after the
 * colon, so a masked one goes back as shown; a line that names no header is the form's own
 * refusal (headerLinesRefused), not sent.
 */
const headersOf = (text: string): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    const name = line.slice(0, Math.max(colon, 0)).trim();
    if (name !== "") headers[name] = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
  }
  return headers;
};

/** A saved configuration in the form: its secret values empty (never shown). */
export const draftOf = (config: PartnerConfig): PartnerDraft => {
  const template = isTemplate(config.template) ? config.template : null;
  return {
    id: config.id,
    partner: config.partner,
    method: template?.method ?? "GET",
    installUrl: template?.install?.url ?? "",
    eventUrl: template?.event?.url ?? "",
    installBody: template?.install?.body ?? "",
    eventBody: template?.event?.body ?? "",
    installHeaders: headersText(template?.install?.headers),
    eventHeaders: headersText(template?.event?.headers),
    values: { ...config.values },
    // A custom template's value the service sealed as a credential though not marked (named
    // like one, or sent as one) is shown as the secret it is: saved, kept when left empty.
    secretNames:
      config.partner === CUSTOM
        ? [...new Set([...config.secret_values, ...config.sealed_values])]
        : [...config.secret_values],
    mediaSources: config.media_sources.join(", "),
    installs: config.installs,
    mappings: Object.entries(config.events).map(([ours, mapping]) =>
      mappingRow(ours, mapping.name, mapping.revenue),
    ),
    windowDays: String(config.event_window_days),
    vendorId: vendorIdText(config.tcf_vendor_id),
    enabled: config.enabled,
  };
};

const PARTNER_VALUE = /\{partner\.([a-z][a-z0-9_]*)\}/g;

/** The custom template's texts, each with the input it is typed in. */
const templateTexts = (draft: PartnerDraft): [field: string, text: string][] => [
  ["install_url", draft.installUrl],
  ["install_headers", draft.installHeaders],
  ["event_url", draft.eventUrl],
  ["event_headers", draft.eventHeaders],
  ...(draft.method === "POST"
    ? ([
        ["install_body", draft.installBody],
        ["event_body", draft.eventBody],
      ] as [string, string][])
    : []),
];

/** A value the form asks for: the catalog's, or one a custom template names. */
export interface ValueField {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly secret: boolean;
  readonly kind: "text" | "url";
}

/** The values the configuration takes: the catalog partner's, or those its template names. */
export const valueFieldsOf = (
  draft: PartnerDraft,
  partner: CatalogPartner | undefined,
): ValueField[] => {
  if (draft.partner !== CUSTOM) {
    return (partner?.values ?? []).map((value) => ({
      ...value,
      secret: value.secret || draft.secretNames.includes(value.name),
    }));
  }
  const names = new Set<string>();
  for (const [, text] of templateTexts(draft)) {
    for (const match of text.matchAll(PARTNER_VALUE)) if (match[1]) names.add(match[1]);
  }
  return [...names].map((name) => ({
    name,
    label: name,
    description: `{partner.${name}} in the template.`,
    secret: draft.secretNames.includes(name),
    kind: "text",
  }));
};

const trimmed = (text: string) => text.trim();
/** Split at commas alone: a media source may hold spaces (`Apple Search Ads`). */
const listOf = (text: string): string[] =>
  text
    .split(",")
    .map(trimmed)
    .filter((item) => item !== "");

/**
 * A request of the template as typed. The body goes as typed (a JSON body's spaces are its
 * own, and one that held a masked key is restored only when sent back as shown).
 */
const requestTemplate = (
  url: string,
  headers: string,
  body: string,
  method: HttpMethod,
): RequestTemplate | null => {
  if (url.trim() === "") return null;
  const template: RequestTemplate = { url: url.trim(), headers: headersOf(headers) };
  if (method === "POST" && body.trim() !== "") template.body = body;
  return template;
};

/** Text as a number; what cannot be one goes as NaN's null, for the service to refuse. */
const numberOf = (text: string): number => (text.trim() === "" ? Number.NaN : Number(text));

/**
 * The request body of the form: the whole configuration, except a secret value left empty
 * (the service keeps the one saved, named in `saved`) and the media sources left empty (the
 * catalog's).
 */
export const requestOf = (
  draft: PartnerDraft,
  partner: CatalogPartner | undefined,
  saved: readonly string[] = [],
): PartnerConfigRequest => {
  const custom = draft.partner === CUSTOM;
  const fields = valueFieldsOf(draft, partner);
  const values: Record<string, string> = {};
  for (const field of fields) {
    const value = draft.values[field.name] ?? "";
    if (value.trim() !== "") values[field.name] = field.secret ? value : value.trim();
  }
  const events: Record<string, { name: string; revenue: boolean }> = {};
  for (const row of draft.mappings) {
    if (row.ours.trim() === "" && row.theirs.trim() === "") continue;
    events[row.ours.trim()] = { name: row.theirs.trim(), revenue: row.revenue };
  }
  // The owner's own secret marks: of the values given now, or kept from before.
  const secretValues = fields
    .filter((field) => draft.secretNames.includes(field.name))
    .map((field) => field.name)
    .filter((name) => values[name] !== undefined || saved.includes(name));
  const request: PartnerConfigRequest = {
    partner: draft.partner,
    values,
    secret_values: secretValues,
    installs: draft.installs,
    events,
    event_window_days: numberOf(draft.windowDays),
    tcf_vendor_id: draft.vendorId.trim() === "" ? null : numberOf(draft.vendorId),
    enabled: draft.enabled,
  };
  const mediaSources = listOf(draft.mediaSources);
  if (mediaSources.length > 0 || custom) request.media_sources = mediaSources;
  if (custom) {
    request.template = {
      method: draft.method,
      install: requestTemplate(
        draft.installUrl,
        draft.installHeaders,
        draft.installBody,
        draft.method,
      ),
      event: requestTemplate(draft.eventUrl, draft.eventHeaders, draft.eventBody, draft.method),
    };
  }
  return request;
};

/** What the configuration may test: an install, and each mapped event. */
export const takesEvents = (draft: PartnerDraft, partner: CatalogPartner | undefined) =>
  draft.partner === CUSTOM ? draft.eventUrl.trim() !== "" : (partner?.takes_events ?? false);

// The service's refusal

/** One problem the service named, in the form's words, and the input it is about. */
export interface Problem {
  /** The input's field name (`value:endpoint`, `mapping-name:3`, …), when there is one. */
  readonly field: string | null;
  readonly text: string;
}

type Segment = string | number;

/** `values.endpoint`, `events["a b"].name`, `media_sources[0]` as their segments. */
export const pathSegments = (path: string): Segment[] | null => {
  const segments: Segment[] = [];
  const pattern = /(?:^|\.)([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;
  let at = 0;
  while (at < path.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(path);
    if (!match) return null;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(match[3]) as string);
    at = pattern.lastIndex;
  }
  return segments;
};

const PROBLEM =
  /^((?:[A-Za-z_][A-Za-z0-9_]*|\[[^\]]*\])(?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])*):\s(.*)$/s;

/** `Endpoint is required: …`, `Endpoint: https://… points to …`. */
const sentence = (label: string, message: string) =>
  /^https?:\/\//.test(message) ? `${label}: ${message}` : `${label} ${message}`;

/** Scheme, host and path of a URL or URL template (macros as zeros): what the service names. */
const endpointOf = (text: string): string | null => {
  try {
    const url = new URL(text.trim().replace(/\{[^}]*\}/g, "0"));
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return null;
  }
};

/**
 * A 422's detail (problems joined by `; `, each `path: message`) as the form's problems, each
 * named by its input's label; a problem about no input keeps the service's words.
 */
export const partnerProblemsOf = (
  detail: string,
  draft: PartnerDraft,
  partner: CatalogPartner | undefined,
): Problem[] => {
  const fields = valueFieldsOf(draft, partner);
  const valueLabel = (name: string) => fields.find((f) => f.name === name)?.label ?? name;
  const rowOf = (ours: string) => draft.mappings.find((row) => row.ours.trim() === ours);

  /** The input an address refused was typed in: a value holding it, or a template's URL. */
  const fieldOfUrl = (url: string): [string, string] | null => {
    const reported = endpointOf(url);
    for (const field of fields) {
      const value = draft.values[field.name] ?? "";
      if (value !== "" && endpointOf(value) === reported) {
        return [`value:${field.name}`, field.label];
      }
    }
    if (draft.partner === CUSTOM) {
      if (endpointOf(draft.installUrl) === reported) return ["install_url", "Install URL"];
      if (endpointOf(draft.eventUrl) === reported) return ["event_url", "Event URL"];
    }
    return null;
  };

  const fieldOf = (segments: Segment[], message: string): [string | null, string] | null => {
    const [first, second, third] = segments;
    switch (first) {
      case "config_id":
        return ["id", "Configuration id"];
      case "partner":
        return ["partner", "Partner"];
      case "template": {
        if (second === "method") return ["method", "Method"];
        if (second === "install" || second === "event") {
          const which = second === "install" ? "Install" : "Event";
          if (third === "body") return [`${second}_body`, `${which} body`];
          if (third === "headers") return [`${second}_headers`, `${which} headers`];
          return [`${second}_url`, `${which} URL`];
        }
        // A macro the service does not know: the input that names it.
        const macro = /the macro (\{[^}]+\})/.exec(message)?.[1];
        const holder = macro ? templateTexts(draft).find(([, text]) => text.includes(macro)) : null;
        if (holder) {
          const labels: Record<string, string> = {
            install_url: "Install URL",
            install_headers: "Install headers",
            event_url: "Event URL",
            event_headers: "Event headers",
            install_body: "Install body",
            event_body: "Event body",
          };
          return [holder[0], labels[holder[0]] ?? "The template"];
        }
        return ["install_url", "The template"];
      }
      case "values":
        return typeof second === "string"
          ? [`value:${second}`, valueLabel(second)]
          : ["values", "The partner's values"];
      case "secret_values": {
        const name = typeof second === "number" ? draft.secretNames[second] : undefined;
        return name ? [`value:${name}`, `The secret value ${name}`] : [null, "Secret values"];
      }
      case "media_sources":
        return ["media_sources", "Media sources"];
      case "installs":
        return ["installs", "Installs"];
      case "events": {
        if (typeof second !== "string") return ["events", "Event mapping"];
        const row = rowOf(second);
        if (!row) return ["events", `The mapping of ${second}`];
        return third === "name"
          ? [`mapping-name:${row.key}`, `The partner's name for ${second}`]
          : [`mapping:${row.key}`, `The mapping of ${second}`];
      }
      case "event_window_days":
        return ["event_window_days", "Event window"];
      case "tcf_vendor_id":
        return ["tcf_vendor_id", "TCF vendor id"];
      case "enabled":
        return ["enabled", "On"];
      default:
        return null;
    }
  };

  return problemsOf(detail).map((problem): Problem => {
    const more = moreProblems(problem);
    if (more) return { field: null, text: more };
    const match = PROBLEM.exec(problem);
    if (!match?.[1] || match[2] === undefined) return { field: null, text: problem };
    const path = match[1].replace(/^body(?:\.|$)/, "");
    const message = match[2];
    if (path === "") {
      // An address refused: `body: <url> <why>`.
      const url = /^(https?:\/\/\S+)\s/.exec(message)?.[1];
      const found = url ? fieldOfUrl(url) : null;
      if (found) return { field: found[0], text: sentence(found[1], message) };
      // The catalog's own URL: its host out of the service's reach, say.
      if (url) return { field: null, text: sentence("The partner's URL", message) };
      return { field: null, text: capitalised(message) };
    }
    const segments = pathSegments(path);
    const found = segments ? fieldOf(segments, message) : null;
    if (!found) return { field: null, text: capitalised(`${path.replace(/_/g, " ")}: ${message}`) };
    return { field: found[0], text: sentence(found[1], message) };
  });
};

/** A webhook's refusal: `body.url: https://10.0.0.1/h points to …` as `URL: https://…`. */
export const webhookProblemsOf = (detail: string): Problem[] =>
  problemsOf(detail).map((problem) => {
    const more = moreProblems(problem);
    if (more) return { field: null, text: more };
    const match = PROBLEM.exec(problem);
    const path = match?.[1]?.replace(/^body(?:\.|$)/, "") ?? null;
    const message = match?.[2] ?? problem;
    if (path === "url") return { field: "url", text: sentence("URL", message) };
    if (path === "config_id") return { field: "id", text: sentence("Webhook id", message) };
    if (path === "enabled") return { field: "enabled", text: sentence("On", message) };
    return { field: null, text: capitalised(path ? `${path}: ${message}` : message) };
  });

/** The problems by field, the first of each. */
export const byField = (problems: readonly Problem[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const problem of problems) {
    if (problem.field && !fields[problem.field]) fields[problem.field] = problem.text;
  }
  return fields;
};
