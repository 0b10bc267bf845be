/**
 * The dashboard's one API client: a typed function for every call the page makes. Every call
 * sends the session cookie (same origin); every call that is not a GET sends the session's
 * CSRF token. The service answers 401 both when the session is over and when the app a call
 * names is not one the person may see (or a write lacks its CSRF token), so a 401 is followed
 * by GET /v1/session: only when that is a 401 too is the user sent to sign in.
 */

import type * as Api from "./api-schema.ts";

// The bodies' types are the API contract's (./api-schema.ts, generated from spec/openapi.json),
// named here as the pages use them.

export type Session = Api.DashboardSession;
export type User = Session["user"];

/** A right password that is not yet a session: a TOTP code is asked (set up first, for one). */
export type SignInChallenge = Api.SignInChallenge;

export const isChallenge = (answer: Session | SignInChallenge): answer is SignInChallenge =>
  "challenge" in answer;

export type AppSummary = Api.AppSummary;
export type Platform = AppSummary["platform"];
export type AppSettings = Api.AppSettings;
export type AttributionSettings = AppSettings["attribution"];
export type ConfidenceFloor = AttributionSettings["confidence_floor"];
export type DeepLinkConfidenceFloor = AttributionSettings["deep_link_confidence_floor"];
export type LinkSettings = AppSettings["links"];
/** What PATCH /v1/apps/{app_id} takes: any subset of the writable fields, nested ones partial. */
export type AppSettingsPatch = Api.AppChange;

export type ApiKey = Api.Key;
export type KeyKind = ApiKey["kind"];
/** A key just made: the key itself is in it this once. */
export type NewApiKey = Api.NewKey;

export type Link = Api.Link;
export type LinkRequest = Api.LinkRequest;
export type LinkPage = Api.LinkPage;
/** What `PATCH /v1/links/{deeplink_id}` changes; a preview field's null clears it. */
export type LinkPatch = Api.LinkUpdate;
export type LinkClicks = Api.LinkClicksReport["clicks"][number];

export type Overview = Api.OverviewReport;
export type CampaignRow = Overview["campaigns"][number];

export type CohortReport = Api.CohortReport;
/** What the cohorts report may break each media source's installs down by. */
export type CohortGroupBy = CohortReport["group_by"];
/**
 * The reports' filters (GET /v1/reports/overview and /cohorts): only the installs of this media
 * source and campaign, and what was sent from this country and platform, with their events (and,
 * for the cohorts, their touches and cost).
 */
export type ReportFilters = CohortReport["filters"];
/**
 * A set of installs' figures (src/reports/cohorts.ts): null is a figure not known (no clicks,
 * no cost) or not reached yet (no install day has reached day N), never a zero.
 */
export type CohortFigures = CohortReport["totals"];
export type CohortGroupRow = CohortReport["groups"][number];
export type CohortRow = CohortReport["cohorts"][number];
export type ActiveUsers = CohortReport["active_users"];

/** One exported event, every field named (any may be null). */
export type ExportRecord = Api.ExportRecord;

export const EXPORT_FORMATS = ["json", "ndjson", "csv", "tsv", "xml", "xlsx", "parquet"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const EXPORT_MAX_LIMIT = 10_000;

export interface ExportRequest {
  appId: string;
  /** Start of the window, Unix seconds; the window runs to now. */
  timestamp: number;
  format: ExportFormat;
  limit: number;
  offset: number;
  /** The snapshot of the first page, to page through the same window. */
  snapshot?: string | undefined;
}

export interface ExportDownload {
  blob: Blob;
  /** From Content-Disposition when the service sends one (every format but json, ndjson). */
  fileName: string | null;
  snapshot: string | null;
  /** Events in the whole window, when the service says (X-Export-Snapshot-Rows). */
  snapshotRows: number | null;
}

/** An answer that is not a success: the service's `{error, detail}`, or what could be read. */
export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly detail: string;

  constructor(status: number, error: string, detail: string) {
    super(detail ? `${error}: ${detail}` : error);
    this.name = "ApiError";
    this.status = status;
    this.error = error;
    this.detail = detail;
  }
}

/** What the page says of an app the service refused while the session still holds. */
export const APP_NOT_VISIBLE = "This app is not one you may see, or it does not exist.";

