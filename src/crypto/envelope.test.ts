import {
  createCipheriv,
  createECDH,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateAppKeyPair, importPublicKey } from "./app-keys.ts";
import {
  isSealed,
  openSealed,
  SealedValueError,
  seal,
  sealDeterministicForTests,
} from "./envelope.ts";
import { staticKeyring } from "./keyring.ts";

const pair = generateAppKeyPair();
const privateKey = createPrivateKey({ key: pair.privateKeyPkcs8, format: "der", type: "pkcs8" });
const recipient = { keyId: pair.keyId, publicKey: pair.publicKey };
const keyring = staticKeyring({ [pair.keyId]: privateKey });

/** The failure reason of opening `envelope`, or "opened". */
const outcome = (envelope: string, ring = keyring): string => {
  try {
    openSealed(envelope, ring);
    return "opened";
  } catch (error) {
    if (error instanceof SealedValueError) return error.reason;
    throw error;
  }
};

const partsOf = (envelope: string): string[] => envelope.split(".");

/** Flips one bit of a base64url part, keeping it canonical. */
const flipBit = (part: string, byte: number): string => {
  const bytes = Buffer.from(part, "base64url");
  bytes[byte] = (bytes[byte] ?? 0) ^ 0x01;
  return bytes.toString("base64url");
};

const withPart = (envelope: string, index: number, part: string): string => {
  const parts = partsOf(envelope);
  parts[index] = part;
  return parts.join(".");
};

describe("seal and openSealed", () => {
  it.each([
    ["a string", "jane.doe@example.com"],
    ["an empty string", ""],
    ["an integer", 42],
    ["a negative fraction", -12.5],
    ["a large number", 1.7976931348623157e308],
    ["true", true],
    ["false", false],
    ["null", null],
    ["a list", ["a", 1, false, null, [2]]],
    ["an empty list", []],
    ["a nested map", { a: { b: { c: [1, { d: "e" }] } }, n: 0.1 }],
    ["an empty map", {}],
    ["unicode", "Zoë, 東京, 🎉, \u0000 and \u2028"],
  ])("round-trips %s", (_name, value) => {
    const envelope = seal(value, recipient);
    expect(isSealed(envelope)).toBe(true);
    expect(openSealed(envelope, keyring)).toEqual(value);
  });

  it("round-trips any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        // JSON.stringify writes -0 as 0, the one change JSON itself makes.
        expect(openSealed(seal(value, recipient), keyring)).toEqual(
          JSON.parse(JSON.stringify(value)),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("accepts the recipient key as a KeyObject", () => {
    const envelope = seal(
      { a: 1 },
      { keyId: pair.keyId, publicKey: importPublicKey(pair.publicKey) },
    );
    expect(openSealed(envelope, keyring)).toEqual({ a: 1 });
  });

  it("uses a fresh ephemeral key and nonce every time", () => {
    const [first, second] = [seal("same", recipient), seal("same", recipient)].map(partsOf);
    expect(first?.[2]).not.toBe(second?.[2]);
    expect(first?.[3]).not.toBe(second?.[3]);
  });

  it.each([
    ["undefined", undefined],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a bigint", 1n],
    ["a function", () => 1],
    ["a Date", new Date(0)],
    ["a Set", new Set([1])],
    ["a map with an undefined value", { a: undefined }],
    ["a sparse list", new Array(3)],
    ["a list with undefined", [1, undefined, 3]],
  ])("refuses to seal %s, which JSON would not carry unchanged", (_name, value) => {
    expect(() => seal(value, recipient)).toThrow(TypeError);
  });

  it("refuses to seal something circular", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => seal(circular, recipient)).toThrow(TypeError);
  });

  it("refuses a bad recipient", () => {
    const p384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" }).publicKey;
    const x25519 = generateKeyPairSync("x25519").publicKey;
    expect(() => seal(1, { keyId: "k.1", publicKey: pair.publicKey })).toThrow(TypeError);
    expect(() => seal(1, { keyId: "", publicKey: pair.publicKey })).toThrow(TypeError);
    // Each refused by the check that names it, not by whatever a curve's arithmetic throws.
    const published = new TypeError("The public key is not a base64url SPKI DER P-256 key");
    const spki = (key: KeyObject) =>
      key.export({ format: "der", type: "spki" }).toString("base64url");
    for (const publicKey of ["not a key", `${pair.publicKey}=`, spki(p384), spki(x25519)]) {
      expect(() => seal(1, { keyId: "k1", publicKey })).toThrow(published);
    }
    const notP256 = new TypeError("The recipient key is not a P-256 public key");
    expect(() => seal(1, { keyId: "k1", publicKey: p384 })).toThrow(notP256);
    expect(() => seal(1, { keyId: "k1", publicKey: x25519 })).toThrow(notP256);
    expect(() => seal(1, { keyId: "k1", publicKey: privateKey })).toThrow(notP256);
  });
});

