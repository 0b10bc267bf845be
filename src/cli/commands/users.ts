/**
 * `attribution users`: the dashboard's people. Each sees the apps granted to them (and those
 * they create); an admin sees every app. A password not given is made and shown once.
 */
import { addUser, removeUser, setPassword } from "../../dashboard/accounts.ts";
import { personAnswer } from "../../dashboard/people.ts";
import { normalEmail } from "../../dashboard/sessions.ts";
import { ConflictError, NotFoundError, ValidationError } from "../../domain/errors.ts";
import { generatePassword } from "../../domain/passwords.ts";
import { markAdminChange } from "../../embedded/admin-changes.ts";
import { type AdminStores, appMustExist, withAdminStores } from "../admin-stores.ts";

const accountDeps = (stores: AdminStores) => ({
  users: stores.users(),
  credentials: stores.credentials(),
});

export const addUserCommand = async (options: {
  email: string;
  password?: string;
  admin?: boolean;
  viewer?: boolean;
  appIds?: string[];
  dataDir: string;
}) => {
  // As `POST /v1/users` refuses it: an admin sees every app, and apps on their record would
  // read (in `users list --json`) as a limit that is none.
  if (options.admin && (options.appIds ?? []).length > 0) {
    throw new ValidationError("--app-id: an admin sees every app; name no app for --admin");
  }
  const { user, password } = await withAdminStores(options.dataDir, async (stores) => {
    for (const appId of options.appIds ?? []) await appMustExist(stores, appId);
    return addUser(accountDeps(stores), options);
  });
  console.log(
    `Added ${user.email}${user.admin ? " (admin: every app)" : ""}${user.viewer ? " (viewer: changes nothing)" : ""}${
      user.appIds.length > 0 ? `, who may see ${user.appIds.join(", ")}` : ""
    }.`,
  );
  if (!options.password) {
    console.log("Their password is shown this once:");
    console.log(`  ${password}`);
  }
};

export const listUsersCommand = async (options: { dataDir: string; json?: boolean }) => {
  const users = await withAdminStores(options.dataDir, (stores) => stores.users().list());
  // As `GET /v1/users` answers each (named fields only: no password's hash, no TOTP's key).
  const listed = users.sort((a, b) => a.email.localeCompare(b.email)).map(personAnswer);
  if (options.json) {
    console.log(JSON.stringify(listed, null, 2));
    return;
  }
  for (const user of listed) {
    const sees =
      user.role === "admin" ? "every app (admin)" : user.app_ids.join(", ") || "no app yet";
    console.log(
      `${user.email.padEnd(40)} ${sees}${user.role === "viewer" ? " (viewer)" : ""}${user.totp ? " (TOTP)" : ""}`,
    );
  }
};

export const removeUserCommand = async (options: { email: string; dataDir: string }) => {
  await withAdminStores(options.dataDir, async (stores) => {
    const email = normalEmail(options.email);
    const user = await stores.users().get(email);
    if (!user) throw new NotFoundError(`No user ${email}.`);
    // As the People page refuses it: with no admin left, nobody could add people or apps from
    // the dashboard, and no start makes the owner account again while members remain.
    if (
      user.admin &&
      !(await stores.users().list()).some((other) => other.admin && other.email !== email)
    ) {
      throw new ConflictError(
        `${email} is the last admin: the service needs one. Add another first (attribution users add <email> --admin).`,
      );
    }
    await removeUser(accountDeps(stores), email);
  });
  console.log(`Removed ${normalEmail(options.email)}; their sessions end at their next request.`);
};

export const userPasswordCommand = async (options: {
  email: string;
  password?: string;
  dataDir: string;
}) => {
  const password = await withAdminStores(options.dataDir, async (stores) => {
    const email = normalEmail(options.email);
    if (!(await stores.users().get(email))) throw new NotFoundError(`No user ${email}.`);
    const next = options.password ?? generatePassword();
    await setPassword(accountDeps(stores), email, next);
    return next;
  });
  console.log(`Set the password of ${normalEmail(options.email)}; their sessions have ended.`);
  if (!options.password) {
    console.log("It is shown this once:");
    console.log(`  ${password}`);
  }
};

export const grantUserCommand = async (options: {
  email: string;
  appId: string;
  dataDir: string;
}) => {
  await withAdminStores(options.dataDir, async (stores) => {
    const email = normalEmail(options.email);
    // As `PUT /v1/users/{email}/apps/{app_id}` and `users revoke` refuse it.
    if ((await stores.users().get(email))?.admin) {
      throw new ConflictError(
        `${email} is an admin and sees every app: there is nothing to grant.`,
      );
    }
    await appMustExist(stores, options.appId);
    await stores.users().grantApp(email, options.appId);
    if (!stores.target.startsWith("AWS")) await markAdminChange(options.dataDir);
  });
  console.log(`${normalEmail(options.email)} may now see ${options.appId}.`);
};

export const revokeUserCommand = async (options: {
  email: string;
  appId: string;
  dataDir: string;
}) => {
  await withAdminStores(options.dataDir, async (stores) => {
    const email = normalEmail(options.email);
    // As the People page says it: an admin's apps are every app, whatever the record lists.
    if ((await stores.users().get(email))?.admin) {
      throw new ConflictError(
        `${email} is an admin and sees every app: there is nothing to revoke.`,
      );
    }
    // An app since deleted may be taken back all the same: no check that it exists.
    await stores.users().revokeApp(email, options.appId);
    if (!stores.target.startsWith("AWS")) await markAdminChange(options.dataDir);
  });
  console.log(`${normalEmail(options.email)} may no longer see ${options.appId}.`);
};
