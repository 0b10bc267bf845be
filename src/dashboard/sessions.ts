/**
 * Signing in and out of the dashboard: a password checked by the runtime's credentials (the
 * users table's hashes, or Cognito), then a session stored by its token's hash. A wrong email
 * and a wrong password are refused alike.
 *
 * A person with a TOTP, or an admin where admins must use one, gets no session for the
 * password alone: the sign-in is kept pending (a few minutes, under a challenge token the page
 * sends back) until the person's code is right, after setting up a TOTP first when they have
 * none. Wrong codes count as failed sign-ins do, and a few of them end the pending sign-in.
 *
 * A session, and a pending sign-in, holds only while the person's record has the generation it
 * began under (./session-generation.ts): setting the password or removing the person ends them.
 */
import { UnauthorizedError } from "../domain/errors.ts";
import { newSession, SESSION_LIFETIME_MS, sessionKeyOf } from "../domain/sessions.ts";
import { MINUTE_MS } from "../domain/time.ts";
import type {
  Credentials,
  PendingSignIn,
  SessionStore,
  TotpStep,
  User,
  UserStore,
} from "../ports/users.ts";
import { holdsFor } from "./session-generation.ts";
import type { SignInAttempt, SignInGuard } from "./sign-in-guard.ts";
import { MAX_CODE_FAILURES, otpauthUri, PENDING_SIGN_IN_LIFETIME_MS } from "./totp.ts";

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

/** A sign-in whose password was right, awaiting a TOTP code. */
export interface Challenge {
  readonly step: TotpStep;
  /** Sent back with the code: shown to the browser once, stored only as its hash. */
  readonly token: string;
  /** For a new TOTP: its secret (base32) and the `otpauth://` URI an authenticator app reads. */
  readonly setup?: { readonly secret: string; readonly uri: string };
  readonly expiresAt: Date;
}

export type SignInResult =
  | { readonly signedIn: SignedIn; readonly challenge?: undefined }
  | { readonly challenge: Challenge; readonly signedIn?: undefined };

const REFUSED = "The email or the password is wrong.";
const WRONG_CODE = "The code is wrong: enter the code your authenticator app shows now.";
const TOO_MANY_CODES = "Too many wrong codes: sign in again with your password.";
const SIGN_IN_OVER = `This sign-in is over (it waits ${PENDING_SIGN_IN_LIFETIME_MS / MINUTE_MS} minutes for its code): sign in again with your password.`;

/** An email as accounts are keyed: trimmed and lower-cased. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

const startSession = async (
  deps: SessionDeps,
  user: User,
  now: Date,
  attempt: SignInAttempt | undefined,
  /** The person's generation when the sign-in began (not now's: one renewed since ends it). */
  generation: string,
): Promise<{ signedIn: SignedIn }> => {
  attempt?.succeeded();
  const session = newSession();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await deps.sessions.put({
    sessionKey: session.sessionKey,
    email: user.email,
    csrfToken: session.csrfToken,
    createdAt: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
    generation,
  });
  return { signedIn: { user, token: session.token, csrfToken: session.csrfToken, expiresAt } };
};

const challenge = async (
  deps: SessionDeps,
  email: string,
  step: TotpStep,
  state: string,
  now: Date,
  generation: string,
): Promise<{ challenge: Challenge }> => {
  const setup = step === "totp-setup" ? await deps.credentials.startTotpSetup(email, state) : null;
  // The same random token and hash as a session's; stored apart, under the hash.
  const { token, sessionKey: challengeKey } = newSession();
  const expiresAt = new Date(now.getTime() + PENDING_SIGN_IN_LIFETIME_MS);
  await deps.sessions.putPending({
    challengeKey,
    email,
    step,
    state: setup ? setup.state : state,
    failures: 0,
    expiresAt: expiresAt.toISOString(),
    generation,
  });
  return {
    challenge: {
      step,
      token,
      ...(setup && { setup: { secret: setup.secret, uri: otpauthUri(email, setup.secret) } }),
      expiresAt,
    },
  };
};

