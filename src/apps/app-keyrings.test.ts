import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import { openSealed, seal } from "../crypto/envelope.ts";
import { KeyUnwrapError, type KeyWrapper } from "../crypto/key-wrapper.ts";
import { generateWrappedAppKey } from "../crypto/keyring.ts";
import type { App } from "../ports/apps.ts";
import { appKeyContext, withEncryption } from "./app-config.ts";
import { createAppKeyrings } from "./app-keyrings.ts";

// Wraps by base64 (no secrecy needed here), counting unwraps; can be made to fail.
const countingWrapper = () => {
  const counts = { unwraps: 0, failing: false };
  const wrapper: KeyWrapper = {
    wrap: async (plain) => Buffer.from(plain).toString("base64"),
    unwrap: async (wrapped) => {
      counts.unwraps += 1;
      if (counts.failing) throw new Error("KMS out of reach");
      return Buffer.from(wrapped, "base64");
    },
  };
  return { wrapper, counts };
};

const appWith = async (wrapper: KeyWrapper, keys = 1): Promise<App> => {
  const encryptionKeys = [];
  for (let i = 0; i < keys; i++) {
    const key = await generateWrappedAppKey(wrapper, appKeyContext("com.a"));
    encryptionKeys.push({ ...key, createdAt: "2026-11-01T00:00:00.000Z" });
  }
  return {
    appId: "com.a",
    name: "A",
    platform: "android",
    enabled: true,
    createdAt: "2026-11-01T00:00:00.000Z",
    encryptionEnabled: true,
    encryptionKeys,
  };
};

describe("app keyrings", () => {
  it("unwraps an app's keys once and opens what was sealed to any of them", async () => {
    const { wrapper, counts } = countingWrapper();
    const app = await appWith(wrapper, 2);
    const keyrings = createAppKeyrings(wrapper);
    const [first, second] = app.encryptionKeys ?? [];
    if (!first || !second) throw new Error("two keys expected");
    const ring = await keyrings(app);
    expect(await keyrings(app)).toBe(ring);
    expect(counts.unwraps).toBe(2);
    expect(openSealed(seal("gems", first), ring)).toBe("gems");
    expect(openSealed(seal(9.99, second), ring)).toBe(9.99);
    expect(ring.privateKeyFor("unknown")).toBeUndefined();
  });

  it("unwraps again when the app's keys change, and after a failure", async () => {
    const { wrapper, counts } = countingWrapper();
    const app = await appWith(wrapper);
    const keyrings = createAppKeyrings(wrapper);
    counts.failing = true;
    await expect(keyrings(app)).rejects.toThrow("KMS out of reach");
    counts.failing = false;
    await keyrings(app);
    const rotated = await appWith(wrapper, 2);
    await keyrings(rotated);
    expect(counts.unwraps).toBe(1 + 1 + 2);
  });

  it("opens an app's keys for that app alone: they are wrapped under its id", async () => {
    const dir = await mkdtemp(join(tmpdir(), "app-keyrings-"));
    try {
      const wrapper = createKeyFileWrapper(join(dir, "master.key"));
      const app: App = {
        appId: "com.a",
        name: "A",
        platform: "android",
        enabled: true,
        createdAt: "2026-11-01T00:00:00.000Z",
      };
      const sealed = await withEncryption(app, true, wrapper);
      const keyrings = createAppKeyrings(wrapper);
      // Its own keyring opens what a device sealed to its published key.
      const [published] = sealed.encryptionKeys ?? [];
      if (!published) throw new Error("the app was given no key");
      const envelope = seal({ revenue: 4.99 }, published);
      expect(openSealed(envelope, await keyrings(sealed))).toEqual({ revenue: 4.99 });
      await expect(keyrings({ ...sealed, appId: "com.example.other" })).rejects.toThrow(
        KeyUnwrapError,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