describe("sealing with fixed parameters (test vectors)", () => {
  it("refuses a nonce of another length than the envelope's 12 bytes", () => {
    const fixed = { ephemeralPrivateKey: Buffer.alloc(32, 7), nonce: Buffer.alloc(12, 1) };
    expect(openSealed(sealDeterministicForTests("x", recipient, fixed), keyring)).toBe("x");
    for (const bytes of [11, 16]) {
      expect(() =>
        sealDeterministicForTests("x", recipient, { ...fixed, nonce: Buffer.alloc(bytes, 1) }),
      ).toThrow(new TypeError("The nonce must be 12 bytes"));
    }
  });
});

describe("openSealed failures", () => {
  const envelope = seal({ email: "jane.doe@example.com" }, recipient);
  const other = seal({ email: "jane.doe@example.com" }, recipient);

  it("fails authentication when the key id is changed, even to one the keyring has", () => {
    const sameKeyAnyId = { privateKeyFor: (): KeyObject => privateKey };
    expect(outcome(withPart(envelope, 1, "kother"), sameKeyAnyId)).toBe("authentication-failed");
    expect(outcome(withPart(envelope, 1, "kother"))).toBe("unknown-key-id");
  });

  it("fails when the ephemeral key is changed", () => {
    // Another valid point: the derived key differs.
    expect(outcome(withPart(envelope, 2, partsOf(other)[2] ?? ""))).toBe("authentication-failed");
    // (X, Y with a bit flipped) is off the curve: refused before any key agreement.
    expect(outcome(withPart(envelope, 2, flipBit(partsOf(envelope)[2] ?? "", 64)))).toBe(
      "malformed",
    );
    const compressedPrefix = Buffer.from(partsOf(envelope)[2] ?? "", "base64url");
    compressedPrefix[0] = 0x02;
    expect(outcome(withPart(envelope, 2, compressedPrefix.toString("base64url")))).toBe(
      "malformed",
    );
  });

  it("fails authentication when the nonce, ciphertext or tag is changed", () => {
    const [, , , nonce = "", body = ""] = partsOf(envelope);
    const bodyBytes = Buffer.from(body, "base64url").length;
    expect(outcome(withPart(envelope, 3, flipBit(nonce, 0)))).toBe("authentication-failed");
    expect(outcome(withPart(envelope, 4, flipBit(body, 0)))).toBe("authentication-failed");
    expect(outcome(withPart(envelope, 4, flipBit(body, bodyBytes - 1)))).toBe(
      "authentication-failed",
    );
    // A truncated tag.
    const truncated = Buffer.from(body, "base64url")
      .subarray(0, bodyBytes - 1)
      .toString("base64url");
    expect(outcome(withPart(envelope, 4, truncated))).toBe("authentication-failed");
  });

  it("fails authentication with the wrong private key", () => {
    const wrong = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey;
    expect(outcome(envelope, staticKeyring({ [pair.keyId]: wrong }))).toBe("authentication-failed");
  });

  it("reports an unknown key id", () => {
    const thrown = (() => {
      try {
        openSealed(envelope, staticKeyring({}));
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(SealedValueError);
    expect(thrown).toMatchObject({ reason: "unknown-key-id", keyId: pair.keyId });
  });

  it("refuses an authentic plaintext that is not UTF-8 JSON", () => {
    // Sealed by hand, as a faulty SDK might.
    const sealRaw = (plaintext: Buffer): string => {
      const ephemeral = createECDH("prime256v1");
      const point = ephemeral.generateKeys();
      const shared = ephemeral.computeSecret(
        Buffer.from(pair.publicKey, "base64url").subarray(-65),
      );
      const info = `attribution-sealed-value/v1|${pair.keyId}`;
      const key = Buffer.from(hkdfSync("sha256", shared, point, info, 32));
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      cipher.setAAD(Buffer.from(`sv1.${pair.keyId}`));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return ["sv1", pair.keyId, point, nonce, body]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    };
    expect(openSealed(sealRaw(Buffer.from('{"ok":true}')), keyring)).toEqual({ ok: true });
    expect(outcome(sealRaw(Buffer.from("{not json")))).toBe("malformed");
    expect(outcome(sealRaw(Buffer.from([0x22, 0xff, 0x22])))).toBe("malformed");
  });

  it("throws a TypeError, not a SealedValueError, when the keyring holds a wrong kind of key", () => {
    const p384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" }).privateKey;
    const publicKey = createPublicKey(privateKey);
    for (const key of [p384, publicKey]) {
      expect(() => openSealed(envelope, staticKeyring({ [pair.keyId]: key }))).toThrow(
        new TypeError(`The keyring's key ${pair.keyId} is not a P-256 private key`),
      );
    }
  });
});

describe("isSealed", () => {
  const envelope = seal("x", recipient);
  const [, keyId = "", ephemeral = "", nonce = "", body = ""] = partsOf(envelope);

  it("accepts real envelopes", () => {
    expect(isSealed(envelope)).toBe(true);
    expect(isSealed(seal({ deep: [1, 2, 3] }, recipient))).toBe(true);
  });

  it.each([
    ["a number", 1],
    ["null", null],
    ["an object", { envelope }],
    ["a plain string", "jane.doe@example.com"],
    ["the prefix alone", "sv1."],
    ["another version", envelope.replace(/^sv1/, "sv2")],
    ["an upper-case prefix", envelope.replace(/^sv1/, "SV1")],
    ["leading space", ` ${envelope}`],
    ["trailing newline", `${envelope}\n`],
    ["four parts", ["sv1", keyId, ephemeral, body].join(".")],
    ["six parts", `${envelope}.AAAA`],
    ["an empty key id", ["sv1", "", ephemeral, nonce, body].join(".")],
    ["a key id with a space", ["sv1", "k 1", ephemeral, nonce, body].join(".")],
    ["a 65-character key id", ["sv1", "k".repeat(65), ephemeral, nonce, body].join(".")],
    ["padding", ["sv1", keyId, ephemeral, nonce, `${body}==`].join(".")],
    [
      "standard base64 characters",
      // Set explicitly: a random key may hold no "-" or "_" to translate.
      ["sv1", keyId, `+/${ephemeral.slice(2)}`, nonce, body].join("."),
    ],
    [
      "a character outside base64url",
      ["sv1", keyId, ephemeral, nonce, `${body.slice(0, -1)}!`].join("."),
    ],
    [
      "a non-canonical last character",
      ["sv1", keyId, `${ephemeral.slice(0, -1)}B`, nonce, body].join("."),
    ],
    ["a short ephemeral key", ["sv1", keyId, ephemeral.slice(0, -4), nonce, body].join(".")],
    ["a long nonce", ["sv1", keyId, ephemeral, `${nonce}AAAA`, body].join(".")],
    [
      "a body no longer than the tag",
      ["sv1", keyId, ephemeral, nonce, Buffer.alloc(16).toString("base64url")].join("."),
    ],
    [
      "a compressed ephemeral key",
      [
        "sv1",
        keyId,
        Buffer.concat([Buffer.from([2]), Buffer.alloc(64)]).toString("base64url"),
        nonce,
        body,
      ].join("."),
    ],
  ])("rejects %s", (_name, value) => {
    expect(isSealed(value)).toBe(false);
  });
});

describe("opening arbitrary input", () => {
  const isOnlySealedValueError = (input: string): boolean => {
    try {
      openSealed(input, keyring);
      return false;
    } catch (error) {
      return error instanceof SealedValueError;
    }
  };
  const envelope = seal({ n: 1 }, recipient);
  const toUrl = (text: string) => text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

  it("throws only SealedValueError for any string", () => {
    fc.assert(fc.property(fc.string(), isOnlySealedValueError), { numRuns: 1000 });
    fc.assert(fc.property(fc.string({ unit: "binary" }), isOnlySealedValueError), { numRuns: 500 });
  });

  it("throws only SealedValueError for near-envelopes", () => {
    const keyIds = fc.oneof(fc.constant(pair.keyId), fc.string({ maxLength: 70 }));
    const part = fc.oneof(
      fc.base64String(),
      fc.base64String().map(toUrl),
      fc.base64String({ minLength: 88, maxLength: 88 }).map(toUrl),
    );
    fc.assert(
      fc.property(keyIds, part, part, part, (keyId, a, b, c) =>
        isOnlySealedValueError(`sv1.${keyId}.${a}.${b}.${c}`),
      ),
      { numRuns: 1000 },
    );
  });

  it("throws only SealedValueError for real envelopes with one character changed", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";
    fc.assert(
      fc.property(
        fc.nat({ max: envelope.length - 1 }),
        fc.nat({ max: alphabet.length - 1 }),
        (index, replacement) => {
          const changed =
            envelope.slice(0, index) + alphabet[replacement] + envelope.slice(index + 1);
          return changed === envelope || isOnlySealedValueError(changed);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
