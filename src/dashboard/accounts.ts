/**
 * The dashboard's accounts: the owner made on the embedded runtime's first start (its password
 * printed once, as self-hosted tools do), and the people an admin adds (`attribution users`).
 *
 * Ending a person's access ends their sessions: setting their password, or removing them,
 * ends every session and pending sign-in they had (./session-generation.ts), and an account
 * made again for the same email starts with none of the old one's.
 */
import { ConflictError, NotFoundError, ValidationError } from "../domain/errors.ts";
import { generatePassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../domain/passwords.ts";
import type { Credentials, User, UserStore } from "../ports/users.ts";
import { newSessionGeneration } from "./session-generation.ts";
import { normalEmail } from "./sessions.ts";

export interface AccountDeps {
  readonly users: UserStore;
  readonly credentials: Credentials;
}

/** The first start's owner account. */
export const OWNER_EMAIL = "owner@localhost";

/**
 * An address of one `@`, without spaces or control characters, nor `%`, `/`, `?` or `#`: the
 * People routes name a person in their path, which those would make another path or another
 * person once decoded.
 */
const EMAIL = /^[^\s@%/?#\p{Cc}]+@[^\s@%/?#\p{Cc}]+$/u;

const checkPassword = (password: string) => {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new ValidationError(
      `password: must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
    );
  }
};

export const addUser = async (
  deps: AccountDeps,
  input: {
    email: string;
    password?: string;
    admin?: boolean;
    viewer?: boolean;
    appIds?: readonly string[];
  },
  now = new Date(),
): Promise<{ user: User; password: string }> => {
  const email = normalEmail(input.email);
  if (!EMAIL.test(email)) throw new ValidationError("email: must be an email address");
  const password = input.password ?? generatePassword();
  checkPassword(password);
  const user: User = {
    email,
    admin: input.admin ?? false,
    appIds: [...new Set(input.appIds ?? [])],
    createdAt: now.toISOString(),
    ...(input.viewer ? { viewer: true } : {}),
    sessionGeneration: newSessionGeneration(),
  };
  if (user.admin && user.viewer) {
    throw new ValidationError("An admin changes every app: a viewer cannot be one.");
  }
  await deps.users.create(user);
  try {
    await deps.credentials.set(email, password);
  } catch (error) {
    // A password the credentials refuse (Cognito's policy on AWS) leaves no account without
    // one behind, which the same command given a better password would find already there.
    await deps.users.remove(email);
    throw error;
  }
  return { user: (await deps.users.get(email)) ?? user, password };
};

/** Sets (or resets) a person's password, and ends their sessions and pending sign-ins. */
export const setPassword = async (deps: AccountDeps, email: string, password: string) => {
  checkPassword(password);
  const key = normalEmail(email);
  await deps.credentials.set(key, password);
  // Only once the new password holds: a sign-in that checked the old one read the generation
  // before its check, so it is the old generation, and its session ends with the others.
  await deps.users.renewSessionGeneration(key, newSessionGeneration());
};

/** Removes a person: their password, their record, and so their sessions and sign-ins. */
export const removeUser = async (deps: AccountDeps, email: string) => {
  const key = normalEmail(email);
  // First, so that the sessions end even if the removal stops halfway.
  await deps.users.renewSessionGeneration(key, newSessionGeneration()).catch((error: unknown) => {
    if (!(error instanceof NotFoundError)) throw error;
  });
  await deps.credentials.remove(key);
  await deps.users.remove(key);
};

/**
 * Removes a person as an admin asks (the People page): their record, only while `admin` still
 * is one and no other admin is removing `admin` at that moment (./people.ts: two admins
 * removing each other leave one), and so their sessions and sign-ins; then their password,
 * after the record, so that a removal refused leaves it. ConflictError when `admin` is no
 * admin any more.
 */
export const removeUserByAdmin = async (deps: AccountDeps, email: string, admin: string) => {
  const key = normalEmail(email);
  if (!(await deps.users.removeByAdmin(key, normalEmail(admin)))) {
    throw new ConflictError(`${normalEmail(admin)} is no admin any more: nothing was removed.`);
  }
  await deps.credentials.remove(key);
};

/**
 * Makes the owner account when there is no account at all, and answers its one-time password
 * (to print once); undefined when accounts exist.
 */
export const ensureOwner = async (
  deps: AccountDeps,
): Promise<{ email: string; password: string } | undefined> => {
  if ((await deps.users.list()).length > 0) return undefined;
  const { user, password } = await addUser(deps, { email: OWNER_EMAIL, admin: true });
  return { email: user.email, password };
};
