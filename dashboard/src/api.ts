/**
 * The dashboard's one API client: a typed function for every call the page makes. Every call
 * sends the session cookie (same origin); every call that is not a GET sends the session's
 * CSRF token. The service answers 401 both when the session is over and when the app a call
 * names is not one the person may see (or a write lacks its CSRF token), so a 401 is followed
 * by GET /v1/session: only when that is a 401 too is the user sent to sign in.
 */

export interface User {
  /** In the contract; the service may leave it out. */
  user_id?: string;
  email: string;
  admin: boolean;
  /** Sees the reports, settings and exports of the apps granted, and changes nothing. */
  viewer?: boolean;
}

export interface Session {
  user: User;
  csrf_token: string;
}

/** A right password that is not yet a session: a TOTP code is asked (set up first, for one). */
export interface SignInChallenge {
  challenge: "totp" | "totp_setup";
  /** Sent back with the code. */
  challenge_token: string;
  expires_at: string;
  /** For a setup: the new TOTP's key, and the `otpauth://` URI its QR code holds. */
  secret?: string;
  otpauth_uri?: string;
}

export const isChallenge = (answer: Session | SignInChallenge): answer is SignInChallenge =>
  "challenge" in answer;

export type Platform = "android" | "ios";

export interface AppSummary {
  app_id: string;
  name: string;
  platform: Platform;
  enabled: boolean;
  created_at: string;
  /** The IANA time zone the reports count days in. */
  time_zone: string;
}

export type ConfidenceFloor = "low" | "medium";
export type DeepLinkConfidenceFloor = "low" | "medium" | "high";

export interface AttributionSettings {
  enabled: boolean;
  click_window_days: number;
  view_window_hours: number;
  probabilistic_window_hours: number;
  probabilistic: { android: boolean; ios: boolean };
  confidence_floor: ConfidenceFloor;
  deep_link_confidence_floor: DeepLinkConfidenceFloor;
}

export interface LinkSettings {
  app_store_id: string | null;
  play_package: string | null;
  web_url: string | null;
  hosts: string[];
  apple_team_id: string | null;
  android_sha256_fingerprints: string[];
  languages: string[];
  preview_title: string | null;
  preview_description: string | null;
  preview_image_url: string | null;
}

export interface AppSettings extends AppSummary {
  encryption: { enabled: boolean; key_id: string | null };
  attribution: AttributionSettings;
  links: LinkSettings;
}

/** What PATCH /v1/apps/{app_id} takes: any subset of the writable fields, nested ones partial. */
export interface AppSettingsPatch {
  name?: string;
  enabled?: boolean;
  time_zone?: string;
  encryption?: { enabled?: boolean };
  attribution?: Partial<Omit<AttributionSettings, "probabilistic">> & {
    probabilistic?: Partial<AttributionSettings["probabilistic"]>;
  };
  links?: Partial<LinkSettings>;
}

export type KeyKind = "sdk" | "server";

