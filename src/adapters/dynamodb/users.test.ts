/**
 * The users and sessions tables against a real DynamoDB-compatible server (dynalite on disk):
 * a user's session generation, which only its making and a renewal write, and the generation a
 * session or pending sign-in carries back.
 */

import { GetCommand, ScanCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { testUser } from "../../dashboard/memory-stores.test-support.ts";
import { ConflictError, NotFoundError } from "../../domain/errors.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import { dynaliteForTests } from "./dynamo-targets.test-support.ts";
import { createSessionStore, createUserStore } from "./users.ts";

describe("the users and sessions tables", () => {
  const dynamo = dynaliteForTests("dynamo-users-");

  it("keeps a user's generation through a save of a record read before its renewal", async () => {
    const users = createUserStore(dynamo().doc, LOCAL_TABLE_NAMES.users);
    await users.create(
      testUser("kept@example.com", { sessionGeneration: "first", viewer: true, appIds: ["com.a"] }),
    );
    const read = await users.get("kept@example.com");
    if (!read) throw new Error("no user");
    expect(read.sessionGeneration).toBe("first");

    await users.renewSessionGeneration("kept@example.com", "second");
    await users.revokeApp("kept@example.com", "com.a");
    // The stale record saved: its secret is taken; its generation, role and apps are not.
    const { viewer: _viewer, ...rest } = read;
    await users.save({ ...rest, admin: true, totpSecret: "SECRET", appIds: ["com.a", "com.b"] });
    expect(await users.get("kept@example.com")).toEqual({
      email: "kept@example.com",
      admin: false,
      viewer: true,
      appIds: [],
      createdAt: "2026-11-01T00:00:00.000Z",
      totpSecret: "SECRET",
      sessionGeneration: "second",
    });
  });

  it("revokes every copy of an app a record lists twice", async () => {
    const users = createUserStore(dynamo().doc, LOCAL_TABLE_NAMES.users);
    await users.create(
      testUser("twice@example.com", { appIds: ["com.a", "com.b", "com.a", "com.c"] }),
    );
    await users.revokeApp("twice@example.com", "com.a");
    expect((await users.get("twice@example.com"))?.appIds).toEqual(["com.b", "com.c"]);
  });

  it("removes a person only while the admin asking is one: two admins removing each other never both succeed", async () => {
    const users = createUserStore(dynamo().doc, LOCAL_TABLE_NAMES.users);
    await users.create(testUser("a@admins.example", { admin: true }));
    await users.create(testUser("b@admins.example", { admin: true }));
    await users.create(testUser("m@admins.example"));
    // A member asking removes no one; nor does an admin asking about no one.
    expect(await users.removeByAdmin("a@admins.example", "m@admins.example")).toBe(false);
    expect((await users.get("a@admins.example"))?.admin).toBe(true);
    await expect(users.removeByAdmin("nobody@admins.example", "a@admins.example")).rejects.toThrow(
      NotFoundError,
    );
    // B is removing someone at this moment (their mark): A's removal of B is refused.
    const now = new Date();
    await dynamo().doc.send(
      new UpdateCommand({
        TableName: LOCAL_TABLE_NAMES.users,
        Key: { email: "b@admins.example" },
        UpdateExpression: "SET removingSince = :now",
        ExpressionAttributeValues: { ":now": now.toISOString() },
      }),
    );
    await expect(users.removeByAdmin("b@admins.example", "a@admins.example", now)).rejects.toThrow(
      ConflictError,
    );
    // The mark of a removal that stopped counts no more after a minute.
    const later = new Date(now.getTime() + 61_000);
    expect(await users.removeByAdmin("b@admins.example", "a@admins.example", later)).toBe(true);
    // A, its mark taken off, is no one's to refuse; B, gone, removes no one.
    expect(
      (
        await dynamo().doc.send(
          new GetCommand({
            TableName: LOCAL_TABLE_NAMES.users,
            Key: { email: "a@admins.example" },
          }),
        )
      ).Item?.removingSince,
    ).toBeUndefined();
    expect(await users.removeByAdmin("a@admins.example", "b@admins.example", later)).toBe(false);
    expect((await users.get("a@admins.example"))?.admin).toBe(true);
    // At once, many times over: never both.
    for (let round = 0; round < 10; round += 1) {
      const pair = [`x${round}@admins.example`, `y${round}@admins.example`] as const;
      for (const email of pair) await users.create(testUser(email, { admin: true }));
      const both = await Promise.allSettled([
        users.removeByAdmin(pair[1], pair[0]),
        users.removeByAdmin(pair[0], pair[1]),
      ]);
      const left = await Promise.all(pair.map((email) => users.get(email)));
      expect(left.filter(Boolean).length, JSON.stringify(both)).toBeGreaterThanOrEqual(1);
    }
  });

  it("renews and saves only a user that exists", async () => {
    const users = createUserStore(dynamo().doc, LOCAL_TABLE_NAMES.users);
    await expect(users.renewSessionGeneration("nobody@example.com", "g")).rejects.toThrow(
      NotFoundError,
    );
    await expect(users.save(testUser("nobody@example.com"))).rejects.toThrow(NotFoundError);
    expect(await users.get("nobody@example.com")).toBeUndefined();
  });

  it("reads back the generation a session and a pending sign-in began under", async () => {
    const sessions = createSessionStore(dynamo().doc, LOCAL_TABLE_NAMES.sessions);
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    await sessions.put({
      sessionKey: "a".repeat(64),
      email: "kept@example.com",
      csrfToken: "csrf",
      createdAt: new Date().toISOString(),
      expiresAt,
      generation: "second",
    });
    expect((await sessions.get("a".repeat(64)))?.generation).toBe("second");
    await sessions.putPending({
      challengeKey: "b".repeat(64),
      email: "kept@example.com",
      step: "totp",
      state: "",
      failures: 0,
      expiresAt,
      generation: "second",
    });
    expect((await sessions.getPending("b".repeat(64)))?.generation).toBe("second");
  });

  it("makes a user once, lists users by email, and grants an app once", async () => {
    const users = createUserStore(dynamo().doc, LOCAL_TABLE_NAMES.users);
    await users.create(testUser("zed@grants.example"));
    await users.create(testUser("amy@grants.example", { appIds: ["com.a"] }));
    await expect(users.create(testUser("zed@grants.example", { admin: true }))).rejects.toThrow(
      ConflictError,
    );
    expect((await users.get("zed@grants.example"))?.admin).toBe(false);
    const listed = (await users.list()).map((user) => user.email);
    expect(listed.filter((email) => email.endsWith("@grants.example"))).toEqual([
      "amy@grants.example",
      "zed@grants.example",
    ]);
    expect(listed).toEqual([...listed].sort());

    await users.grantApp("amy@grants.example", "com.b");
    await users.grantApp("amy@grants.example", "com.b");
    await users.grantApp("amy@grants.example", "com.a");
    expect((await users.get("amy@grants.example"))?.appIds).toEqual(["com.a", "com.b"]);
    await expect(users.grantApp("nobody@grants.example", "com.a")).rejects.toThrow(NotFoundError);
    expect(await users.get("nobody@grants.example")).toBeUndefined();
  });

  it("revokes one app of a user's, leaving the others in order, and only of a user that exists", async () => {
    const users = createUserStore(dynamo().doc, LOCAL_TABLE_NAMES.users);
    await users.create(testUser("ann@revokes.example", { appIds: ["com.a", "com.b", "com.c"] }));
    await users.revokeApp("ann@revokes.example", "com.b");
    expect((await users.get("ann@revokes.example"))?.appIds).toEqual(["com.a", "com.c"]);
    // An app they do not have: nothing changes.
    await users.revokeApp("ann@revokes.example", "com.b");
    await users.revokeApp("ann@revokes.example", "com.a");
    expect((await users.get("ann@revokes.example"))?.appIds).toEqual(["com.c"]);
    // Two revokes at once each take their own app, neither the other's neighbour.
    await users.grantApp("ann@revokes.example", "com.d");
    await users.grantApp("ann@revokes.example", "com.e");
    await Promise.all([
      users.revokeApp("ann@revokes.example", "com.c"),
      users.revokeApp("ann@revokes.example", "com.d"),
    ]);
    expect((await users.get("ann@revokes.example"))?.appIds).toEqual(["com.e"]);
    await expect(users.revokeApp("nobody@revokes.example", "com.a")).rejects.toThrow(NotFoundError);
    expect(await users.get("nobody@revokes.example")).toBeUndefined();
  });

  it("ends a session and a pending sign-in at their expiry, which DynamoDB's TTL reads too", async () => {
    const { doc } = dynamo();
    const sessions = createSessionStore(doc, LOCAL_TABLE_NAMES.sessions);
    const expiresAt = "2026-11-01T10:00:00.500Z";
    const session = {
      sessionKey: "c".repeat(64),
      email: "kept@example.com",
      csrfToken: "csrf",
      createdAt: "2026-11-01T09:00:00.000Z",
      expiresAt,
      generation: "first",
    };
    const pending = {
      challengeKey: "d".repeat(64),
      email: "kept@example.com",
      step: "totp" as const,
      state: "",
      failures: 0,
      expiresAt,
      generation: "first",
    };
    await sessions.put(session);
    await sessions.putPending(pending);
    const before = new Date(Date.parse(expiresAt) - 1);
    const at = new Date(expiresAt);
    expect(await sessions.get(session.sessionKey, before)).toEqual(session);
    expect(await sessions.get(session.sessionKey, at)).toBeUndefined();
    expect(await sessions.getPending(pending.challengeKey, before)).toEqual(pending);
    expect(await sessions.getPending(pending.challengeKey, at)).toBeUndefined();

    // The TTL in whole seconds, never before the expiry.
    const ttlOf = async (sessionKey: string) =>
      (
        await doc.send(
          new GetCommand({ TableName: LOCAL_TABLE_NAMES.sessions, Key: { sessionKey } }),
        )
      ).Item?.expiresTtl;
    const seconds = Math.ceil(Date.parse(expiresAt) / 1000);
    expect(await ttlOf(session.sessionKey)).toBe(seconds);
    expect(await ttlOf(`pending#${pending.challengeKey}`)).toBe(seconds);
  });

  it("keeps a pending sign-in apart from the sessions, and removes each", async () => {
    const sessions = createSessionStore(dynamo().doc, LOCAL_TABLE_NAMES.sessions);
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const key = "e".repeat(64);
    await sessions.putPending({
      challengeKey: key,
      email: "kept@example.com",
      step: "totp-setup",
      state: "SECRET",
      failures: 1,
      expiresAt,
      generation: "first",
    });
    // A cookie carrying the challenge's key opens no session.
    expect(await sessions.get(key)).toBeUndefined();
    await sessions.put({
      sessionKey: key,
      email: "kept@example.com",
      csrfToken: "csrf",
      createdAt: new Date().toISOString(),
      expiresAt,
      generation: "first",
    });
    await sessions.removePending(key);
    expect(await sessions.getPending(key)).toBeUndefined();
    expect((await sessions.get(key))?.csrfToken).toBe("csrf");
    await sessions.remove(key);
    expect(await sessions.get(key)).toBeUndefined();
  });

  it("reaps the expired sessions and pending sign-ins, and only those (the embedded runtime has no TTL)", async () => {
    const { doc } = dynamo();
    const sessions = createSessionStore(doc, LOCAL_TABLE_NAMES.sessions);
    const now = new Date("2026-12-01T12:00:00.000Z");
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    const session = (sessionKey: string, expiresAt: string) => ({
      sessionKey,
      email: "reaped@example.com",
      csrfToken: "csrf",
      createdAt: at(-86_400_000),
      expiresAt,
      generation: "first",
    });
    await sessions.put(session("a".repeat(64), at(-60_000)));
    await sessions.put(session("b".repeat(64), at(60_000)));
    await sessions.putPending({
      challengeKey: "c".repeat(64),
      email: "reaped@example.com",
      step: "totp",
      state: "S",
      failures: 0,
      expiresAt: at(-5_000),
      generation: "first",
    });
    // The table holds other tests' items too: what this one made is counted by its keys.
    expect(await sessions.reap(now)).toBeGreaterThanOrEqual(2);
    const keys = async () => {
      const { Items } = await doc.send(new ScanCommand({ TableName: LOCAL_TABLE_NAMES.sessions }));
      const mine = new Set(["a".repeat(64), "b".repeat(64), `pending#${"c".repeat(64)}`]);
      return (Items ?? []).map((item) => String(item.sessionKey)).filter((key) => mine.has(key));
    };
    expect(await keys()).toEqual(["b".repeat(64)]);
    expect(await sessions.reap(now)).toBe(0);
  });
});