/** What the page says when a viewer's change is refused: a viewer's every change is. */
export const VIEW_ONLY = "You can only view: a viewer's account changes nothing.";

/** A call about one app answered 401 while the session still holds: that app is not theirs. */
export class AppNotVisibleError extends ApiError {
  readonly appId: string;

  constructor(appId: string) {
    super(401, "Unauthorized", APP_NOT_VISIBLE);
    this.name = "AppNotVisibleError";
    this.appId = appId;
  }
}

/** A message fit to show a person for whatever a call threw. */
export const errorMessage = (error: unknown): string => {
  if (error instanceof ApiError) return error.detail || error.error || `HTTP ${error.status}`;
  if (error instanceof TypeError) return "The service could not be reached.";
  if (error instanceof Error) return error.message;
  return String(error);
};

let csrfToken: string | null = null;
let unauthorizedHandler: () => void = () => {};
let appRefusedHandler: (appId: string) => void = () => {};

/** What to do when the session is over (a call and the session both answer 401): sign in. */
export const onUnauthorized = (handler: () => void): void => {
  unauthorizedHandler = handler;
};

/** What to do when a call about an app answers 401 while the session holds: say so. */
export const onAppRefused = (handler: (appId: string) => void): void => {
  appRefusedHandler = handler;
};

type Query = Record<string, string | number | undefined>;

const withQuery = (path: string, query?: Query): string => {
  if (!query) return path;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
};

const segment = encodeURIComponent;

/**
 * The reason phrases of the statuses a proxy or CDN in front of the service answers with: over
 * HTTP/2, as CloudFront serves the page, a response has no status text of its own.
 */
const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  413: "Content Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** A plain-text body at most this long is a message a person can read; a longer one is a page. */
const PLAIN_TEXT_LIMIT = 200;

/**
 * What to say of an answer whose body is not the service's JSON: a short plain-text body as it
 * is, else the status in words. A proxy's or CloudFront's error page is HTML (or a long text)
 * that would show as markup, so it is never shown.
 */
export const plainErrorDetail = (
  status: number,
  statusText: string,
  contentType: string | null,
  body: string,
): string => {
  const text = body.trim();
  const plain = (contentType ?? "").split(";")[0]?.trim().toLowerCase() === "text/plain";
  if (plain && text !== "" && text.length <= PLAIN_TEXT_LIMIT) return text;
  const reason = statusText.trim() || REASONS[status] || "";
  const answered = `The service answered ${reason ? `${status} ${reason}` : `HTTP ${status}`}.`;
  // A server-side failure or a gateway's time-out may pass; a refusal of the request will not.
  return status >= 500 || status === 408 || status === 429 ? `${answered} Try again.` : answered;
};

const readError = async (response: Response): Promise<ApiError> => {
  const text = await response.text().catch(() => "");
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === "object") {
      const { error, detail, message } = body as Record<string, unknown>;
      return new ApiError(
        response.status,
        typeof error === "string" ? error : response.statusText,
        typeof detail === "string" ? detail : typeof message === "string" ? message : "",
      );
    }
  } catch {
    // not JSON: fall through
  }
  return new ApiError(
    response.status,
    response.statusText || REASONS[response.status] || `HTTP ${response.status}`,
    plainErrorDetail(
      response.status,
      response.statusText,
      response.headers.get("Content-Type"),
      text,
    ),
  );
};

interface CallOptions {
  query?: Query;
  body?: unknown;
  /** False for the session's own calls, whose 401 is an answer rather than an expiry. */
  redirectOn401?: boolean;
  accept?: string;
  /** The app the call is about: its 401 may mean that app, not the session. */
  appId?: string;
}

type SessionCheck =
  | { status: "signed-in"; csrfToken: string; viewer: boolean }
  | { status: "signed-out" }
  | { status: "unknown" };

let sessionCheck: Promise<SessionCheck> | null = null;

