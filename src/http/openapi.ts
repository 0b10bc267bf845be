/**
 * The API's OpenAPI 3.1 document, generated from the route table and each route's contract
 * (src/http/contracts/), so it describes what the code does. The API serves it at
 * `GET /v1/openapi.json`; `npm run openapi` writes the committed copy, spec/openapi.json, and
 * a test fails when the two differ.
 */
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from "@asteasolutions/zod-to-openapi";
import * as z from "zod";
import pkg from "../../package.json" with { type: "json" };
import { CLEAR_PARAMETER_KEYS, SEALING_ALGORITHM } from "../apps/app-config.ts";
import { UnauthorizedError } from "../domain/errors.ts";
import { EVENT_TYPES, exportEventName } from "../domain/event-types.ts";
import { KEY_KINDS, type Scope } from "../domain/keys.ts";
import { CSRF_HEADER, SESSION_COOKIE, SESSION_ROUTE_SCOPES } from "../domain/sessions.ts";
import { MAX_LIMIT } from "../export/paging.ts";
import { ISO_4217_CODES } from "../ingest/currencies.ts";
import { INGEST_LIMITS } from "../ingest/limits.ts";
import { PII_KEYS } from "../ingest/pii.ts";
import {
  CONTRACTS,
  type ErrorStatus,
  errorBodySchema,
  JSON_MEDIA_TYPE,
  type RouteContract,
} from "./contracts/index.ts";
import { INTERNAL_ERROR_DETAIL, statusName } from "./errors.ts";
import { ROUTES, type Route } from "./routes.ts";

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

/** The committed copy, relative to the project root. */
export const OPENAPI_FILE = "spec/openapi.json";

/** The security scheme every keyed operation names. */
export const API_KEY_SCHEME = "ApiKey";

/** The dashboard's session cookie, which the operations the dashboard calls also take. */
export const SESSION_SCHEME = "Session";

/** Keys have these scopes; a session has the rest (the dashboard's own). */
const KEY_SCOPES: ReadonlySet<Scope> = new Set(
  Object.values(KEY_KINDS).flatMap((kind) => kind.scopes as readonly Scope[]),
);

/** An operation's security requirements: its key scope, a session, or either. */
export const securityOf = (route: Route): Record<string, string[]>[] => {
  if (route.scope === null) return [];
  const key = KEY_SCOPES.has(route.scope) ? [{ [API_KEY_SCHEME]: [route.scope] }] : [];
  const session = (SESSION_ROUTE_SCOPES as readonly Scope[]).includes(route.scope)
    ? [{ [SESSION_SCHEME]: [] }]
    : [];
  return [...key, ...session];
};

export const TAGS = {
  SDK: "Called by the SDKs in the app, with the app's SDK key.",
  Server: "Called by the app owner's servers, with the app's server key.",
  Export: "The export of attributed events, with the app's server key.",
  Links: "The app's links for ads, with the app's server key.",
  Reports: "The dashboard's figures over the lake, with a server key or a dashboard session.",
  Dashboard:
    "Signing in to the dashboard, the apps, settings and keys a signed-in person manages, and the people an admin manages (session cookie and CSRF token).",
  Contract: "This document. Public.",
} as const;
export type Tag = keyof typeof TAGS;

const SDK_SCOPES: readonly Scope[] = KEY_KINDS.sdk.scopes;

export const tagOf = (route: Route): Tag => {
  if (route.path === "/v1/session" || route.scope === "apps" || route.scope === "users") {
    return "Dashboard";
  }
  if (route.scope === null) return "Contract";
  if (route.scope === "reports") return "Reports";
  if (route.scope === "export") return "Export";
  if (route.scope === "links") return "Links";
  return SDK_SCOPES.includes(route.scope) ? "SDK" : "Server";
};