export interface ApiKey {
  key_id: string;
  kind: KeyKind;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

/** A key just made: the key itself is in it this once. */
export interface NewApiKey extends ApiKey {
  key: string;
}

export interface Link {
  deeplink_id: string;
  url: string;
  media_source: string;
  campaign_id: string | null;
  campaign_name: string | null;
  adset_id: string | null;
  adset_name: string | null;
  ad_id: string | null;
  ad_name: string | null;
  deep_link_path: string | null;
  params: Record<string, string>;
  android_url: string | null;
  ios_url: string | null;
  web_url: string | null;
  disabled: boolean;
  landing_page: boolean;
  forward_params: boolean;
  preview_title: string | null;
  preview_description: string | null;
  preview_image_url: string | null;
  created_at: string;
}

export interface LinkRequest {
  media_source: string;
  campaign_name?: string;
  campaign_id?: string;
  deep_link_path?: string;
  params?: Record<string, string>;
  landing_page?: boolean;
  forward_params?: boolean;
  preview_title?: string;
  preview_description?: string;
  preview_image_url?: string;
}

export interface LinkPage {
  data: Link[];
  next_cursor: string | null;
}

export interface Overview {
  from: string;
  to: string;
  /** The app's time zone, whose days the report counts. */
  time_zone: string;
  totals: {
    installs: number;
    paid_installs: number;
    organic_installs: number;
    /** Installs of a device that had the app, apart from `installs`. */
    reinstalls: number;
    events: number;
    revenue_usd: number;
  };
  /** media_source: "organic" for organic installs, null for installs credited to none. */
  installs_by_day: { date: string; media_source: string | null; installs: number }[];
  match_status: { status: string; installs: number }[];
  match_method: { method: string; installs: number }[];
  events_by_day: { date: string; event_name: string | null; events: number }[];
  revenue_by_day: { date: string; revenue_usd: number }[];
  campaigns: CampaignRow[];
  deep_link_paths: { deep_link_path: string | null; installs: number }[];
  /** By the country the events were sent from (null: none known), most installs first. */
  countries: { country: string | null; installs: number; events: number; revenue_usd: number }[];
  /** The range's revenue events left out of every revenue figure: no rate converts them to USD. */
  revenue_events_unconverted: number;
  /** Those events per currency, most first, with their amount in it. */
  revenue_unconverted: { currency: string; events: number; amount: number }[];
}

export interface CampaignRow {
  media_source: string | null;
  campaign: string | null;
  installs: number;
  /** The campaign's reinstalls, apart from `installs`. */
  reinstalls: number;
  events: number;
  revenue_usd: number;
  revenue_per_install: number | null;
}

/** What the cohorts report may break each media source's installs down by. */
export type CohortGroupBy = "campaign" | "adset" | "ad" | "country" | "platform";

/**
 * The reports' filters (GET /v1/reports/overview and /cohorts): only the installs of this media
 * source and campaign, and what was sent from this country and platform, with their events (and,
 * for the cohorts, their touches and cost).
 */
export interface ReportFilters {
  media_source?: string;
  campaign?: string;
  country?: string;
  platform?: string;
}

/**
 * A set of installs' figures (src/reports/cohorts.ts): null is a figure not known (no clicks,
 * no cost) or not reached yet (no install day has reached day N), never a zero.
 */
export interface CohortFigures {
  impressions: number;
  clicks: number;
  installs: number;
  conversion_rate: number | null;
  cost_usd: number | null;
  /** Over the paid installs of the campaigns with a cost. */
  ecpi_usd: number | null;
  /** Installs a media source other than organic won. */
  paid_installs: number;
  /** Of them, those of campaigns with a cost: what eCPI and ROAS weigh the cost against. */
  paid_installs_with_cost: number;
  revenue_usd: number;
  /** Revenue events left out of revenue_usd, ARPU and ROAS: no rate converts their currency. */
  revenue_events_unconverted: number;
  /** Revenue over installs, to date: installs too young to have reached day 30 lower it. */
  arpu_usd: number | null;
  /** Revenue to day N over the installs of the install days that reached it. */
  arpu: { d0: number | null; d7: number | null; d30: number | null };
  /** Share of installs with revenue by day N, of the install days that reached it. */
  paying_user_rate: { d0: number | null; d7: number | null; d30: number | null };
  retention: { d1: number | null; d7: number | null; d30: number | null };
  roas: { d0: number | null; d7: number | null; d30: number | null };
}

export interface CohortGroupRow extends CohortFigures {
  media_source: string | null;
  group: string | null;
}

export interface CohortRow {
  /** The install day, `YYYY-MM-DD`. */
  day: string;
  installs: number;
  /** Index N: day N since install, 0 to 30; null for a day not reached yet. */
  retention: (number | null)[];
  revenue_per_user: (number | null)[];
}

/**
 * Installs with a session, whatever their install day: in the whole range (each once), their
 * daily mean, and per UTC day of the range.
 */
export interface ActiveUsers {
  range: number;
  /** Over the range's days that are over; null while none is (a range of today alone). */
  average_daily: number | null;
  daily: { day: string; active: number }[];
}

export interface CohortReport {
  from: string;
  to: string;
  /** The app's time zone, whose days the report counts. */
  time_zone: string;
  group_by: CohortGroupBy;
  filters: ReportFilters;
  active_users: ActiveUsers;
  /** The range's cost rows left out of every cost: no rate of their day converts them to USD. */
  cost_rows_unconverted: number;
  /**
   * The installs (CPI), clicks (CPC) and impressions (CPM) whose price, carried by their link or
   * click, is left out of every cost for the same reason; none a cost row replaces.
   */
  touch_costs_unconverted: number;
  /**
   * Campaigns with a cost on some days and paid installs on days with none, which weigh in eCPI
   * and ROAS as though free; most paid installs first.
   */
  cost_days_missing: {
    media_source: string | null;
    campaign: string | null;
    days: string[];
    paid_installs: number;
  }[];
  /** The installs' revenue events left out of revenue, ARPU and ROAS for the same reason. */
  revenue_events_unconverted: number;
  /** Those events per currency, most first, with their amount in it. */
  revenue_unconverted: { currency: string; events: number; amount: number }[];
  totals: CohortFigures;
  groups: CohortGroupRow[];
  cohorts: CohortRow[];
}

export interface LinkClicks {
  deeplink_id: string;
  clicks: number;
}

/**
 * One exported event. The export's record names every field (any may be null); the dashboard
 * reads a few of them and shows the rest as they come.
 */
export interface ExportRecord {
  event_id: string | null;
  event_time: string | null;
  event_name: string | null;
  media_source: string | null;
  campaign_name?: string | null;
  campaign?: string | null;
  revenue_usd: number | null;
  country?: string | null;
  country_code?: string | null;
  os?: string | null;
  platform?: string | null;
  [field: string]: unknown;
}

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

export const createApp = async (app: {
  app_id: string;
  name: string;
  platform: Platform;
}): Promise<AppSettings> =>
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

/** What `PATCH /v1/links/{deeplink_id}` changes; a preview field's null clears it. */
export interface LinkPatch {
  disabled?: boolean;
  landing_page?: boolean;
  forward_params?: boolean;
  preview_title?: string | null;
  preview_description?: string | null;
  preview_image_url?: string | null;
}

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
export interface CostRow {
  day: string;
  media_source: string;
  campaign_id: string;
  campaign_name: string | null;
  adset_id: string | null;
  adset_name: string | null;
  ad_id: string | null;
  ad_name: string | null;
  country: string | null;
  amount: number;
  currency: string;
  /** At the ECB's rate of the row's day; null when there is none. */
  amount_usd: number | null;
  impressions: number | null;
  clicks: number | null;
  received_at: string;
}

/** What POST /v1/costs stored: rows, and of them those that replaced one of the same keys. */
export interface CostsStored {
  accepted: number;
  replaced: number;
  /** Campaigns' days whose rows are at several levels of detail, which count spend twice. */
  warnings: string[];
}

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

export interface CatalogValue {
  name: string;
  label: string;
  /** Stored sealed once saved, never shown again. */
  secret: boolean;
  kind: "text" | "url";
  description: string;
}

export type InstallScope = "won" | "all";

export interface CatalogPartner {
  id: string;
  name: string;
  method: string;
  installs: InstallScope;
  media_sources: string[];
  /** The names an event may be mapped to; null: any. */
  event_names: string[] | null;
  takes_installs: boolean;
  takes_events: boolean;
  values: CatalogValue[];
  macros: string[];
  /** Its id on the IAB's Global Vendor List; null where the catalog does not know it. */
  tcf_vendor_id: number | null;
  sources: string[];
  notes: string;
}

export interface CatalogMacro {
  name: string;
  kind: "text" | "number";
  of: "install" | "event" | "any";
  description: string;
}

export interface PartnerCatalog {
  data: CatalogPartner[];
  macros: CatalogMacro[];
}

export type HttpMethod = "GET" | "POST";

export interface RequestTemplate {
  url: string;
  headers?: Record<string, string>;
  body?: string | null;
}

/** A custom partner's template: the method, and an install and/or event request. */
export interface CustomTemplate {
  method: HttpMethod;
  install?: RequestTemplate | null;
  event?: RequestTemplate | null;
}

export interface EventMapping {
  name: string;
  revenue: boolean;
}

export interface PartnerConfig {
  id: string;
  partner: string;
  /** A custom partner's; null for a catalog one. */
  template: CustomTemplate | null;
  media_sources: string[];
  /** The values that are not secret. */
  values: Record<string, string>;
  /** The names of the secret values saved: never shown. */
  sealed_values: string[];
  secret_values: string[];
  installs: InstallScope;
  events: Record<string, EventMapping>;
  event_window_days: number;
  /** The partner's Global Vendor List id, whose consent in a TCF string it needs; null: none. */
  tcf_vendor_id: number | null;
  enabled: boolean;
  updated_at: string;
}

/** What `PUT /v1/postbacks/partners/{config_id}` takes: a secret value left out is kept. */
export interface PartnerConfigRequest {
  partner: string;
  template?: CustomTemplate | null;
  media_sources?: string[];
  values?: Record<string, string>;
  secret_values?: string[];
  installs?: InstallScope;
  events?: Record<string, EventMapping>;
  event_window_days?: number;
  tcf_vendor_id?: number | null;
  enabled?: boolean;
}

export interface Webhook {
  id: string;
  url: string;
  enabled: boolean;
  updated_at: string;
  /** The signing secret: only in the answer that made it. */
  secret?: string;
}

export interface WebhookRequest {
  url: string;
  enabled?: boolean;
  rotate_secret?: boolean;
}

export interface PostbackSettings {
  share_device_data_without_consent: boolean;
}

export interface DeliveryCounts {
  day: string;
  config_id: string;
  partner: string;
  delivered: number;
  retry: number;
  failed: number;
  /** Sends skipped (nothing sent), apart from the failures. */
  skipped: number;
}

export interface Postbacks {
  partners: PartnerConfig[];
  webhooks: Webhook[];
  settings: PostbackSettings;
  /** The last 30 days' attempts, per day and configuration, by verdict. */
  counts: DeliveryCounts[];
}

export type Verdict = "delivered" | "retry" | "failed";

export interface PostbackTest {
  kind?: "install" | "event";
  platform?: Platform;
  /** Our event name; the first mapped event when left out. */
  event_name?: string;
}

export interface PostbackTestResult {
  request: {
    method: string;
    /** As sent, its secrets masked. */
    url: string;
    headers: Record<string, string>;
    body: string | null;
  };
  response: { status: number | null; body: string | null; error: string | null };
  verdict: Verdict;
  /** What real sends would meet that the test's sample install does not. */
  warnings: string[];
}

export interface DeliveryAttempt {
  time: string;
  send_id: string;
  config_id: string;
  target: "partner" | "webhook";
  partner: string;
  kind: "install" | "event";
  service_id: string;
  event_id: string | null;
  method: string;
  url: string;
  status: number | null;
  answer: string | null;
  error: string | null;
  attempt: number;
  retry: boolean;
  /** `skipped`: no request was made, for the `reason` given. */
  verdict: Verdict | "skipped";
  final: boolean;
  /** Why a send was skipped (`no_consent`, `missing:advertising_id`, …); null for an attempt. */
  reason: string | null;
}

export interface DeliveryLogPage {
  data: DeliveryAttempt[];
  next_cursor: string | null;
}

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

export type CoarseValue = "low" | "medium" | "high";

/** One rule of a conversion window (src/skadnetwork/conversion-schema.ts). */
export interface ConversionRule {
  /** The event as the export names it (`service_purchase`). */
  event: string;
  /** How many times it happened in the window, at least; 1 when left out. */
  min_count?: number;
  /** The window's revenue of the event in USD, `min` included, `max` excluded. */
  revenue_usd?: { min?: number; max?: number };
  /** One occurrence's numeric parameter reached at least this. */
  parameter?: { name: string; at_least: number };
  /** The fine value, 1 to 63 (0 is every install's at its first launch): the first window's rules only, and required there. */
  fine?: number;
  coarse: CoarseValue;
  /** Reaching it ends the window's updates, so Apple sends its postback sooner. */
  lock?: boolean;
}

export interface ConversionWindow {
  rules: ConversionRule[];
}

export interface ConversionSchema {
  version: number;
  updated_at: string;
  /** Apple's three conversion windows, in order. */
  windows: ConversionWindow[];
}

export interface AdNetworkName {
  ad_network_id: string;
  media_source: string;
  /** The app's own name, not the catalog's. */
  own: boolean;
}

/** Revenue in USD from `min` up to `max`; `max` null: no bound above. */
export interface RevenueRange {
  min: number;
  max: number | null;
}

export interface SkadnetworkReport {
  postbacks: {
    received: number;
    counted: number;
    unverified: number;
    development: number;
    disputed: number;
  };
  /**
   * The revenue the installs' values state under the schema, every window's; null without a
   * schema whose rules read revenue.
   */
  revenue_usd: RevenueRange | null;
  campaigns: {
    media_source: string;
    ad_network_id: string;
    /** The campaign: 2 to 4 digits from SKAdNetwork 4.0. */
    source_identifier: string;
    /** Apple's field it is: `campaign-id` before 4.0, another numbering with one window. */
    identifier_field: "source-identifier" | "campaign-id";
    installs: number;
    redownloads: number;
    /** AdAttributionKit's re-engagements: users an ad brought back to the installed app. */
    reengagements: number;
    /**
     * Postbacks of the second and third windows, on a row of two digits only (Apple sends them
     * with two digits); null on the other rows.
     */
    later_postbacks: number | null;
    /** The installs and redownloads of every row ending in the row's two digits; null likewise. */
    suffix_installs: number | null;
    /** The first window's revenue the row's installs and redownloads state. */
    revenue_usd: RevenueRange | null;
    /** The later windows' revenue `later_postbacks` state; null where either is. */
    later_revenue_usd: RevenueRange | null;
  }[];
  values: {
    /** An install's value, or a re-engagement's (its windows start at the re-engagement). */
    conversion: "install" | "reengagement";
    /** 0, 1 or 2: the first, second or third conversion window. */
    window: number;
    fine: number | null;
    coarse: CoarseValue | null;
    postbacks: number;
    /** The schema's rules that give an install's value (none for a re-engagement's). */
    meaning: string[];
    /** The window's revenue one postback of the value states (null for a re-engagement's). */
    revenue_usd: RevenueRange | null;
  }[];
  tiers: { fine: number; coarse_only: number; none: number };
}

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
export interface UnknownPostbacks {
  app_store_ids: {
    app_store_id: string;
    postbacks: number;
    /** Verified with Apple's production key: an App Store id Apple signed for an install. */
    verified: number;
    /** Verified with a development key: a test's, anyone's, for any id. */
    development: number;
    first_received_at: string;
    last_received_at: string;
  }[];
  truncated: boolean;
}

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
