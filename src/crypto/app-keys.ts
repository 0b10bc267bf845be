/**
 * An app's sealing key pair. The public half is published with the remote configuration as
 * base64url SPKI DER, the form every platform imports directly (Java X509EncodedKeySpec,
 * CryptoKit derRepresentation, WebCrypto "spki"); the private half leaves here only as
 * PKCS#8, to be wrapped before it is stored.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";

export const CURVE = "prime256v1";

/** Key ids travel inside envelopes, so they avoid the "." that separates envelope parts. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface AppKeyPair {
  readonly keyId: string;
  /** What the remote configuration publishes: base64url (no padding) of the SPKI DER. */
  readonly publicKey: string;
  readonly privateKeyPkcs8: Buffer;
}

/** "k" and 16 hex digits: unique enough per service, short enough for every envelope. */
export const newKeyId = (): string => `k${randomBytes(8).toString("hex")}`;

export const generateAppKeyPair = (): AppKeyPair => {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: CURVE });
  return {
    keyId: newKeyId(),
    publicKey: publicKey.export({ format: "der", type: "spki" }).toString("base64url"),
    privateKeyPkcs8: privateKey.export({ format: "der", type: "pkcs8" }),
  };
};

/** Strict base64url: no padding, no other alphabet, no stray trailing bits. */
export const decodeBase64url = (text: string): Buffer | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  // Node's decoder is lenient; re-encoding rejects the spellings it would quietly accept.
  return bytes.toString("base64url") === text ? bytes : undefined;
};

const isP256 = (key: KeyObject): boolean =>
  key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === CURVE;

export const isP256PublicKey = (key: KeyObject): boolean => key.type === "public" && isP256(key);
export const isP256PrivateKey = (key: KeyObject): boolean => key.type === "private" && isP256(key);

/** A published public key (base64url SPKI DER); throws a TypeError if it is not P-256. */
export const importPublicKey = (spkiBase64url: string): KeyObject => {
  const der = decodeBase64url(spkiBase64url);
  let key: KeyObject | undefined;
  try {
    key = der ? createPublicKey({ key: der, format: "der", type: "spki" }) : undefined;
  } catch {
    key = undefined;
  }
  if (!key || !isP256PublicKey(key)) {
    throw new TypeError("The public key is not a base64url SPKI DER P-256 key");
  }
  return key;
};

/** An unwrapped private key (PKCS#8 DER); throws a TypeError if it is not P-256. */
export const importPrivateKey = (pkcs8: Buffer): KeyObject => {
  let key: KeyObject | undefined;
  try {
    key = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" });
  } catch {
    key = undefined;
  }
  // The message never echoes the bytes: they are key material.
  if (!key || !isP256PrivateKey(key))
    throw new TypeError("The private key is not a PKCS#8 P-256 key");
  return key;
};
