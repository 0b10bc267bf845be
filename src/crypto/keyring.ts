/**
 * An app's sealing keys as stored (wrapped) and as used (a keyring of unwrapped keys).
 */
import type { KeyObject } from "node:crypto";
import { generateAppKeyPair, importPrivateKey } from "./app-keys.ts";
import type { Keyring } from "./envelope.ts";
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
 * Unwraps every key (each under the context it was wrapped under: the caller's, without
 * purpose and keyId, which are added per key) into a keyring that opens values synchronously.
 * It keeps nothing: src/apps/app-keyrings.ts keeps each app's ring for the process.
 */
export const unwrapKeyring = async (
  entries: readonly WrappedKeyEntry[],
  wrapper: KeyWrapper,
  context: WrapContext,
): Promise<Keyring> => {
  const keys: Record<string, KeyObject> = {};
  for (const { keyId, wrappedPrivateKey } of entries) {
    if (keyId in keys) throw new Error(`Key ${keyId} is listed twice`);
    const pkcs8 = await wrapper.unwrap(wrappedPrivateKey, sealingKeyContext(context, keyId));
    try {
      keys[keyId] = importPrivateKey(pkcs8);
    } finally {
      pkcs8.fill(0);
    }
  }
  return staticKeyring(keys);
};

/** A keyring over keys already in memory: tools, tests and SDK conformance checks. */
export const staticKeyring = (keys: Readonly<Record<string, KeyObject>>): Keyring => {
  const byId = new Map(Object.entries(keys));
  return { privateKeyFor: (keyId) => byId.get(keyId) };
};
