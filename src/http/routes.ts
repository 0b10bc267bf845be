/**
 * The route table: one row per endpoint. The CDK API and the embedded gateway are both built
 * from it, so a route exists in both runtimes or in neither. Each row names what its function
 * uses (src/functions/uses.ts), from which its environment and grants on AWS are derived.
 * Routes of one family that use the same things name a `group`: on AWS the group is one
 * function that routes each request to its route's handler (src/functions/manifest.ts).
 * Pure data: no handler imports, so a Lambda entry that reads its row bundles no other route.
 */
import type { Scope } from "../domain/keys.ts";
import type { HandlerRef } from "../functions/handler-ref.ts";
import type { Uses } from "../functions/uses.ts";

interface RouteBase {
  /** Names the function: its Lambda on AWS, its logs on both runtimes. */
  readonly id: string;
  /** Its composition, which both runtimes build the handler from; required of the service's own tables below. */
  readonly handler?: HandlerRef;
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** API Gateway resource path; `{name}` marks a path parameter. */
  readonly path: string;
  /** Streamed responses use Lambda response streaming on AWS. */
  readonly streaming: boolean;
  /** Lambda sizing on AWS. */
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  /** What its function uses on AWS; required of the service's own tables below. */
  readonly uses?: Uses;
  /**
   * The route group whose one function serves it on AWS (the group's name is the function's
   * id); none: a function of its own. A stack holds at most 500 resources and each function
   * brings six (function, role, policy, log group, its errors and throttles alarms), so a
   * family of routes that use the same things shares one. Left apart: a route whose uses
   * differ from its family's, one that streams, and one whose concurrency is reserved.
   */
  readonly group?: string;
}

/**
 * A row of a route table: a keyed route names the key scope it needs; a public one (no key,
 * no authorizer) says why it may be public, which the CDK app records as its cdk-nag
 * acknowledgement.
 */
export type Route = RouteBase &
  (
    | { readonly scope: Scope; readonly publicReason?: never }
    | { readonly scope: null; readonly publicReason: string }
  );

/**
 * The HTTP methods a route answers: a GET route HEAD too, as its GET with the body left off
 * (link checkers and monitors ask so), on both runtimes.
 */
export const methodsOf = (route: Pick<RouteBase, "method">): readonly string[] =>
  route.method === "GET" ? ["GET", "HEAD"] : [route.method];

/** A row of the service's own route tables: it names its composition and what it uses. */
export type ServiceRoute = Route & { readonly handler: HandlerRef; readonly uses: Uses };

/**
 * What the three ingestion routes use: they share one composition (src/http/handlers/ingest.ts), so
 * one environment; only the routes that take events may put them on the stream or open
 * sealed values. The touches table keeps which installs send from each address, which
 * ingestion records for matching (src/ingest/sightings.ts).
 */
const INGEST_USES = {
  tables: {
    apps: "get",
    installs: "create",
    customerUsers: "create",
    deletions: "lookup",
    attributions: "request",
    touches: "sight",
    // Each accepted event's postbacks and webhooks (src/postbacks/triggers.ts).
    postbackConfigs: "read",
    outbox: "enqueue",
  },
  queues: { attribute: "send", postback: "send" },
  rates: "read",
  countries: "read",
  streams: { events: "put" },
  sealingKey: "unwrap",
  settings: ["trustViewerCountry"],
} as const satisfies Uses;

/**
 * What records touches: `POST /v1/touches`; the link host's tap route takes its tables, with the
 * touches' narrower "tap".
 */
const TOUCH_RECORDING_USES = {
  tables: { apps: "get", links: "get", touches: "record" },
  streams: { touches: "put" },
  countries: "read",
} as const satisfies Uses;

const LINKS_USES = {
  tables: { apps: "get", links: "manage" },
  linkHost: "name",
} as const satisfies Uses;

/** The link host's `.well-known` files: every app's link settings. */
const WELL_KNOWN_USES = { tables: { apps: "list" } } as const satisfies Uses;

/** What the dashboard's session routes use: the people, their sessions and passwords. */
const SESSION_USES = {
  tables: { users: "read", sessions: "readWrite" },
  credentials: "verify",
} as const satisfies Uses;

/** What the dashboard's app routes use: apps, keys, who sees what, and new app key pairs. */
const APPS_USES = {
  tables: { apps: "manage", keys: "manage", users: "grant" },
  sealingKey: "wrap",
  // No app may name the service's own link host as one of its own.
  linkHost: "name",
} as const satisfies Uses;

