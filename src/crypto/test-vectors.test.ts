import { createPrivateKey, createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openSealed, sealDeterministicForTests } from "./envelope.ts";
import { staticKeyring } from "./keyring.ts";
import { buildTestVectors, TEST_VECTORS_URL, type TestVectorsFile } from "./test-vectors.ts";

// Parsed, not compared as text, so formatting the file (Biome) does not break the contract.
const file: TestVectorsFile = JSON.parse(readFileSync(TEST_VECTORS_URL, "utf8"));

describe("spec/encryption-test-vectors.json", () => {
  it("is what the code builds (regenerate with `npx tsx src/crypto/test-vectors.ts`)", () => {
    expect(file).toEqual(buildTestVectors());
  });

  it("has at least six vectors", () => {
    expect(file.vectors.length).toBeGreaterThanOrEqual(6);
  });

  const privateKey = createPrivateKey({
    key: Buffer.from(file.recipient.privateKeyPkcs8, "base64url"),
    format: "der",
    type: "pkcs8",
  });

  it("gives the recipient key consistently in both forms", () => {
    expect(privateKey.export({ format: "jwk" }).d).toBe(
      Buffer.from(file.recipient.privateKeyHex, "hex").toString("base64url"),
    );
    const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
    expect(spki.toString("base64url")).toBe(file.recipient.publicKeySpki);
    expect(spki.subarray(-65).toString("hex")).toBe(file.recipient.publicKeyHex);
  });

  describe.each(file.vectors.map((vector) => [vector.name, vector] as const))(
    "%s",
    (_name, vector) => {
      it("opens with the file's private key to the value", () => {
        const keyring = staticKeyring({ [file.recipient.keyId]: privateKey });
        expect(openSealed(vector.envelope, keyring)).toEqual(vector.value);
        expect(Buffer.from(vector.plaintext, "utf8").toString("hex")).toBe(vector.plaintextHex);
      });

      it("is reproduced by sealing with its ephemeral key and nonce", () => {
        const envelope = sealDeterministicForTests(
          vector.value,
          { keyId: file.recipient.keyId, publicKey: file.recipient.publicKeySpki },
          {
            ephemeralPrivateKey: Buffer.from(vector.ephemeralPrivateKeyHex, "hex"),
            nonce: Buffer.from(vector.nonceHex, "hex"),
          },
        );
        expect(envelope).toBe(vector.envelope);
      });
    },
  );
});
