/**
 * A key resolved to its app and scopes, with the key and app stores in memory: only the whole
 * key of an app that exists, not revoked, is anyone. A session's scopes: the people's only an
 * admin's.
 */
import { describe, expect, it } from "vitest";
import {
  memorySessionStore,
  memoryUserStore,
  testUser,
} from "../dashboard/memory-stores.test-support.ts";
import { generateKey } from "../domain/keys.ts";
import { SESSION_SCOPES, sessionKeyOf } from "../domain/sessions.ts";
import type { App, AppStore, KeyStore, StoredKey } from "../ports/apps.ts";
import type { User } from "../ports/users.ts";
import { authenticate, authenticateSession } from "./authenticate.ts";

const APP: App = {
  appId: "com.example.keys",
  name: "Keys",
  platform: "android",
  enabled: true,
  createdAt: "2026-11-01T00:00:00.000Z",
};

const stored = (key: ReturnType<typeof generateKey>, appId = APP.appId): StoredKey => ({
  keyId: key.keyId,
  appId,
  kind: key.kind,
  scopes: key.scopes,
  hash: key.hash,
  createdAt: "2026-11-01T00:00:00.000Z",
});

const storesOf = (keys: readonly StoredKey[]) => ({
  keys: {
    put: async () => undefined,
    get: async (keyId: string) => keys.find((key) => key.keyId === keyId),
    listByApp: async () => [...keys],
    revoke: async () => undefined,
  } satisfies KeyStore,
  apps: {
    create: async () => undefined,
    get: async (appId: string) => (appId === APP.appId ? APP : undefined),
    list: async () => [APP],
    update: async () => APP,
  } satisfies AppStore,
});

describe("a key", () => {
  const server = generateKey("server");
  const sdk = generateKey("sdk");
  const revoked = generateKey("server");
  const orphan = generateKey("server");
  const stores = storesOf([
    stored(server),
    stored(sdk),
    { ...stored(revoked), revokedAt: "2026-11-02T00:00:00.000Z" },
    stored(orphan, "com.example.deleted"),
  ]);

  it("is its app's, with its kind's scopes, bare or after Bearer in any case", async () => {
    for (const presented of [
      server.plaintext,
      `Bearer ${server.plaintext}`,
      `bearer   ${server.plaintext} `,
    ]) {
      expect(await authenticate(presented, stores), presented).toEqual({
        keyId: server.keyId,
        appId: APP.appId,
        appName: APP.name,
        scopes: server.scopes,
      });
    }
    expect((await authenticate(sdk.plaintext, stores))?.scopes).toEqual(sdk.scopes);
  });

  it("is no one with another secret under its id, revoked, of an app that is gone, or malformed", async () => {
    const secret = server.plaintext.split("_")[2] ?? "";
    const forged = server.plaintext.replace(
      secret,
      `${secret.startsWith("A") ? "B" : "A"}${secret.slice(1)}`,
    );
    expect(forged).not.toBe(server.plaintext);
    for (const presented of [
      forged,
      revoked.plaintext,
      orphan.plaintext,
      generateKey("server").plaintext,
      `${server.plaintext}x`,
      `Token ${server.plaintext}`,
      "",
      undefined,
    ]) {
      expect(await authenticate(presented, stores), String(presented)).toBeUndefined();
    }
  });
});

