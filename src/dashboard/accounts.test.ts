/**
 * The dashboard's accounts over the embedded runtime's credentials (real scrypt hashes) and a
 * user store in memory: who may be added, with what password, and that ending a person's access
 * ends what they had.
 */
import { describe, expect, it } from "vitest";
import { createPasswordCredentials } from "../adapters/dynamodb/password-credentials.ts";
import { ValidationError } from "../domain/errors.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../domain/passwords.ts";
import type { UserStore } from "../ports/users.ts";
import { addUser, ensureOwner, OWNER_EMAIL, removeUser, setPassword } from "./accounts.ts";
import { memoryUserStore } from "./memory-stores.test-support.ts";

const setUp = () => {
  const users = memoryUserStore();
  return { users, credentials: createPasswordCredentials(users) };
};

const signsIn = async (deps: ReturnType<typeof setUp>, email: string, password: string) =>
  (await deps.credentials.verify(email, password)).outcome !== "refused";

describe("the dashboard's accounts", () => {
  it("add a person by their email in any case, with a password of 8 to 256 characters", async () => {
    const deps = setUp();
    const { user } = await addUser(deps, {
      email: " Ana@Example.COM ",
      password: "x".repeat(MIN_PASSWORD_LENGTH),
      appIds: ["com.example.a", "com.example.a"],
    });
    expect(user).toMatchObject({
      email: "ana@example.com",
      admin: false,
      appIds: ["com.example.a"],
    });
    expect(user.viewer).toBeUndefined();
    expect(await signsIn(deps, "ana@example.com", "x".repeat(MIN_PASSWORD_LENGTH))).toBe(true);
    await addUser(deps, { email: "max@example.com", password: "y".repeat(MAX_PASSWORD_LENGTH) });
    for (const password of [
      "x".repeat(MIN_PASSWORD_LENGTH - 1),
      "y".repeat(MAX_PASSWORD_LENGTH + 1),
    ]) {
      await expect(addUser(deps, { email: "bo@example.com", password })).rejects.toThrow(
        `password: must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
      );
    }
    for (const email of [
      "not an email",
      "a@b@example.com",
      "an a@example.com",
      "@example.com",
      "a@",
    ]) {
      await expect(addUser(deps, { email }), email).rejects.toThrow(
        "email: must be an email address",
      );
    }
    // Nothing of a refused person is kept.
    expect((await deps.users.list()).map((kept) => kept.email)).toEqual([
      "ana@example.com",
      "max@example.com",
    ]);
  });

  it("give a person added without a password one to print once, and refuse an admin who only views", async () => {
    const deps = setUp();
    const { password } = await addUser(deps, { email: "cy@example.com", viewer: true });
    expect(password.length).toBeGreaterThanOrEqual(MIN_PASSWORD_LENGTH);
    expect(await signsIn(deps, "cy@example.com", password)).toBe(true);
    expect((await deps.users.get("cy@example.com"))?.viewer).toBe(true);
    await expect(
      addUser(deps, { email: "di@example.com", admin: true, viewer: true }),
    ).rejects.toThrow("An admin changes every app: a viewer cannot be one.");
    expect(await deps.users.get("di@example.com")).toBeUndefined();
  });

  it("leave no account behind when the credentials refuse its password, so that adding it again works", async () => {
    const deps = setUp();
    const strict = {
      ...deps,
      credentials: {
        ...deps.credentials,
        set: async () => {
          throw new ValidationError("password: the user pool asks for more");
        },
      },
    };
    await expect(
      addUser(strict, { email: "ed@example.com", password: "short but 8" }),
    ).rejects.toThrow("password: the user pool asks for more");
    expect(await deps.users.get("ed@example.com")).toBeUndefined();
    await addUser(deps, { email: "ed@example.com", password: "a better password" });
    expect(await signsIn(deps, "ed@example.com", "a better password")).toBe(true);
  });

  it("set a password of the same lengths, ending the person's sessions", async () => {
    const deps = setUp();
    await addUser(deps, { email: "ed@example.com", password: "first password" });
    const before = (await deps.users.get("ed@example.com"))?.sessionGeneration;
    await expect(setPassword(deps, "ed@example.com", "short")).rejects.toThrow("password: must be");
    expect(await signsIn(deps, "ed@example.com", "first password")).toBe(true);
    await setPassword(deps, "ED@example.com", "second password");
    expect(await signsIn(deps, "ed@example.com", "second password")).toBe(true);
    expect(await signsIn(deps, "ed@example.com", "first password")).toBe(false);
    expect((await deps.users.get("ed@example.com"))?.sessionGeneration).not.toBe(before);
  });

  it("remove a person, again when the first removal stopped halfway, and fail on any other error", async () => {
    const setUpDeps = setUp();
    // The credentials' own record goes too (on AWS, the person's Cognito user).
    const removed: string[] = [];
    const deps = {
      ...setUpDeps,
      credentials: {
        ...setUpDeps.credentials,
        remove: async (email: string) => {
          removed.push(email);
          await setUpDeps.credentials.remove(email);
        },
      },
    };
    await addUser(deps, { email: "fay@example.com", password: "a password of hers" });
    await removeUser(deps, "Fay@example.com");
    expect(removed).toEqual(["fay@example.com"]);
    expect(await signsIn(deps, "fay@example.com", "a password of hers")).toBe(false);
    expect(await deps.users.get("fay@example.com")).toBeUndefined();
    // Her record already gone: the removal goes on.
    await removeUser(deps, "fay@example.com");
    const failing: UserStore = {
      ...deps.users,
      renewSessionGeneration: async () => {
        throw new Error("the store is down");
      },
    };
    await expect(
      removeUser({ users: failing, credentials: deps.credentials }, "gus@example.com"),
    ).rejects.toThrow("the store is down");
  });

  it("make the owner, an admin, on the first start only", async () => {
    const deps = setUp();
    const owner = await ensureOwner(deps);
    expect(owner?.email).toBe(OWNER_EMAIL);
    expect(await deps.users.get(OWNER_EMAIL)).toMatchObject({ admin: true });
    expect(await signsIn(deps, OWNER_EMAIL, owner?.password ?? "")).toBe(true);
    expect(await ensureOwner(deps)).toBeUndefined();
  });
});
