/**
 * What every route's contract shares: the shape of a contract, the tie between a schema and
 * the type a handler produces, the error body and the texts of the common errors.
 */
import * as z from "zod";
import { KEY_KINDS, type Scope } from "../../domain/keys.ts";
import { SESSION_ROUTE_SCOPES } from "../../domain/sessions.ts";
import { INGEST_LIMITS } from "../../ingest/limits.ts";
import type { ErrorBody } from "../errors.ts";

export const ERROR_STATUSES = [400, 401, 404, 409, 413, 422, 500, 503] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

export const JSON_MEDIA_TYPE = "application/json";

export interface RouteContract {
  readonly summary: string;
  readonly description: string;
  readonly request?: {
    readonly query?: z.ZodObject;
    readonly params?: z.ZodObject;
    /** A JSON body. */
    readonly body?: { readonly description: string; readonly schema: z.ZodType };
  };
  readonly success: {
    /** 302 is a redirect: its `Location` header (in `headers`) is the answer, with no body. */
    readonly status: 200 | 201 | 202 | 204 | 302;
    readonly description: string;
    /**
     * Each media type the route answers with (without parameters such as charset), and its
     * body; none for a redirect.
     */
    readonly content?: Readonly<Record<string, z.ZodType>>;
    readonly headers?: z.ZodObject;
  };
  /** The error statuses the route can answer, each with when. */
  readonly errors: { readonly [S in ErrorStatus]?: string };
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Ties a schema to the type a handler really produces (or parses into): it compiles only when
 * the two are assignable both ways, so neither can change without the other.
 */
export const tiedTo =
  <T>() =>
  <S extends z.ZodType>(
    schema: S,
    ..._mismatch: Same<z.output<S>, T> extends true
      ? []
      : ["the schema and the handler's type differ"]
  ): S =>
    schema;

export const errorBodySchema = tiedTo<ErrorBody>()(
  z
    .strictObject({
      error: z.string().meta({
        description: "The name of the HTTP status, e.g. `Unauthorized` or `Unprocessable Entity`.",
        example: "Unprocessable Entity",
      }),
      detail: z.string().meta({
        description:
          "What went wrong, written for a person: it names the field or parameter at fault. " +
          "Not meant to be parsed. A 500 never shows internals.",
        example: "body.events: must be a list of 1 to 100 events",
      }),
    })
    .meta({
      id: "Error",
      description:
        "The body of every error answer, from a handler or from the gateway in front of it.",
    }),
);

const kindsWith = (scope: Scope): string =>
  Object.entries(KEY_KINDS)
    .filter(([, kind]) => (kind.scopes as readonly Scope[]).includes(scope))
    .map(([name]) => (name === "sdk" ? "SDK" : name))
    .join(" and ");

export const unauthorized = (scope: Scope) =>
  kindsWith(scope) === ""
    ? "No dashboard session (sign in), the session is over, a change lacks its `X-CSRF-Token` " +
      "header, or the app named is not one the person may see."
    : "The `Authorization` header is missing, or its key is unknown, revoked, or lacks the " +
      `\`${scope}\` scope (${kindsWith(scope)} keys have it)` +
      (SESSION_SCOPE_SET.has(scope)
        ? "; or, from the dashboard, there is no session, a change lacks its `X-CSRF-Token` " +
          "header, or `app_id` names an app the person may not see."
        : ".");

const SESSION_SCOPE_SET: ReadonlySet<Scope> = new Set(SESSION_ROUTE_SCOPES);

/** A route about an app whose \`app_id\` names another (\`appQuery\`, src/http/principal.ts). */
export const OTHER_APP = "`app_id` names an app other than the caller's.";
/** The end of a 422's description on a route whose query is strict (src/validation/query.ts). */
export const UNKNOWN_PARAMETER =
  "A parameter the route does not take is refused, the detail listing those it does, and so " +
  "is a parameter given more than once.";

export const INTERNAL = "An unexpected failure; the detail never shows internals. Retry later.";
export const NOT_JSON = "The body is empty or is not valid JSON.";
export const TOO_LARGE = `The body is over ${INGEST_LIMITS.maxBodyBytes} bytes (1 MiB); it was not parsed.`;
