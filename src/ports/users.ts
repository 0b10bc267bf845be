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
  readonly createdAt: string;
  /** The embedded runtime's password hash (src/domain/passwords.ts); unset on AWS (Cognito). */
  readonly passwordHash?: string;
}

export interface UserStore {
  /** Creates the user; rejects with ConflictError when the email is taken. */
  create(user: User): Promise<void>;
  get(email: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  /** Adds an app to the user's apps (once). */
  grantApp(email: string, appId: string): Promise<void>;
  /** Replaces an existing user; rejects with NotFoundError when there is none. */
  save(user: User): Promise<void>;
  remove(email: string): Promise<void>;
}

export interface Session {
  /** SHA-256 of the cookie's token (src/domain/sessions.ts). */
  readonly sessionKey: string;
  readonly email: string;
  readonly csrfToken: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

export interface SessionStore {
  put(session: Session): Promise<void>;
  /** The session, unless it has expired. */
  get(sessionKey: string, now?: Date): Promise<Session | undefined>;
  remove(sessionKey: string): Promise<void>;
}

/**
 * Who checks a person's password: the users table's hashes on the embedded runtime, Cognito's
 * user pool on AWS. `verify` answers false for a wrong password or an unknown person alike.
 */
export interface Credentials {
  verify(email: string, password: string): Promise<boolean>;
  /** Sets (or first sets) a person's password. */
  set(email: string, password: string): Promise<void>;
  /** Forgets a person's password (the user was removed). */
  remove(email: string): Promise<void>;
}