/**
 * What the dashboard's people routes use: the people and their passwords (Cognito on AWS, set
 * and removed), and the apps, each granted one looked up.
 */
const USERS_USES = {
  tables: { users: "manage", apps: "get" },
  credentials: "manage",
} as const satisfies Uses;

/**
 * What the report routes use: the app (its time zone), its deletions to leave out, and the
 * lake's reports.
 */
const REPORTS_USES = {
  tables: { apps: "get", deletions: "tombstones", costs: "read" },
  queries: "reports",
} as const satisfies Uses;

/**
 * What the postback configuration routes use: the configurations and the delivery log, the
 * key that seals their secrets (and opens a saved one that a change keeps, or a test sends),
 * and the operator's loopback setting, which saving and a test postback both obey.
 */
const POSTBACKS_USES = {
  // The deletion requests, whose installs the delivery log's pages leave out.
  tables: { apps: "get", postbackConfigs: "manage", deliveryLog: "read", deletions: "tombstones" },
  postbackSecrets: "manage",
  settings: ["postbacksAllowLoopback"],
} as const satisfies Uses;

/** What the SKAdNetwork routes use: the app (its schema and network names), Apple's postbacks. */
const SKADNETWORK_USES = {
  tables: { apps: "configure", applePostbacks: "read" },
  // The report reads the lake's apple_postbacks through the query engine.
  queries: "reports",
} as const satisfies Uses;

/** What the cost routes use: the cost rows, and the rates that convert them to USD. */
const COSTS_USES = {
  tables: { costs: "manage" },
  rates: "read",
  streams: { costs: "put" },
} as const satisfies Uses;

/** A test postback waits on the partner's answer: 10 s at most. */
const POSTBACK_TEST_SIZING = { streaming: false, memoryMb: 256, timeoutSeconds: 20 } as const;

/** A report waits on its query: Athena's within API Gateway's 29 s. */
const REPORT_SIZING = { streaming: false, memoryMb: 512, timeoutSeconds: 28 } as const;

/** A dashboard route: a small, quick function. */
const DASHBOARD_SIZING = { streaming: false, memoryMb: 256, timeoutSeconds: 10 } as const;

/**
 * The session routes read their own cookie, so the gateway lets them in without a key.
 */
const SESSION_ROUTE_REASON =
  "It is how a person signs in to the dashboard (a password for a session cookie), or reads or ends their own session: it takes no key, and answers nothing without a valid session.";

/** The API's Lambda authorizer: API keys checked against the keys and apps tables. */
export const AUTHORIZER = {
  id: "authorizer",
  handler: "http/handlers/authorizer.ts#authorizerFunction",
  memoryMb: 256,
  timeoutSeconds: 10,
  uses: { tables: { apps: "lookup", keys: "lookup", users: "read", sessions: "read" } },
} as const;

