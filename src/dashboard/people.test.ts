/**
 * The People page's rules over the embedded runtime's credentials (real scrypt hashes) and the
 * stores in memory: what a person is answered as, who may be added with which apps, and the
 * guards that keep an admin from removing themselves or the last admin.
 */
import { describe, expect, it } from "vitest";
import { createPasswordCredentials } from "../adapters/dynamodb/password-credentials.ts";
import { ConflictError, NotFoundError, ValidationError } from "../domain/errors.ts";
import type { App } from "../ports/apps.ts";
import { memoryUserStore, testUser } from "./memory-stores.test-support.ts";
import { createPeople } from "./people.ts";

const APP = "com.example.people";
const OTHER = "com.example.others";

const setUp = () => {
  const users = memoryUserStore([
    testUser("owner@localhost", { admin: true, totpSecret: "SECRET", passwordHash: "hash" }),
  ]);
  const credentials = createPasswordCredentials(users);
  const known = new Set([APP, OTHER]);
  const apps = {
    get: async (appId: string) =>
      known.has(appId) ? ({ appId, name: appId } as unknown as App) : undefined,
  };
  const signsIn = async (email: string, password: string) =>
    (await credentials.verify(email, password)).outcome !== "refused";
  return { users, people: createPeople({ users, credentials, apps }), signsIn };
};

describe("the People page's rules", () => {
  it("lists each person by email with their role, apps, start and TOTP, and never a secret", async () => {
    const { people } = setUp();
    await people.add({ email: "Zoe@Example.com", role: "viewer", app_ids: [APP] });
    await people.add({ email: "amy@example.com" });
    const listed = await people.list();
    expect(listed.map((person) => person.email)).toEqual([
      "amy@example.com",
      "owner@localhost",
      "zoe@example.com",
    ]);
    expect(listed[1]).toEqual({
      email: "owner@localhost",
      role: "admin",
      app_ids: [],
      created_at: "2026-11-01T00:00:00.000Z",
      totp: true,
    });
    expect(listed[0]).toMatchObject({ role: "member", app_ids: [], totp: false });
    expect(listed[2]).toMatchObject({ role: "viewer", app_ids: [APP] });
    expect(JSON.stringify(listed)).not.toMatch(/SECRET|hash|sessionGeneration/);
  });

  it("adds a person with a password made for them, which signs them in", async () => {
    const { people, signsIn, users } = setUp();
    const { user, password } = await people.add({
      email: " New@Example.com ",
      role: "viewer",
      app_ids: [APP, APP],
    });
    expect(user).toMatchObject({ email: "new@example.com", role: "viewer", app_ids: [APP] });
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(await signsIn("new@example.com", password)).toBe(true);
    expect((await users.get("new@example.com"))?.viewer).toBe(true);
    const admin = await people.add({ email: "boss@example.com", role: "admin" });
    expect(admin.user.role).toBe("admin");
  });

  it("refuses an email taken, a bad email, an app that does not exist, and apps for an admin", async () => {
    const { people, users } = setUp();
    await expect(people.add({ email: "OWNER@localhost" })).rejects.toThrow(ConflictError);
    await expect(people.add({ email: "not an email" })).rejects.toThrow(ValidationError);
    await expect(
      people.add({ email: "a@example.com", app_ids: [APP, "com.example.none"] }),
    ).rejects.toThrow(new ValidationError("app_ids: no app com.example.none"));
    await expect(
      people.add({ email: "b@example.com", role: "admin", app_ids: [APP] }),
    ).rejects.toThrow(ValidationError);
    // Nothing of a refused person is left behind.
    expect((await users.list()).map((user) => user.email)).toEqual(["owner@localhost"]);
  });

  it("resets a password: the new one signs in, the old one no more, and their sessions end", async () => {
    const { people, signsIn, users } = setUp();
    const { password } = await people.add({ email: "ann@example.com" });
    const generation = (await users.get("ann@example.com"))?.sessionGeneration;
    const next = await people.resetPassword("owner@localhost", "ANN@example.com");
    expect(next).not.toBe(password);
    expect(await signsIn("ann@example.com", next)).toBe(true);
    expect(await signsIn("ann@example.com", password)).toBe(false);
    expect((await users.get("ann@example.com"))?.sessionGeneration).not.toBe(generation);
    await expect(people.resetPassword("owner@localhost", "nobody@example.com")).rejects.toThrow(
      NotFoundError,
    );
    // Their own would end the session the new password is shown in.
    await expect(people.resetPassword("owner@localhost", "Owner@localhost")).rejects.toThrow(
      ConflictError,
    );
  });

  it("removes a person, but not the admin asking, nor the last admin, nor one unknown", async () => {
    const { people, signsIn, users } = setUp();
    const { password } = await people.add({ email: "ann@example.com" });
    await people.remove("owner@localhost", "Ann@Example.com");
    expect(await users.get("ann@example.com")).toBeUndefined();
    expect(await signsIn("ann@example.com", password)).toBe(false);

    await expect(people.remove("owner@localhost", "OWNER@localhost")).rejects.toThrow(
      new ConflictError("You cannot remove yourself: another admin may."),
    );
    // Asked by anyone else, the one admin left stays.
    await expect(people.remove("someone@example.com", "owner@localhost")).rejects.toThrow(
      /last admin/,
    );
    await expect(people.remove("owner@localhost", "nobody@example.com")).rejects.toThrow(
      NotFoundError,
    );
    // With a second admin, one may remove the other.
    await people.add({ email: "boss@example.com", role: "admin" });
    await people.remove("boss@example.com", "owner@localhost");
    expect(await users.get("owner@localhost")).toBeUndefined();
  });

  it("grants and revokes an app of a member's or a viewer's, not an admin's", async () => {
    const { people } = setUp();
    await people.add({ email: "ann@example.com", role: "viewer", app_ids: [OTHER] });
    expect((await people.grant("ann@example.com", APP)).app_ids).toEqual([OTHER, APP]);
    expect((await people.grant("ann@example.com", APP)).app_ids).toEqual([OTHER, APP]);
    expect((await people.revoke("ann@example.com", OTHER)).app_ids).toEqual([APP]);
    // An app gone may still be taken back from a person's list.
    expect((await people.revoke("ann@example.com", "com.example.gone")).app_ids).toEqual([APP]);
    await expect(people.grant("ann@example.com", "com.example.none")).rejects.toThrow(
      NotFoundError,
    );
    await expect(people.grant("nobody@example.com", APP)).rejects.toThrow(NotFoundError);
    await expect(people.revoke("nobody@example.com", APP)).rejects.toThrow(NotFoundError);
    await expect(people.grant("owner@localhost", APP)).rejects.toThrow(ConflictError);
    await expect(people.revoke("owner@localhost", APP)).rejects.toThrow(ConflictError);
  });
});
