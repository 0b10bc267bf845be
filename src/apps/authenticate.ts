/**
 * Resolves a caller to its app and scopes: an API key, or a dashboard session acting on one of
 * the apps its person may see; nothing when neither is valid now.
 */

import { holdsFor } from "../dashboard/session-generation.ts";
import { keyIdOf, keyMatches, type Scope } from "../domain/keys.ts";
import {
  ADMIN_SESSION_SCOPES,
  SESSION_SCOPES,
  SESSION_SCOPES_WITHOUT_APP,
  sessionKeyOf,
  tokensMatch,
} from "../domain/sessions.ts";
import type { AppStore, KeyStore } from "../ports/apps.ts";
import type { SessionStore, User, UserStore } from "../ports/users.ts";
import { APP_ID_PATTERN } from "./registration.ts";

/** Who is calling: the app a key belongs to (or a session acts on), and what it may do. */
export interface Principal {
  /** The key's id, or `session` for a signed-in person. */
  readonly keyId: string;
  /** Empty for a session that names no app (it may only list and create apps). */
  readonly appId: string;
  readonly appName: string;
  readonly scopes: readonly Scope[];
  /** The signed-in person's email; unset for a key. */
  readonly user?: string;
}

/** Whether a person may see and change an app. */
export const maySee = (user: User, appId: string): boolean =>
  user.admin || user.appIds.includes(appId);

export interface SessionRequest {
  readonly method: string;
  /** The CSRF header's value. */
  readonly csrfToken: string | undefined;
  /** The app the request names (`app_id` in its path or query), if any. */
  readonly appId: string | undefined;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A session's principal: undefined when the session is unknown or over (sign in again); no
 * scope at all (refused) for a change without the session's CSRF token, or for an app the
 * person may not see or that does not exist.
 */
export const authenticateSession = async (
  token: string,
  request: SessionRequest,
  stores: { sessions: SessionStore; users: UserStore; apps: AppStore },
): Promise<Principal | undefined> => {
  const session = await stores.sessions.get(sessionKeyOf(token));
  if (!session) return undefined;
  const user = await stores.users.get(session.email);
  // A person removed, or whose password was set, since the session began: it is over.
  if (!user || !holdsFor(user, session)) return undefined;
  const refused: Principal = {
    keyId: "session",
    appId: "",
    appName: "",
    scopes: [],
    user: user.email,
  };
  if (!SAFE_METHODS.has(request.method) && !tokensMatch(request.csrfToken, session.csrfToken)) {
    return refused;
  }
  // A viewer reads what it may see (reports, exports, settings) and changes nothing.
  if (user.viewer && !SAFE_METHODS.has(request.method)) return refused;
  // An admin manages the people whatever app the request names: a grant's path names the app
  // granted, which the route itself finds or refuses, so an unknown one is its 404.
  const people: readonly Scope[] = user.admin && !user.viewer ? ADMIN_SESSION_SCOPES : [];
  if (request.appId === undefined) {
    return { ...refused, scopes: [...SESSION_SCOPES_WITHOUT_APP, ...people] };
  }
  // An id no app can have is no app's: the store is not asked (it refuses an empty key).
  if (!APP_ID_PATTERN.test(request.appId) || !maySee(user, request.appId)) {
    return { ...refused, scopes: people };
  }
  const app = await stores.apps.get(request.appId);
  if (!app) return { ...refused, scopes: people };
  return {
    ...refused,
    appId: app.appId,
    appName: app.name,
    scopes: [...SESSION_SCOPES, ...people],
  };
};

export const authenticate = async (
  presented: string | undefined,
  stores: { keys: KeyStore; apps: AppStore },
): Promise<Principal | undefined> => {
  // The spec sends the bare key; a "Bearer " prefix is tolerated because HTTP tools add it.
  const plaintext = presented?.trim().replace(/^Bearer\s+/i, "");
  const keyId = plaintext ? keyIdOf(plaintext) : undefined;
  if (!plaintext || !keyId) return undefined;
  const key = await stores.keys.get(keyId);
  if (!key || key.revokedAt || !keyMatches(plaintext, key.hash)) return undefined;
  const app = await stores.apps.get(key.appId);
  if (!app) return undefined;
  return { keyId, appId: app.appId, appName: app.name, scopes: key.scopes };
};