export const ROUTES = [
  {
    id: "config",
    handler: "http/handlers/config.ts#configFunction",
    method: "GET",
    path: "/v1/config",
    scope: "config",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    // The rates: the conversion value schema's revenue rules are in USD.
    uses: { tables: { apps: "get" }, rates: "read" },
  },
  {
    id: "installs",
    handler: "http/handlers/ingest.ts#installsFunction",
    method: "POST",
    path: "/v1/installs",
    scope: "ingest",
    streaming: false,
    memoryMb: 512,
    timeoutSeconds: 10,
    uses: { ...INGEST_USES, streams: { events: "named" }, sealingKey: "named" },
  },
  {
    id: "events",
    handler: "http/handlers/ingest.ts#eventsFunction",
    method: "POST",
    path: "/v1/events",
    scope: "ingest",
    streaming: false,
    memoryMb: 512,
    timeoutSeconds: 15,
    uses: INGEST_USES,
  },
  {
    id: "app-sessions",
    handler: "http/handlers/sessions.ts#sessionsFunction",
    method: "POST",
    path: "/v1/sessions",
    scope: "ingest",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: {
      // The touches table keeps which installs send from each address (src/ingest/sightings.ts).
      tables: { apps: "get", installs: "get", deletions: "lookup", touches: "sight" },
      countries: "read",
      streams: { sessions: "put" },
      settings: ["trustViewerCountry"],
    },
  },
  {
    id: "s2s-events",
    handler: "http/handlers/ingest.ts#s2sEventsFunction",
    method: "POST",
    path: "/v1/s2s/events",
    scope: "s2s",
    streaming: false,
    memoryMb: 512,
    timeoutSeconds: 15,
    uses: INGEST_USES,
  },
  {
    id: "delete-install",
    handler: "http/handlers/deletions.ts#deleteInstallFunction",
    method: "DELETE",
    path: "/v1/installs/{service_id}",
    scope: "ingest",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: { tables: { installs: "get", deletions: "request" } },
  },
  {
    id: "consent",
    handler: "http/handlers/consent.ts#consentFunction",
    method: "POST",
    path: "/v1/installs/{service_id}/consent",
    scope: "ingest",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: { tables: { apps: "get", installs: "consent", deletions: "lookup" } },
  },
  {
    id: "request-deletion",
    handler: "http/handlers/deletions.ts#requestDeletionFunction",
    method: "POST",
    path: "/v1/deletions",
    scope: "deletions",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: { tables: { installs: "get", deletions: "request" } },
  },
  {
    id: "deletion-status",
    handler: "http/handlers/deletions.ts#deletionStatusFunction",
    method: "GET",
    path: "/v1/deletions/{request_id}",
    scope: "deletions",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: { tables: { deletions: "status" } },
  },
  {
    id: "export",
    handler: "http/handlers/export.ts#exportFunction",
    method: "GET",
    path: "/api/v1/export",
    scope: "export",
    streaming: true,
    memoryMb: 512,
    timeoutSeconds: 300,
    uses: {
      tables: { snapshots: "readWrite", deletions: "tombstones" },
      queries: "export",
      settings: ["snapshotTtl"],
    },
  },
  {
    id: "attribution",
    handler: "http/handlers/install-attribution.ts#attributionFunction",
    method: "GET",
    path: "/v1/installs/{service_id}/attribution",
    scope: "attribution:read",
    streaming: false,
    memoryMb: 256,
    // A request may wait up to 20 s for its attribution (API Gateway allows 29).
    timeoutSeconds: 25,
    uses: { tables: { apps: "get", attributions: "get", deletions: "lookup" } },
  },
  {
    id: "touches",
    handler: "http/handlers/touches.ts#touchesFunction",
    method: "POST",
    path: "/v1/touches",
    scope: "s2s",
    streaming: false,
    memoryMb: 512,
    timeoutSeconds: 15,
    // The rates: a touch's cost goes to the lake in USD too.
    uses: { ...TOUCH_RECORDING_USES, rates: "read" },
  },
  {
    id: "create-link",
    group: "links",
    handler: "http/handlers/links.ts#createLinkFunction",
    method: "POST",
    path: "/v1/links",
    scope: "links",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: LINKS_USES,
  },
  {
    id: "list-links",
    group: "links",
    handler: "http/handlers/links.ts#listLinksFunction",
    method: "GET",
    path: "/v1/links",
    scope: "links",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: LINKS_USES,
  },
  {
    id: "get-link",
    group: "links",
    handler: "http/handlers/links.ts#getLinkFunction",
    method: "GET",
    path: "/v1/links/{deeplink_id}",
    scope: "links",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: LINKS_USES,
  },
  {
    id: "update-link",
    group: "links",
    handler: "http/handlers/links.ts#updateLinkFunction",
    method: "PATCH",
    path: "/v1/links/{deeplink_id}",
    scope: "links",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: LINKS_USES,
  },
  {
    id: "sign-in",
    group: "sessions",
    handler: "http/handlers/session.ts#signInFunction",
    method: "POST",
    path: "/v1/session",
    scope: null,
    publicReason: SESSION_ROUTE_REASON,
    ...DASHBOARD_SIZING,
    uses: SESSION_USES,
  },
  {
    id: "session",
    group: "sessions",
    handler: "http/handlers/session.ts#sessionFunction",
    method: "GET",
    path: "/v1/session",
    scope: null,
    publicReason: SESSION_ROUTE_REASON,
    ...DASHBOARD_SIZING,
    uses: SESSION_USES,
  },
  {
    id: "sign-out",
    group: "sessions",
    handler: "http/handlers/session.ts#signOutFunction",
    method: "DELETE",
    path: "/v1/session",
    scope: null,
    publicReason: SESSION_ROUTE_REASON,
    ...DASHBOARD_SIZING,
    uses: SESSION_USES,
  },
  {
    id: "list-apps",
    group: "apps",
    handler: "http/handlers/apps.ts#listAppsFunction",
    method: "GET",
    path: "/v1/apps",
    scope: "apps",
    ...DASHBOARD_SIZING,
    uses: APPS_USES,
  },
  {
    id: "create-app",
    group: "apps",
    handler: "http/handlers/apps.ts#createAppFunction",
    method: "POST",
    path: "/v1/apps",
    scope: "apps",
    ...DASHBOARD_SIZING,
    uses: APPS_USES,
  },
  {
    id: "get-app",
    group: "apps",
    handler: "http/handlers/apps.ts#getAppFunction",
    method: "GET",
    path: "/v1/apps/{app_id}",
    scope: "apps",
    ...DASHBOARD_SIZING,
    uses: APPS_USES,
  },
  {
    id: "update-app",
    group: "apps",
    handler: "http/handlers/apps.ts#updateAppFunction",
    method: "PATCH",
    path: "/v1/apps/{app_id}",
    scope: "apps",
    ...DASHBOARD_SIZING,
    uses: APPS_USES,
  },
  {
    id: "list-keys",
    group: "apps",
    handler: "http/handlers/apps.ts#listKeysFunction",
    method: "GET",
    path: "/v1/apps/{app_id}/keys",
    scope: "apps",
    ...DASHBOARD_SIZING,
    uses: APPS_USES,
  },
  {
    id: "create-key",
    group: "apps",
    handler: "http/handlers/apps.ts#createKeyFunction",
    method: "POST",
    path: "/v1/apps/{app_id}/keys",
    scope: "apps",
    ...DASHBOARD_SIZING,
    uses: APPS_USES,
  },
  {
    id: "revoke-key",
    group: "apps",
    handler: "http/handlers/apps.ts#revokeKeyFunction",
    method: "DELETE",
    path: "/v1/apps/{app_id}/keys/{key_id}",
    scope: "apps",
    ...DASHBOARD_SIZING,
    uses: APPS_USES,
  },
  {
    id: "list-users",
    group: "users",
    handler: "http/handlers/users.ts#listUsersFunction",
    method: "GET",
    path: "/v1/users",
    scope: "users",
    ...DASHBOARD_SIZING,
    uses: USERS_USES,
  },
  {
    id: "create-user",
    group: "users",
    handler: "http/handlers/users.ts#createUserFunction",
    method: "POST",
    path: "/v1/users",
    scope: "users",
    ...DASHBOARD_SIZING,
    uses: USERS_USES,
  },
  {
    id: "reset-user-password",
    group: "users",
    handler: "http/handlers/users.ts#resetUserPasswordFunction",
    method: "POST",
    path: "/v1/users/{email}/password",
    scope: "users",
    ...DASHBOARD_SIZING,
    uses: USERS_USES,
  },
  {
    id: "remove-user",
    group: "users",
    handler: "http/handlers/users.ts#removeUserFunction",
    method: "DELETE",
    path: "/v1/users/{email}",
    scope: "users",
    ...DASHBOARD_SIZING,
    uses: USERS_USES,
  },
  {
    id: "grant-user-app",
    group: "users",
    handler: "http/handlers/users.ts#grantUserAppFunction",
    method: "PUT",
    path: "/v1/users/{email}/apps/{app_id}",
    scope: "users",
    ...DASHBOARD_SIZING,
    uses: USERS_USES,
  },
  {
    id: "revoke-user-app",
    group: "users",
    handler: "http/handlers/users.ts#revokeUserAppFunction",
    method: "DELETE",
    path: "/v1/users/{email}/apps/{app_id}",
    scope: "users",
    ...DASHBOARD_SIZING,
    uses: USERS_USES,
  },
  {
    id: "report-overview",
    group: "reports",
    handler: "http/handlers/reports.ts#overviewReportFunction",
    method: "GET",
    path: "/v1/reports/overview",
    scope: "reports",
    ...REPORT_SIZING,
    uses: REPORTS_USES,
  },
  {
    id: "report-cohorts",
    group: "reports",
    handler: "http/handlers/reports.ts#cohortsReportFunction",
    method: "GET",
    path: "/v1/reports/cohorts",
    scope: "reports",
    ...REPORT_SIZING,
    uses: REPORTS_USES,
  },
  {
    id: "report-link-clicks",
    group: "reports",
    handler: "http/handlers/reports.ts#linkClicksReportFunction",
    method: "GET",
    path: "/v1/reports/link-clicks",
    scope: "reports",
    ...REPORT_SIZING,
    uses: REPORTS_USES,
  },
  {
    id: "report-latest-events",
    group: "reports",
    handler: "http/handlers/reports.ts#latestEventsReportFunction",
    method: "GET",
    path: "/v1/reports/latest-events",
    scope: "reports",
    ...REPORT_SIZING,
    uses: REPORTS_USES,
  },
  {
    id: "list-partners",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#listPartnersFunction",
    method: "GET",
    path: "/v1/partners",
    scope: "postbacks",
    ...DASHBOARD_SIZING,
    uses: {},
  },
  {
    id: "list-postbacks",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#listPostbacksFunction",
    method: "GET",
    path: "/v1/postbacks",
    scope: "postbacks",
    ...DASHBOARD_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "put-partner-postback",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#putPartnerPostbackFunction",
    method: "PUT",
    path: "/v1/postbacks/partners/{config_id}",
    scope: "postbacks",
    ...DASHBOARD_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "delete-partner-postback",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#deletePartnerPostbackFunction",
    method: "DELETE",
    path: "/v1/postbacks/partners/{config_id}",
    scope: "postbacks",
    ...DASHBOARD_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "test-partner-postback",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#testPartnerPostbackFunction",
    method: "POST",
    path: "/v1/postbacks/partners/{config_id}/test",
    scope: "postbacks",
    ...POSTBACK_TEST_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "put-webhook",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#putWebhookFunction",
    method: "PUT",
    path: "/v1/postbacks/webhooks/{config_id}",
    scope: "postbacks",
    ...DASHBOARD_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "delete-webhook",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#deleteWebhookFunction",
    method: "DELETE",
    path: "/v1/postbacks/webhooks/{config_id}",
    scope: "postbacks",
    ...DASHBOARD_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "test-webhook",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#testWebhookFunction",
    method: "POST",
    path: "/v1/postbacks/webhooks/{config_id}/test",
    scope: "postbacks",
    ...POSTBACK_TEST_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "put-postback-settings",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#putPostbackSettingsFunction",
    method: "PUT",
    path: "/v1/postbacks/settings",
    scope: "postbacks",
    ...DASHBOARD_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "postback-log",
    group: "postbacks",
    handler: "http/handlers/postbacks.ts#postbackLogFunction",
    method: "GET",
    path: "/v1/postbacks/log",
    scope: "postbacks",
    ...DASHBOARD_SIZING,
    uses: POSTBACKS_USES,
  },
  {
    id: "get-skadnetwork-schema",
    group: "skadnetwork",
    handler: "http/handlers/skadnetwork.ts#getSkadnetworkSchemaFunction",
    method: "GET",
    path: "/v1/skadnetwork/schema",
    scope: "postbacks",
    ...REPORT_SIZING,
    uses: SKADNETWORK_USES,
  },
  {
    id: "put-skadnetwork-schema",
    group: "skadnetwork",
    handler: "http/handlers/skadnetwork.ts#putSkadnetworkSchemaFunction",
    method: "PUT",
    path: "/v1/skadnetwork/schema",
    scope: "postbacks",
    ...REPORT_SIZING,
    uses: SKADNETWORK_USES,
  },
  {
    id: "get-skadnetwork-networks",
    group: "skadnetwork",
    handler: "http/handlers/skadnetwork.ts#getSkadnetworkNetworksFunction",
    method: "GET",
    path: "/v1/skadnetwork/networks",
    scope: "postbacks",
    ...REPORT_SIZING,
    uses: SKADNETWORK_USES,
  },
  {
    id: "put-skadnetwork-networks",
    group: "skadnetwork",
    handler: "http/handlers/skadnetwork.ts#putSkadnetworkNetworksFunction",
    method: "PUT",
    path: "/v1/skadnetwork/networks",
    scope: "postbacks",
    ...REPORT_SIZING,
    uses: SKADNETWORK_USES,
  },
  {
    id: "report-skadnetwork",
    group: "skadnetwork",
    handler: "http/handlers/skadnetwork.ts#skadnetworkReportFunction",
    method: "GET",
    path: "/v1/skadnetwork/report",
    scope: "postbacks",
    ...REPORT_SIZING,
    uses: SKADNETWORK_USES,
  },
  {
    id: "list-skadnetwork-postbacks",
    group: "skadnetwork",
    handler: "http/handlers/skadnetwork.ts#listSkadnetworkPostbacksFunction",
    method: "GET",
    path: "/v1/skadnetwork/postbacks",
    scope: "postbacks",
    ...REPORT_SIZING,
    uses: SKADNETWORK_USES,
  },
  {
    // Session only: a postback of no app is no app's, so only the service's admins see them.
    id: "unknown-skadnetwork-postbacks",
    handler: "http/handlers/skadnetwork.ts#unknownSkadnetworkPostbacksFunction",
    method: "GET",
    path: "/v1/skadnetwork/unknown",
    scope: "apps",
    ...DASHBOARD_SIZING,
    uses: { tables: { users: "read", applePostbacks: "unknown", apps: "list" } },
  },
  {
    id: "put-costs",
    group: "costs",
    handler: "http/handlers/costs.ts#putCostsFunction",
    method: "POST",
    path: "/v1/costs",
    scope: "costs",
    ...DASHBOARD_SIZING,
    uses: COSTS_USES,
  },
  {
    id: "list-costs",
    group: "costs",
    handler: "http/handlers/costs.ts#listCostsFunction",
    method: "GET",
    path: "/v1/costs",
    scope: "costs",
    ...DASHBOARD_SIZING,
    uses: COSTS_USES,
  },
  {
    id: "openapi",
    handler: "http/handlers/openapi.ts#openApiFunction",
    method: "GET",
    path: "/v1/openapi.json",
    scope: null,
    publicReason:
      "It serves the API's published contract (no app data), the same document as spec/openapi.json in the repository.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: {},
  },
] as const satisfies readonly ServiceRoute[];

