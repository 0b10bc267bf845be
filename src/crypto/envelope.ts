/**
 * Sealed values: a value encrypted on the device to the app's public key, which only the
 * backend can open. It travels as a JSON string in place of the original value:
 *
 *     sv1.<keyId>.<b64url E>.<b64url N>.<b64url C||T>
 *
 * - E: the sender's fresh ephemeral P-256 public key, uncompressed (0x04||X||Y, 65 bytes);
 * - Z = ECDH(ephemeral private key, app public key), the 32-byte x-coordinate;
 * - K = HKDF-SHA256(ikm Z, salt E, info "attribution-sealed-value/v1|" + keyId, 32 bytes);
 * - N: 12 random bytes; C||T = AES-256-GCM(K, N, aad "sv1." + keyId, plaintext), T 16 bytes;
 * - plaintext: the UTF-8 JSON text of the value, so strings, numbers, booleans, null, lists
 *   and maps all round-trip; b64url is RFC 4648 section 5 without padding.
 *
 * The key id sits in the clear so the backend can pick the key after a rotation; it is bound
 * twice (HKDF info and AAD), so moving a ciphertext under another key id fails to open.
 * spec/encryption-test-vectors.json is the contract for SDKs.
 */
import {
  createCipheriv,
  createDecipheriv,
  createECDH,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import {
  CURVE,
  decodeBase64url,
  importPublicKey,
  isP256PrivateKey,
  isP256PublicKey,
  KEY_ID_PATTERN,
} from "./app-keys.ts";
import { assertJsonValue, type JsonValue } from "./json-value.ts";

export const SEALED_VERSION = "sv1";
export const HKDF_INFO_PREFIX = "attribution-sealed-value/v1|";
const EPHEMERAL_KEY_BYTES = 65;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const CONTENT_KEY_BYTES = 32;
/** The DER header of a P-256 SPKI, before the 65-byte point: lets a raw point be imported. */
const P256_SPKI_HEADER = Buffer.from("3059301306072a8648ce3d020106082a8648ce3d030107034200", "hex");

export type SealedValueFailure = "malformed" | "unknown-key-id" | "authentication-failed";

const MESSAGES: Record<SealedValueFailure, string> = {
  malformed: "The sealed value is malformed",
  "unknown-key-id": "The sealed value names a key this app does not have",
  "authentication-failed": "The sealed value failed authentication",
};

/**
 * A sealed value that cannot be opened: the sender's fault, never the service's. It carries
 * no cause, so no OpenSSL detail or key material can reach a log or a response.
 */
export class SealedValueError extends Error {
  constructor(
    readonly reason: SealedValueFailure,
    /** Public (it names a published key); set once the envelope has parsed. */
    readonly keyId?: string,
  ) {
    super(MESSAGES[reason]);
    this.name = "SealedValueError";
  }
}

export interface Keyring {
  privateKeyFor(keyId: string): KeyObject | undefined;
}

export interface Recipient {
  readonly keyId: string;
  /** A KeyObject, or the published form: base64url (no padding) SPKI DER. */
  readonly publicKey: KeyObject | string;
}

interface Envelope {
  readonly keyId: string;
  readonly ephemeralPublicKey: Buffer;
  readonly nonce: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

const PREFIX = `${SEALED_VERSION}.`;

const parseEnvelope = (value: unknown): Envelope | undefined => {
  if (typeof value !== "string" || !value.startsWith(PREFIX)) return undefined;
  const parts = value.split(".");
  if (parts.length !== 5) return undefined;
  const [, keyId = "", ephemeral = "", nonceText = "", sealed = ""] = parts;
  if (!KEY_ID_PATTERN.test(keyId)) return undefined;
  const ephemeralPublicKey = decodeBase64url(ephemeral);
  const nonce = decodeBase64url(nonceText);
  const body = decodeBase64url(sealed);
  if (
    ephemeralPublicKey?.length !== EPHEMERAL_KEY_BYTES ||
    ephemeralPublicKey[0] !== 0x04 ||
    nonce?.length !== NONCE_BYTES ||
    // The shortest JSON text is one byte.
    body === undefined ||
    body.length < TAG_BYTES + 1
  ) {
    return undefined;
  }
  return {
    keyId,
    ephemeralPublicKey,
    nonce,
    ciphertext: body.subarray(0, body.length - TAG_BYTES),
    tag: body.subarray(body.length - TAG_BYTES),
  };
};

/**
 * Whether `value` has the shape of a sealed value (prefix, five parts, a valid key id, strict
 * base64url of the right lengths). No cryptography: it says nothing about opening it.
 */
export const isSealed = (value: unknown): value is string => parseEnvelope(value) !== undefined;

const deriveContentKey = (
  sharedSecret: Buffer,
  ephemeralPublicKey: Buffer,
  keyId: string,
): Buffer =>
  Buffer.from(
    hkdfSync(
      "sha256",
      sharedSecret,
      ephemeralPublicKey,
      `${HKDF_INFO_PREFIX}${keyId}`,
      CONTENT_KEY_BYTES,
    ),
  );

const additionalData = (keyId: string): Buffer => Buffer.from(`${PREFIX}${keyId}`, "ascii");

/** The uncompressed point of a P-256 public key: the last 65 bytes of its 91-byte SPKI. */
const publicPoint = (key: KeyObject): Buffer => {
  const spki = key.export({ format: "der", type: "spki" });
  return spki.subarray(spki.length - EPHEMERAL_KEY_BYTES);
};

const recipientPoint = (recipient: Recipient): Buffer => {
  if (!KEY_ID_PATTERN.test(recipient.keyId)) {
    throw new TypeError("The key id must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -");
  }
  const key =
    typeof recipient.publicKey === "string"
      ? importPublicKey(recipient.publicKey)
      : recipient.publicKey;
  if (!isP256PublicKey(key)) throw new TypeError("The recipient key is not a P-256 public key");
  return publicPoint(key);
};

interface SealParameters {
  readonly ephemeralPrivateKey?: Buffer;
  readonly nonce: Buffer;
}

const sealWith = (value: unknown, recipient: Recipient, parameters: SealParameters): string => {
  assertJsonValue(value);
  const point = recipientPoint(recipient);
  const ecdh = createECDH(CURVE);
  if (parameters.ephemeralPrivateKey) ecdh.setPrivateKey(parameters.ephemeralPrivateKey);
  else ecdh.generateKeys();
  const ephemeralPublicKey = ecdh.getPublicKey(null, "uncompressed");
  const key = deriveContentKey(ecdh.computeSecret(point), ephemeralPublicKey, recipient.keyId);
  const cipher = createCipheriv("aes-256-gcm", key, parameters.nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(recipient.keyId));
  const ciphertext = Buffer.concat([
    cipher.update(JSON.stringify(value), "utf8"),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  return [
    SEALED_VERSION,
    recipient.keyId,
    ephemeralPublicKey.toString("base64url"),
    parameters.nonce.toString("base64url"),
    ciphertext.toString("base64url"),
  ].join(".");
};

/**
 * Seals a JSON value to an app's public key with a fresh ephemeral key and nonce. Throws a
 * TypeError for a value JSON cannot carry unchanged or a recipient that is not P-256.
 */
export const seal = (value: unknown, recipient: Recipient): string =>
  sealWith(value, recipient, { nonce: randomBytes(NONCE_BYTES) });

/**
 * seal with a fixed ephemeral private key (32-byte scalar) and nonce, for test vectors only:
 * reusing either in production would break the encryption.
 */
export const sealDeterministicForTests = (
  value: unknown,
  recipient: Recipient,
  fixed: { readonly ephemeralPrivateKey: Buffer; readonly nonce: Buffer },
): string => {
  if (fixed.nonce.length !== NONCE_BYTES) throw new TypeError("The nonce must be 12 bytes");
  return sealWith(value, recipient, fixed);
};

const parseOrThrow = (envelope: string): Envelope => {
  const parsed = parseEnvelope(envelope);
  if (!parsed) throw new SealedValueError("malformed");
  return parsed;
};

const decrypt = (envelope: Envelope, privateKey: KeyObject | undefined): JsonValue => {
  const { keyId } = envelope;
  if (!privateKey) throw new SealedValueError("unknown-key-id", keyId);
  // A wrong key type is the keyring's bug, not the sender's, so it is not a SealedValueError.
  if (!isP256PrivateKey(privateKey))
    throw new TypeError(`The keyring's key ${keyId} is not a P-256 private key`);
  let sharedSecret: Buffer;
  try {
    // Importing rejects points off the curve, which would otherwise leak the private key.
    const ephemeral = createPublicKey({
      key: Buffer.concat([P256_SPKI_HEADER, envelope.ephemeralPublicKey]),
      format: "der",
      type: "spki",
    });
    sharedSecret = diffieHellman({ privateKey, publicKey: ephemeral });
  } catch {
    throw new SealedValueError("malformed", keyId);
  }
  let plaintext: Buffer;
  try {
    const key = deriveContentKey(sharedSecret, envelope.ephemeralPublicKey, keyId);
    const decipher = createDecipheriv("aes-256-gcm", key, envelope.nonce, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(additionalData(keyId));
    decipher.setAuthTag(envelope.tag);
    plaintext = Buffer.concat([decipher.update(envelope.ciphertext), decipher.final()]);
  } catch {
    throw new SealedValueError("authentication-failed", keyId);
  }
  try {
    // Fatal decoding: invalid UTF-8 is refused rather than patched with U+FFFD.
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(plaintext));
  } catch {
    throw new SealedValueError("malformed", keyId);
  }
};

/** Opens a sealed value; throws SealedValueError (malformed, unknown key id, authentication). */
export const openSealed = (envelope: string, keyring: Keyring): JsonValue => {
  const parsed = parseOrThrow(envelope);
  return decrypt(parsed, keyring.privateKeyFor(parsed.keyId));
};