const table = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  [head, head.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");

const code = (value: string | number) => `\`${value}\``;

const routesOf = (scope: Scope) =>
  ROUTES.filter((route) => route.scope === scope).map((r) => `${r.method} ${r.path}`);

const LIMIT_ROWS: readonly [string, string][] = [
  ["request body", `${INGEST_LIMITS.maxBodyBytes} bytes (1 MiB), checked before parsing: 413`],
  ["events per request", `1 to ${INGEST_LIMITS.maxEventsPerRequest}`],
  [
    "`service_id`, `event_id`",
    `1 to ${INGEST_LIMITS.maxIdLength} characters of A-Z a-z 0-9 . _ : -`,
  ],
  ["`customer_user_id`", `1 to ${INGEST_LIMITS.maxCustomerUserIdLength} characters`],
  ["CUSTOM `event_name`", `${INGEST_LIMITS.maxEventNameLength} characters`],
  [
    "`parameters`",
    `${INGEST_LIMITS.maxParameterKeys} keys per map, keys of ${INGEST_LIMITS.maxParameterKeyLength} ` +
      `characters, ${INGEST_LIMITS.maxParameterDepth} levels of nesting, strings of ` +
      `${INGEST_LIMITS.maxParameterStringLength} characters, ${INGEST_LIMITS.maxParametersBytes} ` +
      "bytes as JSON (null values dropped, before hashing)",
  ],
  [
    "`event_time`",
    `at most ${INGEST_LIMITS.maxFutureSkewHours} hours ahead of the server's clock and ` +
      `${INGEST_LIMITS.maxEventAgeDays} days old`,
  ],
  ["`first_open_time`", `at most ${INGEST_LIMITS.maxFutureSkewHours} hours ahead; no age limit`],
  [
    "`os_version`, `device_model`, `app_version`",
    `${INGEST_LIMITS.maxDeviceFieldLength} characters`,
  ],
  ["`sdk_platform`, `sdk_version`", `${INGEST_LIMITS.maxSdkFieldLength} characters`],
  ["`install_referrer.referrer`", `${INGEST_LIMITS.maxReferrerLength} characters`],
  [
    "`locale`, `timezone`",
    `${INGEST_LIMITS.maxLocaleLength}, ${INGEST_LIMITS.maxTimezoneLength} characters`,
  ],
  ["export `limit`", `1 to ${MAX_LIMIT}, default ${MAX_LIMIT}`],
];

const DESCRIPTION = [
  "The wire contract of the attribution service: the SDKs report installs and events, the " +
    "app's servers send events and follow deletions, make links for ads and report an ad " +
    "network's clicks and impressions, and the app's owner exports the attributed events. Generated from the service's own schemas; the API serves it at " +
    "`GET /v1/openapi.json` and the repository holds it as `spec/openapi.json`.",
  "## Base URL",
  "`{base_url}` is the stack's `ApiUrl` output on AWS (it ends with the stage), or " +
    "`http://127.0.0.1:8787` for the service on one machine (`npm start`).",
  "## Authentication",
  "Every request but `GET /v1/openapi.json` carries the header `Authorization` whose value is " +
    "the bare API key, with no scheme (a `Bearer ` prefix is tolerated). A key belongs to one " +
    "app, and every answer holds only that app's data. An app has two kinds of key:",
  table(
    ["kind", "prefix", "scopes", "routes", "kept"],
    [
      [
        "SDK key",
        code(`${KEY_KINDS.sdk.prefix}_…`),
        KEY_KINDS.sdk.scopes.map(code).join(", "),
        KEY_KINDS.sdk.scopes.flatMap(routesOf).join(", "),
        "in the app, so public",
      ],
      [
        "server key",
        code(`${KEY_KINDS.server.prefix}_…`),
        KEY_KINDS.server.scopes.map(code).join(", "),
        KEY_KINDS.server.scopes.flatMap(routesOf).join(", "),
        "on the owner's servers only",
      ],
    ],
  ),
  `Each operation's \`${API_KEY_SCHEME}\` requirement names the scope it needs. A missing, ` +
    "unknown or revoked key, or one without that scope, is answered 401.",
  "## Errors",
  'Every error answer is JSON `{"error": "<status name>", "detail": "<message>"}` (schema ' +
    "`Error`): `error` is the HTTP status name, `detail` says what went wrong for a person to " +
    "read and names the field at fault; do not parse it. A 500 never shows internals. Besides " +
    "each operation's own errors, the gateway answers 404 for a method and path that match no " +
    "operation, 413 for a body over its limit (on AWS API Gateway's 10 MiB; on one machine the " +
    "operation's own, none for one that takes no body), and on AWS 429 when the stage's rate " +
    "limit is hit; on one machine also 400 for a request that is not HTTP, 408 for one whose " +
    "headers take over 10 s or whole over 30 s, 431 for headers over 16 KiB, and 503 with " +
    "`Retry-After` while the request bodies it holds at once reach their total.",
  "## Limits",
  table(["what", "limit"], LIMIT_ROWS),
  "## Links and touches",
  "A link's `url` is served by the link host, not by this API (`LinkHostUrl` on AWS, " +
    "`http://127.0.0.1:8788` on one machine): `GET /{deeplink_id}` records the tap as a click " +
    "and redirects it by platform (the Play Store with the click id in its install referrer, " +
    "the App Store, or the web), and `GET /.well-known/apple-app-site-association` and " +
    "`GET /.well-known/assetlinks.json` let a tap open the installed app. Clicks and " +
    "impressions are kept for matching for 30 days, and for reports in the lake.",
  "## Events",
  `\`event_type\` is one of ${EVENT_TYPES.map(code).join(", ")}. INSTALL is ignored: the SDK ` +
    "reports installs through `POST /v1/installs`. The export names an event " +
    "`service_<snake case>` of its type, or of a CUSTOM event's own `event_name`: `PURCHASE` " +
    `is ${code(exportEventName("PURCHASE"))}, \`LEVEL_COMPLETE\` is ` +
    `${code(exportEventName("LEVEL_COMPLETE"))}, a CUSTOM event named \`Boss Defeated\` is ` +
    `${code(exportEventName("CUSTOM", "Boss Defeated"))}. An event sent again with the same ` +
    "`event_id` is exported once. Unknown keys are ignored and null is the same as absent, in " +
    "every body. Every string field outside `parameters` must be Unicode text: a lone UTF-16 " +
    "surrogate (`\\ud800` in JSON, as a broken emoji leaves) is refused with 422.",
  "## Revenue",
  "A revenue event carries `parameters.revenue`, a finite number or a decimal string " +
    '(`9.99`, `"9.99"`; no exponent, no thousands separator; negative for a refund), and ' +
    "`parameters.currency`, an ISO 4217 code in any case (`usd` is `USD`; " +
    `${ISO_4217_CODES.size} codes known). Revenue without a currency, or with one that is no ` +
    "known code, is not revenue: the event is stored with null revenue columns and its " +
    "verdict carries a warning. A revenue that is not a number rejects the event. The export gives `revenue`, " +
    "`currency` and `revenue_usd`, converted at the ECB reference rate of the event's date.",
  "## Sealed values and personal data",
  "When `GET /v1/config` answers `encryption.enabled: true`, the SDK may seal parameter " +
    "values on the device so that only the service can open them: a sealed value is the " +
    "string `<envelope_version>.<key_id>.<ephemeral public key>.<nonce>.<ciphertext and tag>` " +
    `(base64url parts; ${SEALING_ALGORITHM}). The keys of \`clear_keys\` ` +
    `(${CLEAR_PARAMETER_KEYS.map(code).join(", ")}) are never sealed. The service opens ` +
    "sealed values on arrival; one that cannot be opened rejects its event. How to seal, " +
    "with test vectors: [spec/encryption-test-vectors.json](./encryption-test-vectors.json) " +
    `in the service's repository. The top-level parameters ${PII_KEYS.map(code).join(", ")} ` +
    "are stored only normalised and hashed, as `sha256:<hex>`, or sealed as sent.",
  "## Deletion",
  "`DELETE /v1/installs/{service_id}` (SDK key; the SDKs' deleteUserData) records a " +
    "deletion request and answers 202 at once. From that moment the install's events are " +
    "left out of every export; a background purge then removes the install, its " +
    "`customer_user_id` mapping and its events from the lake, within minutes, and marks the " +
    "request `completed`. The app's server follows a request with " +
    "`GET /v1/deletions/{request_id}` (server key).",
].join("\n\n");

/** Details that are always the same, shown as the example of their status. */
const FIXED_DETAILS: { readonly [S in ErrorStatus]?: string } = {
  401: new UnauthorizedError().message,
  500: INTERNAL_ERROR_DETAIL,
};

/** A 503 says when to come back. */
const retryAfterHeaders = z.object({
  "Retry-After": z
    .string()
    .regex(/^\d+$/)
    .meta({ description: "Seconds to wait before trying again.", example: "120" }),
});

const jsonError = (status: ErrorStatus, description: string): ResponseConfig => {
  const detail = FIXED_DETAILS[status];
  return {
    description,
    ...(status === 503 && { headers: retryAfterHeaders }),
    content: {
      [JSON_MEDIA_TYPE]: {
        schema: errorBodySchema,
        ...(detail && { example: { error: statusName(status), detail } }),
      },
    },
  };
};

const routeConfig = (route: Route, contract: RouteContract): RouteConfig => {
  const { request, success } = contract;
  const responses: RouteConfig["responses"] = {
    [success.status]: {
      description: success.description,
      ...(success.headers && { headers: success.headers }),
      ...(success.content && {
        content: Object.fromEntries(
          Object.entries(success.content).map(([type, schema]) => [type, { schema }]),
        ),
      }),
    },
  };
  for (const [status, description] of Object.entries(contract.errors)) {
    responses[status] = jsonError(Number(status) as ErrorStatus, description);
  }
  return {
    method: route.method.toLowerCase() as RouteConfig["method"],
    path: route.path,
    operationId: route.id,
    summary: contract.summary,
    description: contract.description,
    tags: [tagOf(route)],
    // OpenAPI 3.1 lets a non-OAuth requirement list roles: here, the key scope it needs.
    security: securityOf(route),
    request: {
      ...(request?.query && { query: request.query }),
      ...(request?.params && { params: request.params }),
      ...(request?.body && {
        body: {
          description: request.body.description,
          required: true,
          content: { [JSON_MEDIA_TYPE]: { schema: request.body.schema } },
        },
      }),
    },
    responses,
  };
};

export const buildOpenApiDocument = (options: { serverUrl?: string } = {}): OpenApiDocument => {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", API_KEY_SCHEME, {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description:
      "The app's API key itself, with no scheme. Scopes: SDK keys " +
      `${KEY_KINDS.sdk.scopes.join(", ")}; server keys ${KEY_KINDS.server.scopes.join(", ")}.`,
  });
  registry.registerComponent("securitySchemes", SESSION_SCHEME, {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description:
      "A dashboard session, from `POST /v1/session`. A change (not GET) also sends the " +
      `session's CSRF token in the \`${CSRF_HEADER}\` header. A request about an app names it ` +
      "(`app_id` in the path or the query), and must be one the person may see.",
  });
  for (const route of ROUTES) registry.registerPath(routeConfig(route, CONTRACTS[route.id]));

  // One-of, not any-of: the only unions (the remote configuration's encryption) are exclusive.
  const generator = new OpenApiGeneratorV31(registry.definitions, { unionPreferredType: "oneOf" });
  return generator.generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Attribution service API",
      version: pkg.version,
      description: DESCRIPTION,
      license: { name: pkg.license, identifier: pkg.license },
    },
    servers: [
      options.serverUrl
        ? { url: options.serverUrl }
        : {
            url: "{base_url}",
            description: "Where the service runs.",
            variables: {
              base_url: {
                default: "http://127.0.0.1:8787",
                description: "The stack's ApiUrl output on AWS, or the local service's address.",
              },
            },
          },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  });
};

/** The committed file's text: 2-space JSON and a final newline. */
export const serializeOpenApiDocument = (document: OpenApiDocument): string =>
  `${JSON.stringify(document, null, 2)}\n`;
