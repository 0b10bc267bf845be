/**
 * The private keys that open an app's sealed values, unwrapped once per process and kept in
 * memory, so opening values on the ingestion path needs no call to KMS or the key file. Each
 * app gets a keyring over its wrapped keys (src/crypto/keyring.ts), made again when its keys
 * change; ingestion opens values synchronously, so every key is unwrapped before a batch.
 */
import type { KeyObject } from "node:crypto";
import type { AsyncKeyring, Keyring } from "../crypto/envelope.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { createKeyring, staticKeyring } from "../crypto/keyring.ts";
import type { App } from "../ports/apps.ts";
import { appKeyContext } from "./app-config.ts";

export type AppKeyrings = (app: App) => Promise<Keyring>;

export const createAppKeyrings = (wrapper: KeyWrapper): AppKeyrings => {
  const rings = new Map<string, { keyIds: string; ring: AsyncKeyring }>();
  return async (app) => {
    const keys = app.encryptionKeys ?? [];
    const keyIds = keys.map((k) => k.keyId).join(",");
    let entry = rings.get(app.appId);
    if (!entry || entry.keyIds !== keyIds) {
      entry = { keyIds, ring: createKeyring(keys, wrapper, appKeyContext(app.appId)) };
      rings.set(app.appId, entry);
    }
    const { ring } = entry;
    const unwrapped: Record<string, KeyObject> = {};
    for (const { keyId } of keys) {
      const key = await ring.privateKeyFor(keyId);
      if (key) unwrapped[keyId] = key;
    }
    return staticKeyring(unwrapped);
  };
};
