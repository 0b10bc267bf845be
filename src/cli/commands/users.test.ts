/**
 * `attribution users list`: what it prints of each person, in its table and as JSON. A secret
 * (a password's hash, a TOTP's key) never leaves the store: the list says only whether a TOTP
 * is set. `users revoke` takes an app back; `users add --admin` and `users grant` give an admin
 * none, who sees every app.
 */
import { describe, expect, it } from "vitest";
import { withAdminStores } from "../admin-stores.ts";
import { printedBy, useDataDir } from "./commands.test-support.ts";
import {
  addUserCommand,
  grantUserCommand,
  listUsersCommand,
  removeUserCommand,
  revokeUserCommand,
} from "./users.ts";

const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

describe("attribution users list", () => {
  const folder = useDataDir("users-list-", async (dataDir) => {
    await addUserCommand({ email: "two-step@example.com", password: "a long password", dataDir });
    await addUserCommand({
      email: "reader@example.com",
      password: "another long password",
      viewer: true,
      dataDir,
    });
    await withAdminStores(dataDir, async (stores) => {
      const user = await stores.users().get("two-step@example.com");
      if (!user) throw new Error("no user");
      await stores.users().save({ ...user, totpSecret: SECRET });
    });
  });

  const printed = async (json: boolean) =>
    (await printedBy(() => listUsersCommand({ dataDir: folder.dataDir, json }))).join("\n");

  it("prints each person as GET /v1/users answers them: whether a TOTP is set, and no secret", async () => {
    const text = await printed(true);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("scrypt");
    const listed = JSON.parse(text) as Record<string, unknown>[];
    expect(listed).toEqual([
      {
        email: "reader@example.com",
        role: "viewer",
        app_ids: [],
        created_at: expect.any(String),
        totp: false,
      },
      {
        email: "two-step@example.com",
        role: "member",
        app_ids: [],
        created_at: expect.any(String),
        totp: true,
      },
    ]);
  });

  it("says in the table who has a TOTP, and prints no secret", async () => {
    const text = await printed(false);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("scrypt");
    const lines = text.split("\n");
    expect(lines.find((line) => line.startsWith("two-step@example.com"))).toContain("(TOTP)");
    expect(lines.find((line) => line.startsWith("reader@example.com"))).not.toContain("TOTP");
  });
});

describe("attribution users revoke", () => {
  const folder = useDataDir("users-revoke-", async (dataDir) => {
    await addUserCommand({ email: "Ann@example.com", password: "a long password", dataDir });
    await withAdminStores(dataDir, async (stores) => {
      for (const appId of ["com.example.a", "com.example.b"]) {
        await stores.apps.create({
          appId,
          name: appId,
          platform: "android",
          enabled: true,
          createdAt: new Date().toISOString(),
        });
      }
    });
    for (const appId of ["com.example.a", "com.example.b"]) {
      await grantUserCommand({ email: "ann@example.com", appId, dataDir });
    }
  });

  it("takes one app back from a person, leaving the others", async () => {
    const said = await printedBy(() =>
      revokeUserCommand({
        email: "ANN@example.com",
        appId: "com.example.a",
        dataDir: folder.dataDir,
      }),
    );
    expect(said).toEqual(["ann@example.com may no longer see com.example.a."]);
    const appIds = await withAdminStores(
      folder.dataDir,
      async (stores) => (await stores.users().get("ann@example.com"))?.appIds,
    );
    expect(appIds).toEqual(["com.example.b"]);
    await expect(
      revokeUserCommand({
        email: "nobody@example.com",
        appId: "com.example.a",
        dataDir: folder.dataDir,
      }),
    ).rejects.toThrow(/No user nobody@example.com/);
  });

  it("refuses to take an app back from an admin, who sees every app", async () => {
    await addUserCommand({
      email: "boss@example.com",
      password: "a long password",
      admin: true,
      dataDir: folder.dataDir,
    });
    await expect(
      revokeUserCommand({
        email: "boss@example.com",
        appId: "com.example.a",
        dataDir: folder.dataDir,
      }),
    ).rejects.toThrow(
      "boss@example.com is an admin and sees every app: there is nothing to revoke.",
    );
  });

  it("refuses apps named for an admin, and granting an admin an app, as the People routes do", async () => {
    await expect(
      addUserCommand({
        email: "chief@example.com",
        password: "a long password",
        admin: true,
        appIds: ["com.example.a"],
        dataDir: folder.dataDir,
      }),
    ).rejects.toThrow("--app-id: an admin sees every app; name no app for --admin");
    const refused = await withAdminStores(folder.dataDir, (stores) =>
      stores.users().get("chief@example.com"),
    );
    expect(refused).toBeUndefined();
    await addUserCommand({
      email: "chief@example.com",
      password: "a long password",
      admin: true,
      dataDir: folder.dataDir,
    });
    await expect(
      grantUserCommand({
        email: "Chief@example.com",
        appId: "com.example.a",
        dataDir: folder.dataDir,
      }),
    ).rejects.toThrow(
      "chief@example.com is an admin and sees every app: there is nothing to grant.",
    );
    const appIds = await withAdminStores(
      folder.dataDir,
      async (stores) => (await stores.users().get("chief@example.com"))?.appIds,
    );
    expect(appIds).toEqual([]);
  });

  it("refuses an email a path could not name: a percent sign, a slash, a question mark", async () => {
    for (const email of [
      "a%41@example.com",
      "a/b@example.com",
      "a?b@example.com",
      "a#b@example.com",
    ]) {
      await expect(
        addUserCommand({ email, password: "a long password", dataDir: folder.dataDir }),
      ).rejects.toThrow("email: must be an email address");
    }
  });
});

describe("attribution users remove", () => {
  const folder = useDataDir("users-remove-", async (dataDir) => {
    await addUserCommand({
      email: "admin@example.com",
      password: "a long password",
      admin: true,
      dataDir,
    });
    await addUserCommand({ email: "member@example.com", password: "a long password", dataDir });
  });

  const emails = () =>
    withAdminStores(folder.dataDir, async (stores) =>
      (await stores.users().list()).map((user) => user.email).sort(),
    );

  it("refuses the last admin, as the People page does, and removes them once another is added", async () => {
    await expect(
      removeUserCommand({ email: "Admin@example.com", dataDir: folder.dataDir }),
    ).rejects.toThrow(
      "admin@example.com is the last admin: the service needs one. Add another first (attribution users add <email> --admin).",
    );
    expect(await emails()).toEqual(["admin@example.com", "member@example.com"]);
    await printedBy(() =>
      removeUserCommand({ email: "member@example.com", dataDir: folder.dataDir }),
    );
    await addUserCommand({
      email: "second@example.com",
      password: "a long password",
      admin: true,
      dataDir: folder.dataDir,
    });
    await printedBy(() =>
      removeUserCommand({ email: "admin@example.com", dataDir: folder.dataDir }),
    );
    expect(await emails()).toEqual(["second@example.com"]);
  });
});
