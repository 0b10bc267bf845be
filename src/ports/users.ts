/**
 * The dashboard's people and their sessions. A user sees the apps listed on their record, or
 * every app when they are an admin (the owner account made on the first start); the service
 * checks it on every call, never the page.
 */

export interface User {
  /** Lower-cased; the account's id. */
  readonly email: string;
  readonly admin: boolean;
  /** The apps this user may see and change (every app for an admin). */
  readonly appIds: readonly string[];
  /**
   * A viewer sees the reports and exports of the apps it may see and changes nothing: no app,
   * key, link, setting or configuration. Unset: may change what it sees.
   */
  readonly viewer?: boolean;
  readonly createdAt: string;
  /** The embedded runtime's password hash (src/domain/passwords.ts); unset on AWS (Cognito). */
  readonly passwordHash?: string;
  /**
   * The embedded runtime's TOTP secret (base32), once the person set it up; unset on AWS, where
   * Cognito keeps it.
   */
  readonly totpSecret?: string;
  /**
   * Which of the person's sessions and pending sign-ins hold: those that carry this value. A
   * new random one is given when the account is made and whenever its password is set, so
   * those begun before end at their next request, and a removed person's never come back if
   * the same email is added again.
   */
  readonly sessionGeneration: string;
}

export interface UserStore {
  /** Creates the user; rejects with ConflictError when the email is taken. */
  create(user: User): Promise<void>;
  get(email: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  /** Adds an app to the user's apps (once). */
  grantApp(email: string, appId: string): Promise<void>;
  /**
   * Takes an app from the user's apps (none left when they had it: a no-op when they did not);
   * rejects with NotFoundError when there is no such user.
   */
  revokeApp(email: string, appId: string): Promise<void>;
  /**
   * Writes an existing user's secrets (`passwordHash`, `totpSecret`) from the record, and nothing
   * else of it: a record read before another change and saved after it (a TOTP kept, a password
   * hashed) must not bring back the apps a revoke took, nor the sessions a renewal ended (who a
   * user is and what they see are written by `create`, `grantApp` and `revokeApp` alone, the
   * generation by `renewSessionGeneration`). Rejects with NotFoundError when there is none.
   */
  save(user: User): Promise<void>;
  /** Sets an existing user's `sessionGeneration`; rejects with NotFoundError when there is none. */
  renewSessionGeneration(email: string, generation: string): Promise<void>;
  remove(email: string): Promise<void>;
  /**
   * Removes `email`'s record as `admin` asks, only while `admin` is an admin and neither is
   * removing another at the same moment: two admins removing each other at once cannot both
   * succeed, so they leave one. False, nothing removed, when `admin` is no admin (or no one);
   * NotFoundError when `email` has no record; ConflictError when the two meet (try again).
   */
  removeByAdmin(email: string, admin: string, now?: Date): Promise<boolean>;
}

export interface Session {
  /** SHA-256 of the cookie's token (src/domain/sessions.ts). */
  readonly sessionKey: string;
  readonly email: string;
  readonly csrfToken: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** The person's `sessionGeneration` when the sign-in began: the session holds while it is theirs. */
  readonly generation: string;
}

/** What a sign-in whose password was right still awaits: a TOTP code. */
export type TotpStep =
  /** The code of the authenticator the person set up. */
  | "totp"
  /** The first code of a new authenticator, whose secret the page showed. */
  | "totp-setup";

/**
 * A sign-in halfway: the password was right, a TOTP code is awaited. Stored apart from the
 * sessions (its key is never a session's), so no cookie can name one.
 */
export interface PendingSignIn {
  /** SHA-256 of the challenge token the page holds. */
  readonly challengeKey: string;
  readonly email: string;
  readonly step: TotpStep;
  /** The credentials' own state between the calls (Cognito's session or token, a new secret). */
  readonly state: string;
  /** Wrong codes so far: past a few, the sign-in starts again from the password. */
  readonly failures: number;
  readonly expiresAt: string;
  /** The person's `sessionGeneration` when the sign-in began: it goes on while it is theirs. */
  readonly generation: string;
}

export interface SessionStore {
  put(session: Session): Promise<void>;
  /** The session, unless it has expired. */
  get(sessionKey: string, now?: Date): Promise<Session | undefined>;
  remove(sessionKey: string): Promise<void>;
  putPending(pending: PendingSignIn): Promise<void>;
  /** The pending sign-in, unless it has expired. */
  getPending(challengeKey: string, now?: Date): Promise<PendingSignIn | undefined>;
  removePending(challengeKey: string): Promise<void>;
  /**
   * Forgets the sessions and pending sign-ins expired at `now` (DynamoDB's TTL does it on AWS;
   * reads skip them either way); how many.
   */
  reap(now: Date): Promise<number>;
}

/** What a password check leads to. */
export type PasswordCheck =
  /** A wrong password, or an unknown person (which of the two is not said). */
  | { readonly outcome: "refused" }
  /** Right, and the person has no TOTP: `state` lets a TOTP setup follow. */
  | { readonly outcome: "verified"; readonly state: string }
  /** Right; the person's TOTP code is asked (`step` "totp"), or a TOTP must be set up first. */
  | { readonly outcome: "code"; readonly step: TotpStep; readonly state: string };

/** What a TOTP code checked for a pending sign-in leads to. */
export type CodeCheck =
  | { readonly outcome: "accepted" }
  /** Not the code (or one already used): the person may try again. */
  | { readonly outcome: "wrong" }
  /** The sign-in's state is spent or too old: it starts again from the password. */
  | { readonly outcome: "expired" };

/**
 * Who checks a person's password and TOTP code: the users table's hashes and secrets on the
 * embedded runtime, Cognito's user pool on AWS.
 */
export interface Credentials {
  /** Whether an admin must use TOTP: one without it sets it up before a session is given. */
  readonly adminsNeedTotp: boolean;
  verify(email: string, password: string): Promise<PasswordCheck>;
  /**
   * Starts setting up a TOTP for a person whose password was right (`state` from `verify`):
   * the new secret (base32), and the state its first code is checked with.
   */
  startTotpSetup(email: string, state: string): Promise<{ secret: string; state: string }>;
  /** Checks a code for a pending sign-in's step; a new TOTP is kept once its code is right. */
  checkCode(email: string, step: TotpStep, state: string, code: string): Promise<CodeCheck>;
  /** Sets (or first sets) a person's password. */
  set(email: string, password: string): Promise<void>;
  /** Forgets a person's password (the user was removed). */
  remove(email: string): Promise<void>;
  /**
   * The people whose accounts are disabled where the passwords are kept: on AWS those disabled
   * in Cognito's user pool (its console, `admin-disable-user`), who can sign in no more and whose
   * open sessions the service then ends; none where the service keeps the passwords itself (a
   * person is removed there, which ends their sessions at once).
   */
  disabledAccounts(): Promise<DisabledAccount[]>;
}

export interface DisabledAccount {
  /** Normalised as accounts are keyed. */
  readonly email: string;
  /**
   * When the account last changed where it is kept (ISO 8601; its disabling, or a later
   * change), which tells one disabling from the next; null when the store does not say.
   */
  readonly changedAt: string | null;
}