/**
 * A password for a session, or for a TOTP challenge when the person has a TOTP or must set one
 * up. A right password alone does not clear the person's failed sign-ins while a code is due.
 * The attempt counts as a failed one from its start (./sign-in-guard.ts), and is taken back
 * once the password proved right.
 */
export const signIn = async (
  deps: SessionDeps,
  email: string,
  password: string,
  now = new Date(),
  /** The caller's address: a lockout holds for a person at one address, and for an address. */
  address = "",
): Promise<SignInResult> => {
  const key = normalEmail(email);
  const attempt = deps.guard?.attempt(key, address);
  // Read before the password is checked: a password set meanwhile renews the generation only
  // after the new password holds, so a sign-in that checked the old one began under a
  // generation that is over by then, and its session is refused.
  const user = await deps.users.get(key);
  const check = await deps.credentials.verify(key, password);
  if (!user || check.outcome === "refused") throw new UnauthorizedError(REFUSED);
  const generation = user.sessionGeneration;
  if (check.outcome === "code") {
    attempt?.release();
    return challenge(deps, key, check.step, check.state, now, generation);
  }
  if (user.admin && deps.credentials.adminsNeedTotp) {
    attempt?.release();
    return challenge(deps, key, "totp-setup", check.state, now, generation);
  }
  return startSession(deps, user, now, attempt, generation);
};

/** A pending sign-in's code (`challengeToken` from `signIn`) for a session. */
export const answerChallenge = async (
  deps: SessionDeps,
  challengeToken: string,
  code: string,
  now = new Date(),
  address = "",
): Promise<SignInResult> => {
  const challengeKey = sessionKeyOf(challengeToken);
  const pending = await deps.sessions.getPending(challengeKey, now);
  if (!pending) throw new UnauthorizedError(SIGN_IN_OVER);
  const attempt = deps.guard?.attempt(pending.email, address);
  // A person removed, or whose password was set, since the password was checked: it is over.
  const user = await deps.users.get(pending.email);
  if (!user || !holdsFor(user, pending)) {
    attempt?.release();
    await deps.sessions.removePending(challengeKey);
    throw new UnauthorizedError(SIGN_IN_OVER);
  }
  const check = await deps.credentials.checkCode(pending.email, pending.step, pending.state, code);
  if (check.outcome === "accepted") {
    await deps.sessions.removePending(challengeKey);
    return startSession(deps, user, now, attempt, pending.generation);
  }
  if (check.outcome === "expired") {
    attempt?.release();
    await deps.sessions.removePending(challengeKey);
    throw new UnauthorizedError(SIGN_IN_OVER);
  }
  await failedCode(deps, pending);
  throw new UnauthorizedError(
    pending.failures + 1 >= MAX_CODE_FAILURES ? TOO_MANY_CODES : WRONG_CODE,
  );
};

/** A wrong code counted on its pending sign-in, which the last one allowed ends. */
const failedCode = async (deps: SessionDeps, pending: PendingSignIn): Promise<void> => {
  const failures = pending.failures + 1;
  if (failures >= MAX_CODE_FAILURES) await deps.sessions.removePending(pending.challengeKey);
  else await deps.sessions.putPending({ ...pending, failures });
};

/** The session's person and CSRF token, or an UnauthorizedError (sign in again). */
export const currentSession = async (
  deps: Pick<SessionDeps, "users" | "sessions">,
  token: string | undefined,
): Promise<{ user: User; csrfToken: string }> => {
  const session = token ? await deps.sessions.get(sessionKeyOf(token)) : undefined;
  const user = session ? await deps.users.get(session.email) : undefined;
  if (!session || !user || !holdsFor(user, session)) {
    throw new UnauthorizedError("Not signed in, or the session is over.");
  }
  return { user, csrfToken: session.csrfToken };
};

export const signOut = async (
  deps: Pick<SessionDeps, "sessions">,
  token: string | undefined,
): Promise<void> => {
  if (token) await deps.sessions.remove(sessionKeyOf(token));
};
