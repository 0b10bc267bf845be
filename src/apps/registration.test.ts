import { describe, expect, it } from "vitest";
import { ValidationError } from "../domain/errors.ts";
import type { App, AppStore, KeyStore } from "../ports/apps.ts";
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
    expect(created).toEqual([]);
  });
});
