/**
 * Builds spec/encryption-test-vectors.json, the sealed-value contract for SDK authors. Every
 * key and nonce is derived from a fixed label, so the file is reproducible and a test checks
 * it against this code. The intermediate values are computed step by step with plain
 * node:crypto, apart from seal, and checked against the envelope seal produced.
 *
 * Regenerate with `npx tsx src/crypto/test-vectors.ts`, then `npx biome format --write spec`.
 */
import {
  createCipheriv,
  createECDH,
  createHash,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
} from "node:crypto";
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { HKDF_INFO_PREFIX, SEALED_VERSION, sealDeterministicForTests } from "./envelope.ts";
import type { JsonValue } from "./json-value.ts";

export const TEST_VECTORS_URL = new URL("../../spec/encryption-test-vectors.json", import.meta.url);

export interface TestVector {
  readonly name: string;
  readonly value: JsonValue;
  readonly plaintext: string;
  readonly plaintextHex: string;
  readonly ephemeralPrivateKeyHex: string;
  readonly ephemeralPublicKeyHex: string;
  readonly nonceHex: string;
  readonly sharedSecretHex: string;
  readonly hkdfInfo: string;
  readonly derivedKeyHex: string;
  readonly aad: string;
  readonly ciphertextHex: string;
  readonly tagHex: string;
  readonly envelope: string;
}

export interface TestVectorsFile {
  readonly description: readonly string[];
  readonly format: string;
  readonly algorithm: Readonly<Record<string, string>>;
  readonly recipient: {
    readonly keyId: string;
    readonly privateKeyPkcs8: string;
    readonly privateKeyHex: string;
    readonly publicKeySpki: string;
    readonly publicKeyHex: string;
  };
  readonly vectors: readonly TestVector[];
}

const DESCRIPTION = [
  "Sealed values: how an SDK encrypts a parameter value on the device so only the backend can open it.",
  "The remote configuration gives the app's key id (keyId) and public key (publicKey: base64url, no padding, of the P-256 SubjectPublicKeyInfo DER, 91 bytes; its last 65 bytes are the uncompressed point).",
  "To seal a value:",
  "1. plaintext = the UTF-8 bytes of the value's JSON text (RFC 8259). Strings, finite numbers, booleans, null, lists and string-keyed maps round-trip. The backend parses any valid JSON text, so an SDK's own number or whitespace formatting is fine; the vectors fix the exact plaintext bytes so they can be reproduced.",
  "2. Generate a fresh ephemeral P-256 key pair for every value. E = its public key, uncompressed: 0x04 || X || Y, 65 bytes.",
  "3. Z = ECDH(ephemeral private key, app public key): the 32-byte big-endian x-coordinate of the shared point, what every standard ECDH API returns.",
  '4. K = HKDF-SHA256 (RFC 5869) with IKM = Z, salt = E (all 65 bytes), info = UTF-8 of "attribution-sealed-value/v1|" + keyId, length 32 bytes.',
  "5. N = 12 random bytes, fresh for every value.",
  '6. AAD = ASCII of "sv1." + keyId.',
  "7. C || T = AES-256-GCM encryption of plaintext with key K, nonce N and AAD; T is the 16-byte tag, appended to the ciphertext C (the layout of Java's Cipher and WebCrypto output).",
  '8. envelope = "sv1." + keyId + "." + b64url(E) + "." + b64url(N) + "." + b64url(C || T), where b64url is RFC 4648 section 5 base64url without padding. The envelope replaces the value as a JSON string.',
  "A key id is 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'. The backend rejects padding, other alphabets and non-canonical base64url.",
  "To check an SDK with these vectors: set the ephemeral private key (ephemeralPrivateKeyHex, a 32-byte big-endian scalar) and the nonce (nonceHex), seal plaintextHex for the recipient, and compare with envelope. If it differs, compare ephemeralPublicKeyHex, sharedSecretHex, derivedKeyHex, ciphertextHex and tagHex in that order to find the step. Never fix the ephemeral key or nonce outside tests.",
  "recipient.privateKeyPkcs8 (base64url PKCS#8 DER) and recipient.privateKeyHex (the raw scalar) are published test keys, for opening the envelopes in a test; never use them for an app.",
];

/** 32 bytes of SHA-256 of a label: fixed, documented, and a valid P-256 scalar for these labels. */
const fixedBytes = (label: string, bytes: number): Buffer =>
  createHash("sha256")
    .update(`attribution sealed value test vectors: ${label}`)
    .digest()
    .subarray(0, bytes);

