/**
 * The route table: one row per endpoint. The CDK API and the embedded gateway are both built
 * from it, so a route exists in both runtimes or in neither. Pure data: no handler imports.
 */
import type { Scope } from "../domain/keys.ts";

interface RouteBase {
  /** Names the handler: `lambdas/<id>.ts` on AWS, the same factory on the embedded runtime. */
  readonly id: string;
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  /** API Gateway resource path; `{name}` marks a path parameter. */
  readonly path: string;
  /** Streamed responses use Lambda response streaming on AWS. */
  readonly streaming: boolean;
  /** Lambda sizing on AWS. */
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
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

export const ROUTES = [
  {
    id: "config",
    method: "GET",
    path: "/v1/config",
    scope: "config",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "installs",
    method: "POST",
    path: "/v1/installs",
    scope: "ingest",
    streaming: false,
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    id: "events",
    method: "POST",
    path: "/v1/events",
    scope: "ingest",
    streaming: false,
    memoryMb: 512,
    timeoutSeconds: 15,
  },
  {
    id: "s2s-events",
    method: "POST",
    path: "/v1/s2s/events",
    scope: "s2s",
    streaming: false,
    memoryMb: 512,
    timeoutSeconds: 15,
  },
  {
    id: "delete-install",
    method: "DELETE",
    path: "/v1/installs/{service_id}",
    scope: "ingest",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "deletion-status",
    method: "GET",
    path: "/v1/deletions/{request_id}",
    scope: "deletions",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "export",
    method: "GET",
    path: "/api/v1/export",
    scope: "export",
    streaming: true,
    memoryMb: 512,
    timeoutSeconds: 300,
  },
  {
    id: "attribution",
    method: "GET",
    path: "/v1/installs/{service_id}/attribution",
    scope: "attribution:read",
    streaming: false,
    memoryMb: 256,
    // A request may wait up to 20 s for its attribution (API Gateway allows 29).
    timeoutSeconds: 25,
  },
  {
    id: "touches",
    method: "POST",
    path: "/v1/touches",
    scope: "s2s",
    streaming: false,
    memoryMb: 512,
    timeoutSeconds: 15,
  },
  {
    id: "create-link",
    method: "POST",
    path: "/v1/links",
    scope: "links",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "list-links",
    method: "GET",
    path: "/v1/links",
    scope: "links",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "get-link",
    method: "GET",
    path: "/v1/links/{deeplink_id}",
    scope: "links",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "update-link",
    method: "PATCH",
    path: "/v1/links/{deeplink_id}",
    scope: "links",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "openapi",
    method: "GET",
    path: "/v1/openapi.json",
    scope: null,
    publicReason:
      "It serves the API's published contract (no app data), the same document as spec/openapi.json in the repository.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
] as const satisfies readonly Route[];

export type RouteId = (typeof ROUTES)[number]["id"];

/**
 * The link host's route table: its own listener on the embedded runtime, its own API on AWS.
 * Every route is public: a link is tapped by anyone, and the files are read by Apple and Google.
 */
export const LINK_HOST_ROUTES = [
  {
    id: "click",
    method: "GET",
    path: "/{deeplink_id}",
    scope: null,
    publicReason:
      "It is a link in an ad: anyone may tap it. It answers a redirect and records the tap, and reveals nothing of the app's data.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "apple-app-site-association",
    method: "GET",
    path: "/.well-known/apple-app-site-association",
    scope: null,
    publicReason: "Apple's devices fetch it without credentials to open links in the app.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    id: "assetlinks",
    method: "GET",
    path: "/.well-known/assetlinks.json",
    scope: null,
    publicReason: "Android's verifier fetches it without credentials to open links in the app.",
    streaming: false,
    memoryMb: 256,
    timeoutSeconds: 10,
  },
] as const satisfies readonly Route[];

export type LinkHostRouteId = (typeof LINK_HOST_ROUTES)[number]["id"];
