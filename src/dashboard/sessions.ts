/**
 * Signing in and out of the dashboard: a password checked by the runtime's credentials (the
 * users table's hashes, or Cognito), then a session stored by its token's hash. A wrong email
 * and a wrong password are refused alike.
 */
import { UnauthorizedError } from "../domain/errors.ts";
import { newSession, SESSION_LIFETIME_MS, sessionKeyOf } from "../domain/sessions.ts";
import type { Credentials, SessionStore, User, UserStore } from "../ports/users.ts";
import type { SignInGuard } from "./sign-in-guard.ts";

export interface SessionDeps {
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly credentials: Credentials;
  /** Refuses a person's sign-ins for a while after many failed ones. */
  readonly guard?: SignInGuard;
}

export interface SignedIn {
  readonly user: User;
  /** The cookie's value: shown to the browser once. */
  readonly token: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
}

const REFUSED = "The email or the password is wrong.";

/** An email as accounts are keyed: trimmed and lower-cased. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

export const signIn = async (
  deps: SessionDeps,
  email: string,
  password: string,
  now = new Date(),
): Promise<SignedIn> => {
  const key = normalEmail(email);
  deps.guard?.check(key);
  const verified = await deps.credentials.verify(key, password);
  const user = verified ? await deps.users.get(key) : undefined;
  if (!user) {
    deps.guard?.failed(key);
    throw new UnauthorizedError(REFUSED);
  }
  deps.guard?.succeeded(key);
  const session = newSession();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await deps.sessions.put({
    sessionKey: session.sessionKey,
    email: user.email,
    csrfToken: session.csrfToken,
    createdAt: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
  });
  return { user, token: session.token, csrfToken: session.csrfToken, expiresAt };
};

/** The session's person and CSRF token, or an UnauthorizedError (sign in again). */
export const currentSession = async (
  deps: Pick<SessionDeps, "users" | "sessions">,
  token: string | undefined,
): Promise<{ user: User; csrfToken: string }> => {
  const session = token ? await deps.sessions.get(sessionKeyOf(token)) : undefined;
  const user = session ? await deps.users.get(session.email) : undefined;
  if (!session || !user) throw new UnauthorizedError("Not signed in, or the session is over.");
  return { user, csrfToken: session.csrfToken };
};

export const signOut = async (
  deps: Pick<SessionDeps, "sessions">,
  token: string | undefined,
): Promise<void> => {
  if (token) await deps.sessions.remove(sessionKeyOf(token));
};
