/**
 * A key resolved to its app and scopes, with the key and app stores in memory: only the whole
 * key of an app that exists, not revoked, is anyone.
 */
import { describe, expect, it } from "vitest";
import { generateKey } from "../domain/keys.ts";
import type { App, AppStore, KeyStore, StoredKey } from "../ports/apps.ts";
import { authenticate } from "./authenticate.ts";

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
