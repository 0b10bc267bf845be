/**
 * An app's sealing keys as stored (wrapped) and as used (a keyring). Keys are unwrapped on
 * first use, so a cold start that sees no sealed value never calls KMS, and then kept in
 * memory for the life of the process.
 */
import type { KeyObject } from "node:crypto";
import { generateAppKeyPair, importPrivateKey } from "./app-keys.ts";
import type { AsyncKeyring, Keyring } from "./envelope.ts";
import type { KeyWrapper, WrapContext } from "./key-wrapper.ts";

export interface WrappedKeyEntry {
  readonly keyId: string;
  readonly wrappedPrivateKey: string;
}

/** What an app's key record holds: the published half and the wrapped private half. */
export interface WrappedAppKey extends WrappedKeyEntry {
  /** base64url SPKI DER, as the remote configuration publishes it. */
  readonly publicKey: string;
}

/**
 * The context a sealing key is wrapped under: the caller's (the app id, say) plus the key's
 * purpose and id, which always win so a wrapped key cannot pass for another.
 */
export const sealingKeyContext = (context: WrapContext, keyId: string): WrapContext => ({
  ...context,
  purpose: "sealed-value-private-key",
  keyId,
});

/** A new key pair whose private key exists only wrapped once this returns. */
export const generateWrappedAppKey = async (
  wrapper: KeyWrapper,
  context: WrapContext,
): Promise<WrappedAppKey> => {
  const { keyId, publicKey, privateKeyPkcs8 } = generateAppKeyPair();
  try {
    const wrappedPrivateKey = await wrapper.wrap(
      privateKeyPkcs8,
      sealingKeyContext(context, keyId),
    );
    return { keyId, publicKey, wrappedPrivateKey };
  } finally {
    privateKeyPkcs8.fill(0);
  }
};

/**
 * A keyring over wrapped keys, with the context they were wrapped under (without purpose and
 * keyId, which are added per key). A failed unwrap is not cached, so a KMS outage heals.
 */
export const createKeyring = (
  entries: readonly WrappedKeyEntry[],
  wrapper: KeyWrapper,
  context: WrapContext,
): AsyncKeyring => {
  const wrapped = new Map<string, string>();
  for (const { keyId, wrappedPrivateKey } of entries) {
    if (wrapped.has(keyId)) throw new Error(`Key ${keyId} is listed twice`);
    wrapped.set(keyId, wrappedPrivateKey);
  }
  // Promises, not keys, so concurrent first uses share one unwrap.
  const unwrapped = new Map<string, Promise<KeyObject>>();
  const unwrap = async (keyId: string, wrappedKey: string): Promise<KeyObject> => {
    const pkcs8 = await wrapper.unwrap(wrappedKey, sealingKeyContext(context, keyId));
    try {
      return importPrivateKey(pkcs8);
    } finally {
      pkcs8.fill(0);
    }
  };
  return {
    async privateKeyFor(keyId) {
      const wrappedKey = wrapped.get(keyId);
      if (wrappedKey === undefined) return undefined;
      let pending = unwrapped.get(keyId);
      if (!pending) {
        pending = unwrap(keyId, wrappedKey);
        unwrapped.set(keyId, pending);
        pending.catch(() => {
          if (unwrapped.get(keyId) === pending) unwrapped.delete(keyId);
        });
      }
      return pending;
    },
  };
};

/** A keyring over keys already in memory: tools, tests and SDK conformance checks. */
export const staticKeyring = (keys: Readonly<Record<string, KeyObject>>): Keyring => {
  const byId = new Map(Object.entries(keys));
  return { privateKeyFor: (keyId) => byId.get(keyId) };
};