export type RouteId = (typeof ROUTES)[number]["id"];

/** The API's route groups, each one function on AWS named by the group. */
export type RouteGroupId = Extract<(typeof ROUTES)[number], { readonly group: string }>["group"];

/**
 * The link host's route table: its own listener on the embedded runtime, its own API on AWS.
 * Every route is public: a link is tapped by anyone, and the files are read by Apple and Google.
 */
export const LINK_HOST_ROUTES = [
  {
    id: "click",
    handler: "http/handlers/link-host.ts#clickFunction",
    method: "GET",
    path: "/{deeplink_id}",
    scope: null,
    publicReason:
      "It is a link in an ad: anyone may tap it. It answers a redirect and records the tap, and reveals nothing of the app's data.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    // Its one write is the touch store's: the touches table's stream feeds the lake
    // (src/touches/tap-lake.ts). On AWS the tapper's address comes from the link host's
    // CloudFront distribution.
    uses: {
      tables: { ...TOUCH_RECORDING_USES.tables, apps: "tap", touches: "tap" },
      countries: "read",
      settings: ["trustViewerAddress"],
    },
  },
  {
    id: "apple-app-site-association",
    handler: "http/handlers/link-host.ts#appleAppSiteAssociationFunction",
    method: "GET",
    path: "/.well-known/apple-app-site-association",
    scope: null,
    publicReason: "Apple's devices fetch it without credentials to open links in the app.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: WELL_KNOWN_USES,
  },
  {
    id: "assetlinks",
    handler: "http/handlers/link-host.ts#assetLinksFunction",
    method: "GET",
    path: "/.well-known/assetlinks.json",
    scope: null,
    publicReason: "Android's verifier fetches it without credentials to open links in the app.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: WELL_KNOWN_USES,
  },
  {
    id: "apple-postback",
    handler: "http/handlers/apple-postbacks.ts#applePostbackFunction",
    method: "POST",
    // `skadnetwork` or `appattribution`. Apple's devices send a trailing slash: the embedded
    // gateway takes it as this path, and on AWS the distribution trims it (lib/link-host.ts).
    path: "/.well-known/{framework}/report-attribution",
    scope: null,
    publicReason:
      "Apple's devices post their copies of SKAdNetwork and AdAttributionKit postbacks to the app's domain without credentials; each is kept with the verdict on Apple's signature, and only verified ones count.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    uses: {
      tables: { apps: "list", applePostbacks: "receive" },
      streams: { apple_postbacks: "put" },
    },
  },
] as const satisfies readonly ServiceRoute[];

export type LinkHostRouteId = (typeof LINK_HOST_ROUTES)[number]["id"];

type AnyRoute = (typeof ROUTES)[number] | (typeof LINK_HOST_ROUTES)[number];

/** A route's row, by its id, in either table. */
export const routeOf = <K extends AnyRoute["id"]>(id: K): Extract<AnyRoute, { id: K }> => {
  const row = [...ROUTES, ...LINK_HOST_ROUTES].find((candidate) => candidate.id === id);
  if (!row) throw new Error(`No route ${id}`);
  return row as Extract<AnyRoute, { id: K }>;
};