describe("a dashboard session", () => {
  const TOKEN = "session-token";
  const CSRF = "csrf-token";
  /** An app that exists, which no one but an admin was granted. */
  const OTHER: App = { ...APP, appId: "com.example.other", name: "Other" };
  const apps = {
    ...storesOf([]).apps,
    get: async (appId: string) => [APP, OTHER].find((app) => app.appId === appId),
  } satisfies AppStore;
  const sessionStores = async (user: User, generation = user.sessionGeneration) => {
    const sessions = memorySessionStore();
    await sessions.put({
      sessionKey: sessionKeyOf(TOKEN),
      email: user.email,
      csrfToken: CSRF,
      createdAt: "2026-11-01T00:00:00.000Z",
      // Far past any run: the store's own clock never ends it here.
      expiresAt: "2999-01-01T00:00:00.000Z",
      generation,
    });
    return { sessions, users: memoryUserStore([user]), apps };
  };
  const principalOf = async (
    user: User,
    request: { method: string; csrfToken?: string; appId?: string },
    generation?: string,
  ) =>
    authenticateSession(
      TOKEN,
      { method: request.method, csrfToken: request.csrfToken, appId: request.appId },
      await sessionStores(user, generation),
    );
  const scopesOf = async (
    user: User,
    request: { method: string; csrfToken?: string; appId?: string },
  ) => (await principalOf(user, request))?.scopes;

  it("holds the people's scope only for an admin, whatever app the request names", async () => {
    const admin = testUser("admin@example.com", { admin: true });
    expect(await scopesOf(admin, { method: "GET" })).toEqual(["apps", "users"]);
    expect(await scopesOf(admin, { method: "PUT", csrfToken: CSRF, appId: APP.appId })).toEqual([
      ...SESSION_SCOPES,
      "users",
    ]);
    // A grant's path names the app granted: one that does not exist is the route's to refuse.
    expect(await scopesOf(admin, { method: "PUT", csrfToken: CSRF, appId: "com.none" })).toEqual([
      "users",
    ]);
    // A change without the session's CSRF token, or with another: nothing.
    expect(await scopesOf(admin, { method: "DELETE" })).toEqual([]);
    expect(await scopesOf(admin, { method: "DELETE", csrfToken: `${CSRF}x` })).toEqual([]);
    expect(await scopesOf(admin, { method: "POST", csrfToken: "", appId: APP.appId })).toEqual([]);
  });

  it("never holds it for a member or a viewer", async () => {
    const member = testUser("member@example.com", { appIds: [APP.appId] });
    const viewer = testUser("viewer@example.com", { viewer: true, appIds: [APP.appId] });
    // An admin who is a viewer too reads every app and manages no one.
    const watching = testUser("watching@example.com", { admin: true, viewer: true });
    for (const user of [member, viewer, watching]) {
      expect(await scopesOf(user, { method: "GET" }), user.email).toEqual(["apps"]);
      expect(await scopesOf(user, { method: "GET", appId: APP.appId }), user.email).toEqual([
        ...SESSION_SCOPES,
      ]);
    }
    expect(await scopesOf(member, { method: "POST", csrfToken: CSRF })).toEqual(["apps"]);
  });

  it("acts on an app its person was granted, as that person, and on no other", async () => {
    const member = testUser("member@example.com", { appIds: [APP.appId] });
    expect(await principalOf(member, { method: "GET", appId: APP.appId })).toEqual({
      keyId: "session",
      appId: APP.appId,
      appName: APP.name,
      scopes: [...SESSION_SCOPES],
      user: member.email,
    });
    // An app that exists but was not granted: no scope, read or change.
    expect(await principalOf(member, { method: "GET", appId: OTHER.appId })).toEqual({
      keyId: "session",
      appId: "",
      appName: "",
      scopes: [],
      user: member.email,
    });
    expect(await scopesOf(member, { method: "PUT", csrfToken: CSRF, appId: OTHER.appId })).toEqual(
      [],
    );
    // An admin sees every app.
    const admin = testUser("admin@example.com", { admin: true });
    expect(await principalOf(admin, { method: "GET", appId: OTHER.appId })).toMatchObject({
      appId: OTHER.appId,
      appName: OTHER.name,
    });
  });

  it("lets a member change its app only with the session's CSRF token, on a safe method without it", async () => {
    const member = testUser("member@example.com", { appIds: [APP.appId] });
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect(await scopesOf(member, { method, csrfToken: CSRF, appId: APP.appId }), method).toEqual(
        [...SESSION_SCOPES],
      );
      expect(await scopesOf(member, { method, appId: APP.appId }), method).toEqual([]);
      expect(
        await scopesOf(member, { method, csrfToken: "csrf-tokem", appId: APP.appId }),
        method,
      ).toEqual([]);
    }
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      expect(await scopesOf(member, { method, appId: APP.appId }), method).toEqual([
        ...SESSION_SCOPES,
      ]);
    }
  });

  it("lets a viewer change nothing, even with the session's CSRF token", async () => {
    const viewer = testUser("viewer@example.com", { viewer: true, appIds: [APP.appId] });
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect(await scopesOf(viewer, { method, csrfToken: CSRF, appId: APP.appId }), method).toEqual(
        [],
      );
      expect(await scopesOf(viewer, { method, csrfToken: CSRF }), method).toEqual([]);
    }
  });

  it("is no one once its person's generation moved on, or under another token", async () => {
    const member = testUser("member@example.com", { appIds: [APP.appId] });
    // The password was set since the session began.
    expect(
      await principalOf(member, { method: "GET", appId: APP.appId }, "earlier"),
    ).toBeUndefined();
    expect(
      await authenticateSession(
        `${TOKEN}x`,
        { method: "GET", csrfToken: undefined, appId: APP.appId },
        await sessionStores(member),
      ),
    ).toBeUndefined();
    // A person removed since: the session's email names no one.
    const stores = await sessionStores(member);
    expect(
      await authenticateSession(
        TOKEN,
        { method: "GET", csrfToken: undefined, appId: APP.appId },
        { ...stores, users: memoryUserStore([]) },
      ),
    ).toBeUndefined();
  });
});