/** GET /v1/session after a 401: is the session still there? Calls that fail together share one. */
const checkSession = (): Promise<SessionCheck> => {
  sessionCheck ??= (async (): Promise<SessionCheck> => {
    try {
      const response = await fetch("/v1/session", {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (response.status === 401) {
        await response.body?.cancel();
        return { status: "signed-out" };
      }
      if (!response.ok) {
        await response.body?.cancel();
        return { status: "unknown" };
      }
      const session = (await response.json()) as Session;
      return {
        status: "signed-in",
        csrfToken: session.csrf_token,
        viewer: session.user.viewer === true,
      };
    } catch {
      return { status: "unknown" };
    } finally {
      sessionCheck = null;
    }
  })();
  return sessionCheck;
};

const send = async (
  method: string,
  path: string,
  options: CallOptions,
  retried = false,
): Promise<Response> => {
  const headers: Record<string, string> = { Accept: options.accept ?? "application/json" };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const sentToken = method !== "GET" ? csrfToken : null;
  if (sentToken) headers["X-CSRF-Token"] = sentToken;
  const response = await fetch(withQuery(path, options.query), {
    method,
    headers,
    credentials: "same-origin",
    body: options.body === undefined ? null : JSON.stringify(options.body),
  });
  if (response.ok) return response;
  const error = await readError(response);
  if (response.status !== 401 || options.redirectOn401 === false) throw error;

  const session = await checkSession();
  if (session.status === "signed-out") {
    csrfToken = null;
    unauthorizedHandler();
    throw error;
  }
  if (session.status === "unknown") throw error;
  csrfToken = session.csrfToken;
  // A viewer's change is refused whatever the app: the app is theirs to see, so say that.
  if (method !== "GET" && session.viewer) throw new ApiError(401, error.error, VIEW_ONLY);
  // A write refused for a missing or stale CSRF token was not done: once more with the session's.
  if (method !== "GET" && !retried && sentToken !== session.csrfToken) {
    return send(method, path, options, true);
  }
  if (options.appId !== undefined) {
    appRefusedHandler(options.appId);
    throw new AppNotVisibleError(options.appId);
  }
  throw error;
};

const call = async <T>(method: string, path: string, options: CallOptions = {}): Promise<T> => {
  const response = await send(method, path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
};

// Session

/** A password: a session, or the TOTP challenge that `answerChallenge` completes. */
export const signIn = async (
  email: string,
  password: string,
): Promise<Session | SignInChallenge> => {
  const answer = await call<Session | SignInChallenge>("POST", "/v1/session", {
    body: { email, password },
    redirectOn401: false,
  });
  if (!isChallenge(answer)) csrfToken = answer.csrf_token;
  return answer;
};

/** A TOTP code for a pending sign-in's session. */
export const answerChallenge = async (challengeToken: string, code: string): Promise<Session> => {
  const session = await call<Session>("POST", "/v1/session", {
    body: { challenge_token: challengeToken, code },
    redirectOn401: false,
  });
  csrfToken = session.csrf_token;
  return session;
};

export const getSession = async (): Promise<Session> => {
  const session = await call<Session>("GET", "/v1/session", { redirectOn401: false });
  csrfToken = session.csrf_token;
  return session;
};

/**
 * Ends the session on the service, which alone can (its cookie is out of the page's reach). A
 * 401 is this tab's token of an older session (another tab signed someone in since, whose
 * session the cookie now holds) or no session at all: the current one is asked for, and ended
 * with its token, or there is none to end. Throws while a session may still stand.
 */
export const signOut = async (): Promise<void> => {
  const end = () => call<void>("DELETE", "/v1/session", { redirectOn401: false });
  try {
    await end();
  } catch (caught) {
    if (!(caught instanceof ApiError) || caught.status !== 401) throw caught;
    try {
      await getSession();
    } catch (asked) {
      if (asked instanceof ApiError && asked.status === 401) {
        csrfToken = null;
        return;
      }
      throw asked;
    }
    await end();
  }
  csrfToken = null;
};

// Apps

export const listApps = async (): Promise<AppSummary[]> =>
  (await call<{ apps: AppSummary[] }>("GET", "/v1/apps")).apps;

export const createApp = async (app: Api.NewApp): Promise<AppSettings> =>
  (await call<{ app: AppSettings }>("POST", "/v1/apps", { body: app })).app;

export const getApp = async (appId: string): Promise<AppSettings> =>
  (await call<{ app: AppSettings }>("GET", `/v1/apps/${segment(appId)}`, { appId })).app;

export const updateApp = async (appId: string, patch: AppSettingsPatch): Promise<AppSettings> =>
  (
    await call<{ app: AppSettings }>("PATCH", `/v1/apps/${segment(appId)}`, {
      body: patch,
      appId,
    })
  ).app;

// People (an admin's only)

export type Person = Api.Person;
export type Role = Person["role"];
export type NewPerson = Api.NewPerson;

const personPath = (email: string) => `/v1/users/${segment(email)}`;

export const listPeople = async (): Promise<Person[]> =>
  (await call<{ users: Person[] }>("GET", "/v1/users")).users;

/** A new person, and the password made for them: shown this once. */
export const addPerson = (person: NewPerson): Promise<{ user: Person; password: string }> =>
  call("POST", "/v1/users", { body: person });

/** A new password made for the person (their sessions end): shown this once. */
export const resetPassword = async (email: string): Promise<string> =>
  (await call<{ password: string }>("POST", `${personPath(email)}/password`)).password;

export const removePerson = (email: string): Promise<void> =>
  call<void>("DELETE", personPath(email));

export const grantApp = async (email: string, appId: string): Promise<Person> =>
  (await call<{ user: Person }>("PUT", `${personPath(email)}/apps/${segment(appId)}`)).user;

export const revokeApp = async (email: string, appId: string): Promise<Person> =>
  (await call<{ user: Person }>("DELETE", `${personPath(email)}/apps/${segment(appId)}`)).user;

// Keys

export const listKeys = async (appId: string): Promise<ApiKey[]> =>
  (await call<{ keys: ApiKey[] }>("GET", `/v1/apps/${segment(appId)}/keys`, { appId })).keys;

export const createKey = async (appId: string, kind: KeyKind): Promise<NewApiKey> =>
  (
    await call<{ key: NewApiKey }>("POST", `/v1/apps/${segment(appId)}/keys`, {
      body: { kind },
      appId,
    })
  ).key;

export const revokeKey = async (appId: string, keyId: string): Promise<ApiKey> =>
  (
    await call<{ key: ApiKey }>("DELETE", `/v1/apps/${segment(appId)}/keys/${segment(keyId)}`, {
      appId,
    })
  ).key;

// Links

export const createLink = (appId: string, link: LinkRequest): Promise<Link> =>
  call<Link>("POST", "/v1/links", { query: { app_id: appId }, body: link, appId });

export const listLinks = (
  appId: string,
  page: { limit?: number; cursor?: string | undefined } = {},
): Promise<LinkPage> =>
  call<LinkPage>("GET", "/v1/links", {
    query: { app_id: appId, limit: page.limit, cursor: page.cursor },
    appId,
  });

export const updateLink = (appId: string, deeplinkId: string, patch: LinkPatch) =>
  call<Link>("PATCH", `/v1/links/${segment(deeplinkId)}`, {
    query: { app_id: appId },
    body: patch,
    appId,
  });

export const setLinkDisabled = (appId: string, deeplinkId: string, disabled: boolean) =>
  updateLink(appId, deeplinkId, { disabled });

// Reports

export const getOverview = (
  appId: string,
  params: { from: string; to: string } & ReportFilters,
): Promise<Overview> =>
  call<Overview>("GET", "/v1/reports/overview", { query: { app_id: appId, ...params }, appId });

export const getCohorts = (
  appId: string,
  params: { from: string; to: string; group_by: CohortGroupBy } & ReportFilters,
): Promise<CohortReport> =>
  call<CohortReport>("GET", "/v1/reports/cohorts", { query: { app_id: appId, ...params }, appId });

export const getLinkClicks = async (appId: string): Promise<LinkClicks[]> =>
  (
    await call<{ clicks: LinkClicks[] }>("GET", "/v1/reports/link-clicks", {
      query: { app_id: appId },
      appId,
    })
  ).clicks;

export const getLatestEvents = async (appId: string, limit = 50): Promise<ExportRecord[]> =>
  (
    await call<{ events: ExportRecord[] }>("GET", "/v1/reports/latest-events", {
      query: { app_id: appId, limit },
      appId,
    })
  ).events;

// Costs (docs/api.md#costs): what campaigns cost, a row per day, media source and campaign

/** A cost row as POST /v1/costs takes it: the CSV's cells, numbers as numbers, empty ones left out. */
export type CostRowInput = Record<string, string | number>;

/** A stored cost row, as GET /v1/costs answers it. */
export type CostRow = Api.StoredCostRow;

/** What POST /v1/costs stored: rows, and of them those that replaced one of the same keys. */
export type CostsStored = Api.CostAnswer;

/** At most 1,000 rows a request; a body with a row at fault stores none of them. */
export const putCosts = (appId: string, rows: CostRowInput[]): Promise<CostsStored> =>
  call<CostsStored>("POST", "/v1/costs", { query: { app_id: appId }, body: { rows }, appId });

export const listCosts = async (appId: string, from: string, to: string): Promise<CostRow[]> =>
  (
    await call<{ data: CostRow[] }>("GET", "/v1/costs", {
      query: { app_id: appId, from, to },
      appId,
    })
  ).data;

// Export

/** `attachment; filename="a.csv"` or `filename*=UTF-8''a.csv` -> the name; null without one. */
export const fileNameOf = (contentDisposition: string | null): string | null => {
  if (!contentDisposition) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(contentDisposition);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // fall back to the plain name
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/.exec(contentDisposition);
  const name = plain?.[1]?.replace(/\\(.)/g, "$1") ?? plain?.[2]?.trim();
  return name || null;
};

export const downloadExport = async (request: ExportRequest): Promise<ExportDownload> => {
  const response = await send("GET", "/api/v1/export", {
    accept: "*/*",
    query: {
      app_id: request.appId,
      timestamp: request.timestamp,
      format: request.format,
      limit: request.limit,
      offset: request.offset,
      snapshot: request.snapshot,
    },
    appId: request.appId,
  });
  const rows = response.headers.get("X-Export-Snapshot-Rows");
  return {
    blob: await response.blob(),
    fileName: fileNameOf(response.headers.get("Content-Disposition")),
    snapshot: response.headers.get("X-Export-Snapshot"),
    snapshotRows: rows !== null && /^\d+$/.test(rows) ? Number(rows) : null,
  };
};

// Postbacks (docs/postbacks.md): the partner catalog, the app's configurations, tests, the log

export type PartnerCatalog = Api.PartnerCatalog;
export type CatalogPartner = PartnerCatalog["data"][number];
export type CatalogValue = CatalogPartner["values"][number];
export type CatalogMacro = PartnerCatalog["macros"][number];
export type InstallScope = CatalogPartner["installs"];

export type PartnerConfig = Api.PartnerConfig;
/** What `PUT /v1/postbacks/partners/{config_id}` takes: a secret value left out is kept. */
export type PartnerConfigRequest = Api.PartnerConfigRequest;
/** A custom partner's template: the method, and an install and/or event request. */
export type CustomTemplate = NonNullable<PartnerConfigRequest["template"]>;
export type HttpMethod = CustomTemplate["method"];
export type RequestTemplate = NonNullable<CustomTemplate["install"]>;
export type EventMapping = NonNullable<PartnerConfigRequest["events"]>[string];

export type Webhook = Api.Webhook;
export type WebhookRequest = Api.WebhookRequest;
export type PostbackSettings = Api.PostbackSettings;
export type DeliveryCounts = Api.DeliveryCounts;
export type Postbacks = Api.Postbacks;
export type PostbackTest = Api.PostbackTestRequest;
export type PostbackTestResult = Api.PostbackTestResult;
export type Verdict = PostbackTestResult["verdict"];
export type DeliveryAttempt = Api.DeliveryAttempt;
export type DeliveryLogPage = Api.DeliveryLogPage;

export type PostbackTarget = "partners" | "webhooks";

export const getPartnerCatalog = (appId: string): Promise<PartnerCatalog> =>
  call<PartnerCatalog>("GET", "/v1/partners", { query: { app_id: appId }, appId });

export const getPostbacks = (appId: string): Promise<Postbacks> =>
  call<Postbacks>("GET", "/v1/postbacks", { query: { app_id: appId }, appId });

export const savePartnerConfig = (
  appId: string,
  configId: string,
  config: PartnerConfigRequest,
): Promise<PartnerConfig> =>
  call<PartnerConfig>("PUT", `/v1/postbacks/partners/${segment(configId)}`, {
    query: { app_id: appId },
    body: config,
    appId,
  });

export const saveWebhook = (
  appId: string,
  configId: string,
  webhook: WebhookRequest,
): Promise<Webhook> =>
  call<Webhook>("PUT", `/v1/postbacks/webhooks/${segment(configId)}`, {
    query: { app_id: appId },
    body: webhook,
    appId,
  });

export const deletePostbackConfig = (
  appId: string,
  target: PostbackTarget,
  configId: string,
): Promise<void> =>
  call<void>("DELETE", `/v1/postbacks/${target}/${segment(configId)}`, {
    query: { app_id: appId },
    appId,
  });

export const testPostback = (
  appId: string,
  target: PostbackTarget,
  configId: string,
  test: PostbackTest,
): Promise<PostbackTestResult> =>
  call<PostbackTestResult>("POST", `/v1/postbacks/${target}/${segment(configId)}/test`, {
    query: { app_id: appId },
    body: test,
    appId,
  });

export const savePostbackSettings = (
  appId: string,
  settings: PostbackSettings,
): Promise<PostbackSettings> =>
  call<PostbackSettings>("PUT", "/v1/postbacks/settings", {
    query: { app_id: appId },
    body: settings,
    appId,
  });

export const getDeliveryLog = (
  appId: string,
  page: { limit?: number; cursor?: string | undefined } = {},
): Promise<DeliveryLogPage> =>
  call<DeliveryLogPage>("GET", "/v1/postbacks/log", {
    query: { app_id: appId, limit: page.limit, cursor: page.cursor },
    appId,
  });

// SKAdNetwork (docs/skadnetwork.md): the conversion value schema, ad network names, the report

/** One rule of a conversion window (src/skadnetwork/conversion-schema.ts). */
export type ConversionRule = Api.ConversionRule;
export type CoarseValue = ConversionRule["coarse"];
export type ConversionWindow = Api.ConversionSchemaRequest["windows"][number];
export type ConversionSchema = NonNullable<Api.ConversionSchemaAnswer["schema"]>;
export type AdNetworkName = Api.AdNetworks["networks"][number];
export type SkadnetworkReport = Api.SkadnetworkReport;
/** Revenue in USD from `min` up to `max`; `max` null: no bound above. */
export type RevenueRange = NonNullable<SkadnetworkReport["revenue_usd"]>;

export const getConversionSchema = async (appId: string): Promise<ConversionSchema | null> =>
  (
    await call<{ schema: ConversionSchema | null }>("GET", "/v1/skadnetwork/schema", {
      query: { app_id: appId },
      appId,
    })
  ).schema;

/** Saves the three windows' rules as the schema's next version. */
export const saveConversionSchema = async (
  appId: string,
  windows: ConversionWindow[],
): Promise<ConversionSchema> => {
  const { schema } = await call<{ schema: ConversionSchema | null }>(
    "PUT",
    "/v1/skadnetwork/schema",
    { query: { app_id: appId }, body: { windows }, appId },
  );
  if (!schema) throw new Error("The service saved no schema.");
  return schema;
};

export const getAdNetworks = async (appId: string): Promise<AdNetworkName[]> =>
  (
    await call<{ networks: AdNetworkName[] }>("GET", "/v1/skadnetwork/networks", {
      query: { app_id: appId },
      appId,
    })
  ).networks;

/** Replaces the app's own names of ad network ids (id → media source); the catalog's stay. */
export const saveAdNetworks = async (
  appId: string,
  networks: Record<string, string>,
): Promise<AdNetworkName[]> =>
  (
    await call<{ networks: AdNetworkName[] }>("PUT", "/v1/skadnetwork/networks", {
      query: { app_id: appId },
      body: { networks },
      appId,
    })
  ).networks;

/** Postbacks naming an App Store id no app has, by that id (src/skadnetwork/unknown.ts). */
export type UnknownPostbacks = Api.UnknownApplePostbacks;

/** The service's admins only: the postbacks of no app received in a window of days. */
export const getUnknownPostbacks = (from: string, to: string): Promise<UnknownPostbacks> =>
  call<UnknownPostbacks>("GET", "/v1/skadnetwork/unknown", { query: { from, to } });

export const getSkadnetworkReport = (
  appId: string,
  from: string,
  to: string,
  include: { development?: boolean } = {},
): Promise<SkadnetworkReport> =>
  call<SkadnetworkReport>("GET", "/v1/skadnetwork/report", {
    query: {
      app_id: appId,
      from,
      to,
      include: include.development ? "development" : undefined,
    },
    appId,
  });
