import { describe, expect, it } from "vitest";
import { ValidationError } from "../domain/errors.ts";
import { hashKey } from "../domain/keys.ts";
import type { App, AppStore, KeyStore, StoredKey } from "../ports/apps.ts";
import { createApp } from "./registration.ts";

describe("registering an app", () => {
  it("refuses a bad app id, name or platform with each rule's own sentence, storing nothing", async () => {
    const created: App[] = [];
    const stores = {
      apps: { create: async (app: App) => void created.push(app) } as unknown as AppStore,
      keys: { create: async () => undefined } as unknown as KeyStore,
    };
    const refused = await createApp(
      { appId: "bad id!", name: " ", platform: "android" },
      stores,
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as Error).message).toBe(
      "app id must be a bundle identifier or package name (letters, digits, '.', '_', '-'). name must not be empty.",
    );
    const long = await createApp(
      { appId: "com.example.long", name: "n".repeat(201), platform: "android" },
      stores,
    ).catch((error: unknown) => error);
    expect((long as Error).message).toBe("name must be at most 200 characters.");
    expect(created).toEqual([]);
  });

  const storesOf = () => {
    const created: App[] = [];
    const stored: StoredKey[] = [];
    return {
      created,
      stored,
      stores: {
        apps: { create: async (app: App) => void created.push(app) } as unknown as AppStore,
        keys: { put: async (key: StoredKey) => void stored.push(key) } as unknown as KeyStore,
      },
    };
  };

  it("makes the app, its name trimmed, with an SDK key and a server key stored by their hashes", async () => {
    const { created, stored, stores } = storesOf();
    const { app, keys } = await createApp(
      { appId: "com.example.game", name: "  Game  ", platform: "ios" },
      stores,
      new Date("2026-11-01T00:00:00.000Z"),
    );
    expect(app).toEqual({
      appId: "com.example.game",
      name: "Game",
      platform: "ios",
      enabled: true,
      createdAt: "2026-11-01T00:00:00.000Z",
    });
    expect(created).toEqual([app]);
    expect(keys.map((key) => key.kind)).toEqual(["sdk", "server"]);
    expect(stored.map((key) => [key.keyId, key.kind, key.hash])).toEqual(
      keys.map((key) => [key.keyId, key.kind, hashKey(key.key)]),
    );
  });

  it("takes an app id of 255 characters that begins with a letter or digit, and a name of 200", async () => {
    const { stores } = storesOf();
    const taken = `a${"b".repeat(254)}`;
    await expect(
      createApp({ appId: taken, name: "n".repeat(200), platform: "android" }, stores),
    ).resolves.toMatchObject({ app: { appId: taken } });
    for (const input of [
      { appId: `${taken}c`, name: "Game" },
      { appId: ".example.game", name: "Game" },
      { appId: "com.example.game", name: "n".repeat(201) },
    ]) {
      await expect(
        createApp({ ...input, platform: "android" }, stores),
        input.appId,
      ).rejects.toThrow(ValidationError);
    }
  });
});
