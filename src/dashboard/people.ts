/**
 * The dashboard's people as an admin manages them on the People page (the users routes): the
 * same accounts as `attribution users` makes, with the same rules (./accounts.ts), and guards
 * the page needs because it is used by the people it changes: an admin cannot remove themselves
 * nor reset their own password (which would end the session it is shown in), and no change
 * leaves the service without an admin.
 *
 * A password is always made here, never chosen, and answered once: the admin hands it to the
 * person, who may change it later only through an admin (or the CLI).
 */
import * as z from "zod";
import { APP_ID_PATTERN } from "../apps/registration.ts";
import { ConflictError, NotFoundError, ValidationError } from "../domain/errors.ts";
import { generatePassword } from "../domain/passwords.ts";
import type { AppStore } from "../ports/apps.ts";
import type { User } from "../ports/users.ts";
import { type AccountDeps, addUser, removeUserByAdmin, setPassword } from "./accounts.ts";
import { normalEmail } from "./sessions.ts";

/** What a person may do: an admin sees and changes every app, a viewer only sees its own. */
export const ROLES = ["admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const roleOf = (user: Pick<User, "admin" | "viewer">): Role =>
  user.admin ? "admin" : user.viewer ? "viewer" : "member";

/**
 * What the routes answer of a person: named fields only, so that a secret kept on the record (a
 * password's hash, a TOTP's key, whatever is added later) is never sent; of a TOTP, only
 * whether one is set (on AWS Cognito keeps it, and the record says nothing of it).
 */
export interface PersonAnswer {
  readonly email: string;
  readonly role: Role;
  /** The apps granted; an admin sees every app whatever is listed. */
  readonly app_ids: readonly string[];
  readonly created_at: string;
  readonly totp: boolean;
}

export const personAnswer = (user: User): PersonAnswer => ({
  email: user.email,
  role: roleOf(user),
  app_ids: [...user.appIds],
  created_at: user.createdAt,
  totp: user.totpSecret !== undefined,
});

export const appIdParam = z
  .string()
  .regex(APP_ID_PATTERN, { error: "must be an app id (a bundle id or package name)" });

/** A person's email, as the path names it. */
export const emailParam = z.string().min(3).max(320);

/** At most this many apps granted with a new person: the page offers each app as a checkbox. */
export const MAX_APPS_GRANTED = 100;

export const newPersonBody = z.strictObject({
  email: emailParam.meta({ description: "Their email, the account's id (any case)." }),
  role: z
    .enum(ROLES)
    .optional()
    .meta({
      description:
        "`admin`: sees and changes every app, and manages the people. `member` (the default): " +
        "sees and changes the apps granted. `viewer`: sees the reports and exports of the apps " +
        "granted and changes nothing.",
    }),
  app_ids: z.array(appIdParam).max(MAX_APPS_GRANTED).optional().meta({
    description:
      "The apps they may see, each an existing app. Refused for an admin, who sees every app.",
  }),
});
export type NewPersonBody = z.output<typeof newPersonBody>;

export interface PeopleDeps extends AccountDeps {
  readonly apps: Pick<AppStore, "get">;
}

export const createPeople = (deps: PeopleDeps) => {
  const existing = async (email: string): Promise<User> => {
    const user = await deps.users.get(normalEmail(email));
    if (!user) throw new NotFoundError(`No person ${normalEmail(email)}.`);
    return user;
  };
  /** Whether anyone but `email` is an admin. */
  const anotherAdmin = async (email: string) =>
    (await deps.users.list()).some((user) => user.admin && user.email !== email);
  const everyAppAlready = (user: User) =>
    new ConflictError(`${user.email} is an admin and sees every app: there is nothing to grant.`);

  return {
    async list(): Promise<PersonAnswer[]> {
      const users = await deps.users.list();
      return users.sort((a, b) => a.email.localeCompare(b.email)).map(personAnswer);
    },

    /** A new person with a password made for them, answered once. */
    async add(body: NewPersonBody): Promise<{ user: PersonAnswer; password: string }> {
      const role = body.role ?? "member";
      const appIds = [...new Set(body.app_ids ?? [])];
      if (role === "admin" && appIds.length > 0) {
        throw new ValidationError("app_ids: an admin sees every app; grant none to an admin");
      }
      const missing: string[] = [];
      for (const appId of appIds) if (!(await deps.apps.get(appId))) missing.push(appId);
      if (missing.length > 0) {
        throw new ValidationError(`app_ids: no app ${missing.join(", ")}`);
      }
      const { user, password } = await addUser(deps, {
        email: body.email,
        admin: role === "admin",
        viewer: role === "viewer",
        appIds,
      });
      return { user: personAnswer(user), password };
    },

    /** A new password made for the person, answered once; their sessions end. */
    async resetPassword(actor: string, email: string): Promise<string> {
      // Their own would end the session the answer goes to, and the password with it.
      if (normalEmail(email) === normalEmail(actor)) {
        throw new ConflictError(
          "You cannot reset your own password here: another admin may, or `attribution users password`.",
        );
      }
      const user = await existing(email);
      const password = generatePassword();
      await setPassword(deps, user.email, password);
      return password;
    },

    /** Removes a person, whose sessions end; `actor` is the admin asking. */
    async remove(actor: string, email: string): Promise<void> {
      const key = normalEmail(email);
      if (key === normalEmail(actor)) {
        throw new ConflictError("You cannot remove yourself: another admin may.");
      }
      const user = await existing(key);
      if (user.admin && !(await anotherAdmin(user.email))) {
        throw new ConflictError(`${user.email} is the last admin: the service needs one.`);
      }
      await removeUserByAdmin(deps, user.email, actor);
    },

    async grant(email: string, appId: string): Promise<PersonAnswer> {
      const user = await existing(email);
      if (user.admin) throw everyAppAlready(user);
      if (!(await deps.apps.get(appId))) throw new NotFoundError(`No app ${appId}.`);
      await deps.users.grantApp(user.email, appId);
      return personAnswer(await existing(user.email));
    },

    /** An app taken back; one that no longer exists may be taken back too. */
    async revoke(email: string, appId: string): Promise<PersonAnswer> {
      const user = await existing(email);
      if (user.admin) throw everyAppAlready(user);
      await deps.users.revokeApp(user.email, appId);
      return personAnswer(await existing(user.email));
    },
  };
};

export type People = ReturnType<typeof createPeople>;
