import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  decodeBase64url,
  generateAppKeyPair,
  importPrivateKey,
  importPublicKey,
} from "./app-keys.ts";

describe("an app's key pair", () => {
  const pair = generateAppKeyPair();

  it("imports as the P-256 keys it was made as", () => {
    expect(importPublicKey(pair.publicKey).asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    expect(importPrivateKey(pair.privateKeyPkcs8).type).toBe("private");
  });

  it("refuses a private key of another curve or kind, or bytes that are none, without echoing them", () => {
    const refused = new TypeError("The private key is not a PKCS#8 P-256 key");
    const pkcs8 = (type: "ec" | "ed25519" | "rsa") =>
      (type === "ec"
        ? generateKeyPairSync("ec", { namedCurve: "secp384r1" })
        : type === "rsa"
          ? generateKeyPairSync("rsa", { modulusLength: 1024 })
          : generateKeyPairSync("ed25519")
      ).privateKey.export({ format: "der", type: "pkcs8" });
    for (const bytes of [pkcs8("ec"), pkcs8("ed25519"), pkcs8("rsa"), Buffer.from("not a key")]) {
      expect(() => importPrivateKey(bytes)).toThrow(refused);
    }
  });

  it("reads base64url strictly: no padding, no other alphabet, no stray bits", () => {
    expect(decodeBase64url("AQID")).toEqual(Buffer.from([1, 2, 3]));
    expect(decodeBase64url("-_8")).toEqual(Buffer.from([0xfb, 0xff]));
    expect(decodeBase64url("")).toEqual(Buffer.alloc(0));
    for (const text of ["AQI=", "AQ+/", "AQ ID", "AQJ", "A"]) {
      expect(decodeBase64url(text), text).toBeUndefined();
    }
  });
});
