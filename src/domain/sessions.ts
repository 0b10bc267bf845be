/**
 * Dashboard sessions: a random token in an `HttpOnly` cookie, stored only as its SHA-256 hash
 * (as API keys are), with a CSRF token that every change must send back in a header. A session
 * lets a person act on the apps they may see, with the scopes below.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Scope } from "./keys.ts";
import { HOUR_MS } from "./time.ts";

/** The cookie that carries the session token. */
export const SESSION_COOKIE = "attribution_session";

/** The header that carries the CSRF token on every change. */
export const CSRF_HEADER = "x-csrf-token";

/** How long a session lasts from sign-in. */
export const SESSION_LIFETIME_MS = 12 * HOUR_MS;

/** What a session may do on an app the person may see. */
export const SESSION_SCOPES = [
  "apps",
  "links",
  "export",
  "reports",
  "postbacks",
  "costs",
] as const satisfies readonly Scope[];

/**
 * What a session may do before it names an app: list and create apps (and, an admin's, manage
 * the people: ADMIN_SESSION_SCOPES).
 */
export const SESSION_SCOPES_WITHOUT_APP = ["apps"] as const satisfies readonly Scope[];

/**
 * What only an admin's session may do, whatever app it names: manage the dashboard's people. A
 * viewer changes nothing, so no viewer holds it (an admin cannot be one).
 */
export const ADMIN_SESSION_SCOPES = ["users"] as const satisfies readonly Scope[];

/** The scopes of the routes a session reaches (a key reaches some of them too). */
export const SESSION_ROUTE_SCOPES = [
  ...SESSION_SCOPES,
  ...ADMIN_SESSION_SCOPES,
] as const satisfies readonly Scope[];

export interface NewSession {
  /** The cookie's value: returned once, never stored. */
  readonly token: string;
  readonly sessionKey: string;
  readonly csrfToken: string;
}

export const sessionKeyOf = (token: string): string =>
  createHash("sha256").update(token).digest("hex");

export const newSession = (): NewSession => {
  const token = randomBytes(32).toString("base64url");
  return {
    token,
    sessionKey: sessionKeyOf(token),
    csrfToken: randomBytes(24).toString("base64url"),
  };
};

/** Constant-time equality of two tokens (a CSRF token against the session's). */
export const tokensMatch = (given: string | undefined, expected: string): boolean => {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The value of one cookie in a `Cookie` header. */
export const cookieValue = (header: string | undefined, name: string): string | undefined => {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
};

/**
 * The `Set-Cookie` value of a session (or of its end, with `maxAgeSeconds` 0): `HttpOnly` so no
 * script reads it, `SameSite=Strict` so no other site's page sends it, `Secure` when the page
 * is served over HTTPS (a browser drops a Secure cookie set over plain HTTP on 127.0.0.1).
 */
export const sessionCookie = (
  token: string,
  options: { readonly secure: boolean; readonly maxAgeSeconds: number },
): string =>
  [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    `Max-Age=${options.maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(options.secure ? ["Secure"] : []),
  ].join("; ");
