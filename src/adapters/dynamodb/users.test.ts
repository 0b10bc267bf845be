/**
 * The users and sessions tables against a real DynamoDB-compatible server (dynalite on disk):
 * a user's session generation, which only its making and a renewal write, and the generation a
 * session or pending sign-in carries back.
 */
import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../domain/errors.ts";
import { LOCAL_TABLE_NAMES } from "../../embedded/local-dynamodb.ts";
import type { User } from "../../ports/users.ts";
import { dynaliteForTests } from "./dynamo-targets.test-support.ts";
import { createSessionStore, createUserStore } from "./users.ts";

const person = (email: string, extra: Partial<User> = {}): User => ({
  email,
  admin: false,
  appIds: [],
  createdAt: "2026-11-01T00:00:00.000Z",
  sessionGeneration: "first",
  ...extra,
});

describe("the users and sessions tables", () => {
  const dynamo = dynaliteForTests("dynamo-users-");

  it("keeps a user's generation through a save of a record read before its renewal", async () => {
    const users = createUserStore(dynamo().doc, LOCAL_TABLE_NAMES.users);
    await users.create(
      person("kept@example.com", { sessionGeneration: "first", viewer: true, appIds: ["com.a"] }),
    );
    const read = await users.get("kept@example.com");
    if (!read) throw new Error("no user");
    expect(read.sessionGeneration).toBe("first");

    await users.renewSessionGeneration("kept@example.com", "second");
    // The stale record saved: its other changes are taken, its generation is not.
    const { viewer: _viewer, ...rest } = read;
    await users.save({ ...rest, totpSecret: "SECRET", appIds: ["com.a", "com.b"] });
    expect(await users.get("kept@example.com")).toEqual({
      email: "kept@example.com",
      admin: false,
      appIds: ["com.a", "com.b"],
      createdAt: "2026-11-01T00:00:00.000Z",
      totpSecret: "SECRET",
      sessionGeneration: "second",
    });
  });

  it("renews and saves only a user that exists", async () => {
    const users = createUserStore(dynamo().doc, LOCAL_TABLE_NAMES.users);
    await expect(users.renewSessionGeneration("nobody@example.com", "g")).rejects.toThrow(
      NotFoundError,
    );
    await expect(users.save(person("nobody@example.com"))).rejects.toThrow(NotFoundError);
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
});