const INPUTS: readonly { readonly name: string; readonly value: JsonValue }[] = [
  {
    name: "string (an email, as the Kotlin SDK seals for matching)",
    value: "jane.doe@example.com",
  },
  { name: "number with a fraction", value: -12.5 },
  { name: "integer", value: 1700000000 },
  { name: "boolean", value: false },
  { name: "empty string", value: "" },
  { name: "list with mixed items and a null", value: ["gold", 3, true, null, 0.25] },
  {
    name: "nested map",
    value: { tier: "gold", level: 12, flags: { beta: true, tags: ["a", "b"] }, score: 99.5 },
  },
  { name: "unicode string (accents, CJK, emoji beyond the BMP)", value: "Zoë, 東京, 🎉" },
];

const RECIPIENT_KEY_ID = "k5eadc0de00000001";

export const buildTestVectors = (): TestVectorsFile => {
  const recipientEcdh = createECDH("prime256v1");
  recipientEcdh.setPrivateKey(fixedBytes("recipient private key", 32));
  const recipientPoint = recipientEcdh.getPublicKey(null, "uncompressed");
  const recipientKey = createPrivateKey({
    key: {
      kty: "EC",
      crv: "P-256",
      d: recipientEcdh.getPrivateKey().toString("base64url"),
      x: recipientPoint.subarray(1, 33).toString("base64url"),
      y: recipientPoint.subarray(33).toString("base64url"),
    },
    format: "jwk",
  });
  const publicKeySpki = createPublicKey(recipientKey)
    .export({ format: "der", type: "spki" })
    .toString("base64url");
  const recipient = { keyId: RECIPIENT_KEY_ID, publicKey: publicKeySpki };

  const vectors = INPUTS.map(({ name, value }, index): TestVector => {
    const ephemeralPrivateKey = fixedBytes(`ephemeral private key ${index}`, 32);
    const nonce = fixedBytes(`nonce ${index}`, 12);
    const plaintext = JSON.stringify(value);

    const ephemeral = createECDH("prime256v1");
    ephemeral.setPrivateKey(ephemeralPrivateKey);
    const ephemeralPublicKey = ephemeral.getPublicKey(null, "uncompressed");
    const sharedSecret = ephemeral.computeSecret(recipientPoint);
    const hkdfInfo = `${HKDF_INFO_PREFIX}${RECIPIENT_KEY_ID}`;
    const derivedKey = Buffer.from(
      hkdfSync("sha256", sharedSecret, ephemeralPublicKey, hkdfInfo, 32),
    );
    const aad = `${SEALED_VERSION}.${RECIPIENT_KEY_ID}`;
    const cipher = createCipheriv("aes-256-gcm", derivedKey, nonce, { authTagLength: 16 });
    cipher.setAAD(Buffer.from(aad, "ascii"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();

    const envelope = sealDeterministicForTests(value, recipient, { ephemeralPrivateKey, nonce });
    const expected = [aad, ephemeralPublicKey, nonce, Buffer.concat([ciphertext, tag])]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
    if (envelope !== expected) throw new Error(`Vector ${index}: seal disagrees with the steps`);

    return {
      name,
      value,
      plaintext,
      plaintextHex: Buffer.from(plaintext, "utf8").toString("hex"),
      ephemeralPrivateKeyHex: ephemeralPrivateKey.toString("hex"),
      ephemeralPublicKeyHex: ephemeralPublicKey.toString("hex"),
      nonceHex: nonce.toString("hex"),
      sharedSecretHex: sharedSecret.toString("hex"),
      hkdfInfo,
      derivedKeyHex: derivedKey.toString("hex"),
      aad,
      ciphertextHex: ciphertext.toString("hex"),
      tagHex: tag.toString("hex"),
      envelope,
    };
  });

  return {
    description: DESCRIPTION,
    format:
      "sv1.<keyId>.<b64url(ephemeral public key, 65 bytes)>.<b64url(nonce, 12 bytes)>.<b64url(ciphertext || tag)>",
    algorithm: {
      curve: "P-256 (secp256r1, prime256v1)",
      keyAgreement: "ECDH, shared secret = 32-byte x-coordinate",
      kdf: 'HKDF-SHA256, salt = ephemeral public key (65 bytes, uncompressed), info = "attribution-sealed-value/v1|" + keyId, 32 bytes',
      aead: "AES-256-GCM, 12-byte nonce, 16-byte tag appended to the ciphertext",
      aad: 'ASCII of "sv1." + keyId',
      plaintext: "UTF-8 JSON text of the value",
      encoding: "base64url without padding (RFC 4648 section 5)",
    },
    recipient: {
      keyId: RECIPIENT_KEY_ID,
      privateKeyPkcs8: recipientKey.export({ format: "der", type: "pkcs8" }).toString("base64url"),
      privateKeyHex: recipientEcdh.getPrivateKey().toString("hex"),
      publicKeySpki,
      publicKeyHex: recipientPoint.toString("hex"),
    },
    vectors,
  };
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(TEST_VECTORS_URL, `${JSON.stringify(buildTestVectors(), null, 2)}\n`);
  console.log(`Wrote ${TEST_VECTORS_URL.pathname}`);
}
