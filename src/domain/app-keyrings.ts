/**
 * The private keys that open an app's sealed values, unwrapped once per process and kept in
 * memory, so opening values on the ingestion path needs no call to KMS or the key file.
 */
import type { KeyObject } from "node:crypto";
import { importPrivateKey } from "../crypto/app-keys.ts";
import type { Keyring } from "../crypto/envelope.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { sealingKeyContext, staticKeyring } from "../crypto/keyring.ts";
import type { App } from "../ports/apps.ts";
import { appKeyContext } from "./app-config.ts";

export type AppKeyrings = (app: App) => Promise<Keyring>;

export const createAppKeyrings = (wrapper: KeyWrapper): AppKeyrings => {
  const unwrapped = new Map<string, Promise<KeyObject>>();
  const unwrap = (app: App, keyId: string, wrapped: string): Promise<KeyObject> => {
    const cacheKey = `${app.appId}#${keyId}`;
    let key = unwrapped.get(cacheKey);
    if (!key) {
      key = wrapper
        .unwrap(wrapped, sealingKeyContext(appKeyContext(app.appId), keyId))
        .then((pkcs8) => {
          try {
            return importPrivateKey(pkcs8);
          } finally {
            pkcs8.fill(0);
          }
        });
      // A failure (KMS throttled, say) is not remembered: the next request tries again.
      key.catch(() => unwrapped.delete(cacheKey));
      unwrapped.set(cacheKey, key);
    }
    return key;
  };
  return async (app) => {
    const entries = await Promise.all(
      (app.encryptionKeys ?? []).map(
        async (k) => [k.keyId, await unwrap(app, k.keyId, k.wrappedPrivateKey)] as const,
      ),
    );
    return staticKeyring(Object.fromEntries(entries));
  };
};
