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
