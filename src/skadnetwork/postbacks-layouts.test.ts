/**
 * Each version's signed fields in the order Apple's pages list them, with and without the
 * optional ones: the layouts Apple's signed examples do not show (an app ad's 4.0 postback, a
 * later window's, a 2.x postback without `source-app-id`). Apple signs with keys nobody else
 * holds, so here the key table holds keys made for the test under SKAdNetwork's key ids, and
 * each body is signed over the text built from Apple's lists, not from the code under test.
 */
import { type KeyObject, sign } from "node:crypto";
import { describe, expect, it, vi } from "vitest";

const keys = vi.hoisted(() => {
  const { generateKeyPairSync } = require("node:crypto") as typeof import("node:crypto");
  const made = (id: string, namedCurve: string) => {
    const pair = generateKeyPairSync("ec", { namedCurve });
    return {
      id,
      privateKey: pair.privateKey,
      spki: pair.publicKey.export({ format: "der", type: "spki" }).toString("base64"),
    };
  };
  return { p192: made("skadnetwork-1", "prime192v1"), p256: made("skadnetwork-2.1", "P-256") };
});

vi.mock("./apple-keys.ts", () => {
  const table = [keys.p192, keys.p256].map(({ id, spki }) => ({
    id,
    framework: "skadnetwork",
    curve: id === "skadnetwork-1" ? "P-192" : "P-256",
    spki,
    environment: "production",
    source: "made for the test",
  }));
  return {
    APPLE_KEYS: table,
    appleKey: (framework: string, id: string) =>
      table.find((key) => key.framework === framework && key.id === id),
  };
});

const { readSkadnetworkPostback } = await import("./postbacks.ts");

/**
 * Apple's order of the signed fields, by version
 * (https://developer.apple.com/documentation/storekit/verifying-an-install-validation-postback,
 * combining-parameters-for-skadnetwork-3-postbacks,
 * combining-parameters-for-previous-skadnetwork-postback-versions). A source is `source-app-id`,
 * or from 4.0 `source-domain` in its place; either is left out when the postback has none.
 */
const ORDER: Record<string, readonly string[]> = {
  "2.0": [
    "version",
    "ad-network-id",
    "campaign-id",
    "app-id",
    "transaction-id",
    "redownload",
    "source",
  ],
  "2.2": [
    "version",
    "ad-network-id",
    "campaign-id",
    "app-id",
    "transaction-id",
    "redownload",
    "source",
    "fidelity-type",
  ],
  "3.0": [
    "version",
    "ad-network-id",
    "campaign-id",
    "app-id",
    "transaction-id",
    "redownload",
    "source",
    "fidelity-type",
    "did-win",
  ],
  "4.0": [
    "version",
    "ad-network-id",
    "source-identifier",
    "app-id",
    "transaction-id",
    "redownload",
    "source",
    "fidelity-type",
    "did-win",
    "postback-sequence-index",
  ],
};
ORDER["2.1"] = ORDER["2.0"] ?? [];

const signed = (body: Record<string, unknown>, privateKey: KeyObject) => {
  const order = ORDER[String(body.version)] ?? [];
  const text = order
    .map((name) =>
      name === "source" ? (body["source-app-id"] ?? body["source-domain"]) : body[name],
    )
    .filter((value) => value !== undefined)
    .map(String)
    .join("\u2063");
  return {
    ...body,
    "attribution-signature": sign("sha256", Buffer.from(text, "utf8"), privateKey).toString(
      "base64",
    ),
  };
};

const base = {
  "ad-network-id": "example123.skadnetwork",
  "app-id": 525463029,
  "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
  redownload: false,
};

const LAYOUTS: [string, Record<string, unknown>][] = [
  [
    "2.0 with a source app",
    { ...base, version: "2.0", "campaign-id": 42, "source-app-id": 1234567891 },
  ],
  ["2.0 without one", { ...base, version: "2.0", "campaign-id": 42 }],
  ["2.1 without a source app", { ...base, version: "2.1", "campaign-id": 42 }],
  ["2.2 without a source app", { ...base, version: "2.2", "campaign-id": 42, "fidelity-type": 0 }],
  [
    "3.0 with a source app",
    {
      ...base,
      version: "3.0",
      "campaign-id": 42,
      "source-app-id": 1,
      "fidelity-type": 1,
      "did-win": true,
    },
  ],
  [
    "4.0 of an app's ad, with its source app",
    {
      ...base,
      version: "4.0",
      "source-identifier": "5239",
      "source-app-id": 1234567891,
      "fidelity-type": 1,
      "did-win": true,
      "postback-sequence-index": 0,
      "conversion-value": 63,
    },
  ],
  [
    "4.0 of a later window: two digits, a coarse value, no source",
    {
      ...base,
      version: "4.0",
      "source-identifier": "39",
      "fidelity-type": 0,
      "did-win": true,
      "postback-sequence-index": 2,
      "coarse-conversion-value": "medium",
    },
  ],
];

describe("SKAdNetwork's signed fields, each version's layout", () => {
  it.each(LAYOUTS)("verify %s with the version's key", (_name, body) => {
    const key = body.version === "2.0" ? keys.p192 : keys.p256;
    const read = readSkadnetworkPostback(signed(body, key.privateKey));
    if (!read.ok) throw new Error(read.problem);
    expect(read.postback.verification).toMatchObject({ status: "verified", keyId: key.id });
  });

  it.each(LAYOUTS)("fail %s signed with the other version's key", (_name, body) => {
    const key = body.version === "2.0" ? keys.p256 : keys.p192;
    const read = readSkadnetworkPostback(signed(body, key.privateKey));
    if (!read.ok) throw new Error(read.problem);
    expect(read.postback.verification.status).toBe("unverified");
  });
});
