/**
 * AdAttributionKit's key is the one its JWS's `kid` names, and that key's environment is the
 * postback's. Apple signs with keys nobody else holds, so here the key table holds keys made
 * for the test, under Apple's kids: each signs a payload, and only the key named verifies it.
 */
import { type KeyObject, sign } from "node:crypto";
import { describe, expect, it, vi } from "vitest";

const keys = vi.hoisted(() => {
  const { generateKeyPairSync } = require("node:crypto") as typeof import("node:crypto");
  const made = (id: string, environment: "production" | "development") => {
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    return {
      id,
      environment,
      privateKey: pair.privateKey,
      spki: pair.publicKey.export({ format: "der", type: "spki" }).toString("base64"),
    };
  };
  return [
    made("apple-cas-identifier/0", "production"),
    made("apple-development-identifier/0", "development"),
    made("apple-development-identifier/1", "development"),
  ];
});

vi.mock("./apple-keys.ts", () => {
  const table = keys.map(({ id, environment, spki }) => ({
    id,
    framework: "adattributionkit",
    curve: "P-256",
    spki,
    environment,
    source: "made for the test",
  }));
  return {
    APPLE_KEYS: table,
    appleKey: (framework: string, id: string) =>
      table.find((key) => key.framework === framework && key.id === id),
  };
});

const { readAdAttributionKitPostback } = await import("./postbacks.ts");

const PAYLOAD = Buffer.from(
  JSON.stringify({
    "ad-network-identifier": "example.adattributionkit",
    "source-identifier": "1234",
    "advertised-item-identifier": 525463029,
    "postback-identifier": "85546EB7-FD39-44BC-8990-C98A4AC36A49",
    "did-win": true,
    "postback-sequence-index": 0,
  }),
).toString("base64url");

const jws = (kid: string, privateKey: KeyObject) => {
  const header = Buffer.from(JSON.stringify({ kid, alg: "ES256" })).toString("base64url");
  const signature = sign("sha256", Buffer.from(`${header}.${PAYLOAD}`), {
    key: privateKey,
    dsaEncoding: "ieee-p1363",
  }).toString("base64url");
  return { "jws-string": `${header}.${PAYLOAD}.${signature}` };
};

describe("AdAttributionKit's keys, chosen by kid", () => {
  it("verifies with the key the kid names, in that key's environment, and with no other", () => {
    for (const signer of keys) {
      for (const named of keys) {
        const read = readAdAttributionKitPostback(jws(named.id, signer.privateKey));
        if (!read.ok) throw new Error(read.problem);
        const expected =
          signer === named
            ? { status: "verified", environment: named.environment, keyId: named.id }
            : { status: "unverified", environment: null, keyId: null };
        expect(read.postback.verification, `signed by ${signer.id}, named ${named.id}`).toEqual(
          expect.objectContaining(expected),
        );
      }
    }
  });

  it("counts a kid Apple never published as unverified, whoever signed", () => {
    const first = keys[0];
    if (!first) throw new Error("no key");
    const read = readAdAttributionKitPostback(jws("apple-cas-identifier/9", first.privateKey));
    expect(read.ok && read.postback.verification.reason).toBe(
      "kid apple-cas-identifier/9 is not one of Apple's keys",
    );
  });
});
