import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { APPLE_KEYS, appleKey } from "./apple-keys.ts";
import {
  AAK_DEVELOPMENT,
  SKAN_1_0_UNVERIFIABLE,
  SKAN_2_0,
  SKAN_2_1,
  SKAN_2_2,
  SKAN_3_LOSS,
  SKAN_3_WIN,
  SKAN_4_COARSE,
  SKAN_4_FINE,
  VERIFIED_SKAN_SAMPLES,
} from "./apple-samples.test-support.ts";
import {
  counts,
  identifierFieldOf,
  readAdAttributionKitPostback,
  readSkadnetworkPostback,
} from "./postbacks.ts";

const read = (body: unknown) => {
  const result = readSkadnetworkPostback(body);
  if (!result.ok) throw new Error(result.problem);
  return result.postback;
};

const readAak = (body: unknown) => {
  const result = readAdAttributionKitPostback(body);
  if (!result.ok) throw new Error(result.problem);
  return result.postback;
};

/** One character of a text changed: the next one in the alphabet, or a digit for a digit. */
const changed = (text: string) =>
  `${text.slice(0, -1)}${text.at(-1) === "9" ? "8" : text.at(-1) === "1" ? "2" : "x"}`;

describe("Apple's keys", () => {
  it("load as the curves they say, each with its documentation page", async () => {
    const { createPublicKey } = await import("node:crypto");
    for (const key of APPLE_KEYS) {
      const object = createPublicKey({
        key: Buffer.from(key.spki, "base64"),
        format: "der",
        type: "spki",
      });
      const curve = object.asymmetricKeyDetails?.namedCurve;
      expect(curve, key.id).toBe(key.curve === "P-256" ? "prime256v1" : "prime192v1");
      expect(key.source).toMatch(/^https:\/\/developer\.apple\.com\/documentation\//);
    }
  });

  it("name the page that publishes each SKAdNetwork key", () => {
    expect(appleKey("skadnetwork", "skadnetwork-1")?.source).toMatch(
      /^https:\/\/developer\.apple\.com\/documentation\/storekit\/skadnetwork-2-release-notes /,
    );
    expect(appleKey("skadnetwork", "skadnetwork-2.1")?.source).toBe(
      "https://developer.apple.com/documentation/storekit/verifying-an-install-validation-postback",
    );
  });

  it("give AdAttributionKit's production key and its development keys by kid, each a key of its own", () => {
    const kids = {
      "apple-cas-identifier/0": "production",
      "apple-development-identifier/0": "development",
      "apple-development-identifier/1": "development",
    };
    const keys = Object.entries(kids).map(([kid, environment]) => {
      const key = appleKey("adattributionkit", kid);
      expect(key?.environment, kid).toBe(environment);
      return key?.spki;
    });
    expect(new Set(keys).size).toBe(3);
    expect(appleKey("adattributionkit", "apple-cas-identifier/9")).toBeUndefined();
    // SKAdNetwork's keys are not AdAttributionKit's.
    expect(appleKey("skadnetwork", "apple-cas-identifier/0")).toBeUndefined();
  });
});

describe("SKAdNetwork postbacks", () => {
  it.each(Object.entries(VERIFIED_SKAN_SAMPLES))("verifies Apple's %s example", (_name, body) => {
    const postback = read(body);
    expect(postback.verification).toEqual({
      status: "verified",
      environment: "production",
      keyId: body.version === "2.0" ? "skadnetwork-1" : "skadnetwork-2.1",
      reason: null,
    });
    expect(counts(postback)).toBe(true);
  });

  it.each(Object.entries(VERIFIED_SKAN_SAMPLES))(
    "fails Apple's %s example with one signed character changed",
    (_name, body) => {
      const tampered = { ...body, "transaction-id": changed(body["transaction-id"]) };
      const postback = read(tampered);
      expect(postback.verification.status).toBe("unverified");
      expect(counts(postback)).toBe(false);
      expect(counts(postback, { unverified: true })).toBe(true);
    },
  );

  it("leaves the conversion values out of the signature, as Apple documents", () => {
    expect(read({ ...SKAN_4_FINE, "conversion-value": 1 }).verification.status).toBe("verified");
    expect(read({ ...SKAN_4_COARSE, "coarse-conversion-value": "low" }).verification.status).toBe(
      "verified",
    );
    expect(read({ ...SKAN_4_FINE, "postback-sequence-index": 1 }).verification.status).toBe(
      "unverified",
    );
  });

  it("checks the ad network id as sent and keeps it in lower case: one network whatever its case", () => {
    const sent = read(SKAN_4_FINE);
    expect(sent.verification.status).toBe("verified");
    const upper = read({
      ...SKAN_4_FINE,
      "ad-network-id": SKAN_4_FINE["ad-network-id"].toUpperCase(),
    });
    expect(upper.adNetworkId).toBe(sent.adNetworkId);
    expect(sent.adNetworkId).toBe(SKAN_4_FINE["ad-network-id"].toLowerCase());
    // Apple signed the id as it wrote it: another case is another postback's signature.
    expect(upper.verification.status).toBe("unverified");
  });

  it("reads each version's fields into one shape", () => {
    expect(read(SKAN_4_FINE)).toMatchObject({
      kind: "skadnetwork",
      version: "4.0",
      adNetworkId: "com.example",
      sourceIdentifier: "5239",
      appStoreId: "525463029",
      transactionId: "6aafb7a5-0170-41b5-bbe4-fe71dedf1e30",
      redownload: false,
      sourceAppId: null,
      sourceDomain: "example.com",
      fidelityType: 1,
      didWin: true,
      sequenceIndex: 0,
      conversionValue: 63,
      coarseValue: null,
    });
    expect(read(SKAN_4_COARSE)).toMatchObject({ conversionValue: null, coarseValue: "high" });
    expect(read(SKAN_3_WIN)).toMatchObject({
      version: "3.0",
      sourceIdentifier: "42",
      sourceAppId: "1234567891",
      redownload: true,
      conversionValue: 20,
    });
    // One that did not win has no source app and no value: still Apple's, and no install.
    expect(read(SKAN_3_LOSS)).toMatchObject({
      version: "3.0",
      sourceIdentifier: "42",
      didWin: false,
      sourceAppId: null,
      conversionValue: null,
    });
    // Before 3.0 a postback is the winner's.
    expect(read(SKAN_2_0)).toMatchObject({ version: "2.0", didWin: true, fidelityType: null });
  });

  it("reads only the fields a version signs: one added to Apple's postback changes nothing counted", () => {
    // 3.0 signs its campaign-id and did-win, and has no source-identifier or sequence index.
    const added = read({
      ...SKAN_3_WIN,
      "source-identifier": "7777",
      "postback-sequence-index": 2,
      "source-domain": "other.example",
    });
    expect(added.verification.status).toBe("verified");
    expect(added).toMatchObject({
      sourceIdentifier: "42",
      sequenceIndex: 0,
      didWin: true,
      sourceDomain: null,
    });
    // Before 3.0 there is no did-win: only the winner is sent a postback; before 2.2, no
    // fidelity type. Added to Apple's postbacks, they leave them verified and count for nothing.
    for (const sample of [SKAN_2_0, SKAN_2_1]) {
      const more = read({ ...sample, "did-win": false, "fidelity-type": 0 });
      expect(more.verification.status).toBe("verified");
      expect(more).toMatchObject({
        didWin: true,
        fidelityType: null,
        sequenceIndex: 0,
        redownload: true,
        sourceAppId: "1234567891",
      });
    }
    const lost = read({ ...SKAN_2_2, "did-win": false });
    expect(lost.verification.status).toBe("verified");
    expect(lost).toMatchObject({ didWin: true, fidelityType: 1 });
    // From 3.0 a postback says whether it won.
    expect(read({ ...SKAN_3_WIN, "did-win": false })).toMatchObject({ didWin: false });
    // 4.0 signs a domain only in the place of an app id.
    const { "source-domain": _domain, ...withoutDomain } = SKAN_4_FINE;
    expect(read({ ...withoutDomain, "source-app-id": 1234567891, "campaign-id": 5 })).toMatchObject(
      { sourceIdentifier: SKAN_4_FINE["source-identifier"], sourceAppId: "1234567891" },
    );
    expect(read({ ...SKAN_4_FINE, "source-app-id": 1 }).sourceDomain).toBeNull();
  });

  it("refuses a source app id that is no App Store id and a source domain that is no host name", () => {
    // Either could stand in another signed field's place, `redownload`'s "true" say.
    const { "source-domain": _domain, ...withoutDomain } = SKAN_4_FINE;
    for (const body of [
      { ...withoutDomain, "source-app-id": "true" },
      { ...SKAN_4_FINE, "source-domain": "true" },
    ]) {
      const result = readSkadnetworkPostback(body);
      expect(result.ok).toBe(false);
    }
  });

  it("keeps the old 1.0 example, whose signature does not verify, as unverified", () => {
    const postback = read(SKAN_1_0_UNVERIFIABLE);
    expect(postback).toMatchObject({ version: "1.0", sourceIdentifier: "42" });
    expect(postback.verification.status).toBe("unverified");
  });

  it("keeps a postback of a version after 4.0 as unverified, read as 4.0's fields, those it lacks absent; refuses one before 1.0", () => {
    const later = read({ ...SKAN_4_FINE, version: "5.0" });
    expect(later).toMatchObject({
      version: "5.0",
      sourceIdentifier: SKAN_4_FINE["source-identifier"],
      transactionId: SKAN_4_FINE["transaction-id"],
      conversionValue: SKAN_4_FINE["conversion-value"],
    });
    expect(later.verification).toMatchObject({
      status: "unverified",
      reason: "version 5.0 signs fields not known here",
    });
    expect(read({ ...SKAN_4_FINE, version: "4.1" }).verification.status).toBe("unverified");
    // The known version with the same signature still verifies: only the later one is not.
    expect(read(SKAN_4_FINE).verification.status).toBe("verified");
    expect(readSkadnetworkPostback({ ...SKAN_4_FINE, version: "0.9" })).toEqual({
      ok: false,
      problem: "of version 0.9, which is no SKAdNetwork version",
    });
    // 4.0 itself still needs its fields; a later version lacking one is kept, read as absent.
    const { "did-win": _dropped, "fidelity-type": _also, ...lacking } = SKAN_4_FINE;
    expect(readSkadnetworkPostback({ ...lacking, version: "4.0" })).toEqual({
      ok: false,
      problem: "a version 4.0 postback without fidelity-type, did-win",
    });
    expect(read({ ...lacking, version: "5.0" })).toMatchObject({
      version: "5.0",
      transactionId: SKAN_4_FINE["transaction-id"],
      sourceIdentifier: SKAN_4_FINE["source-identifier"],
      fidelityType: null,
      verification: { status: "unverified", reason: "version 5.0 signs fields not known here" },
    });
  });

  it("names the field its campaign was read from: campaign-id before 4.0, source-identifier after", () => {
    const { version: _none, ...unversioned } = SKAN_2_0;
    expect(identifierFieldOf(read(unversioned))).toBe("campaign-id");
    expect(identifierFieldOf(read(SKAN_3_WIN))).toBe("campaign-id");
    expect(identifierFieldOf(read(SKAN_4_FINE))).toBe("source-identifier");
    // A later version is read as 4.0's fields.
    expect(identifierFieldOf(read({ ...SKAN_4_FINE, version: "5.0" }))).toBe("source-identifier");
    const aak = readAdAttributionKitPostback(AAK_DEVELOPMENT);
    if (!aak.ok) throw new Error(aak.problem);
    expect(identifierFieldOf(aak.postback)).toBe("source-identifier");
  });

  it("refuses a body that is no postback, naming what is wrong", () => {
    const problems = [
      {},
      "text",
      { ...SKAN_4_FINE, "ad-network-id": undefined },
      { ...SKAN_4_FINE, version: "four" },
      { ...SKAN_4_FINE, "did-win": undefined },
      { ...SKAN_4_FINE, "conversion-value": 64 },
      // Apple's campaign fields are a few digits: anything else is no postback of Apple's.
      { ...SKAN_4_FINE, "source-identifier": "x".repeat(50) },
      { ...SKAN_4_FINE, "source-identifier": "12345" },
      { ...SKAN_4_FINE, "source-identifier": 7 },
      { ...SKAN_3_WIN, "campaign-id": "campaign" },
    ].map((body) => readSkadnetworkPostback(body));
    for (const problem of problems) expect(problem.ok).toBe(false);
    expect(problems[3]).toEqual({
      ok: false,
      problem: "of version four, which is no SKAdNetwork version",
    });
    expect(problems[4]).toEqual({ ok: false, problem: "a version 4.0 postback without did-win" });
  });
  it("refuses a copy that moves signed fields into its transaction id, which would verify", () => {
    const { redownload: _moved, ...rest } = SKAN_4_FINE;
    const copy = { ...rest, "transaction-id": `${SKAN_4_FINE["transaction-id"]}\u2063false` };
    expect(readSkadnetworkPostback(copy)).toEqual({
      ok: false,
      problem: "a postback whose signed field holds U+2063, which separates Apple's fields",
    });
    const { "source-app-id": _source, ...rest3 } = SKAN_3_WIN;
    expect(
      readSkadnetworkPostback({
        ...rest3,
        "ad-network-id": `${SKAN_3_WIN["ad-network-id"]}\u2063x`,
      }).ok,
    ).toBe(false);
  });
});

describe("AdAttributionKit postbacks", () => {
  it("verifies Apple's example with the development key its kid names", () => {
    const postback = readAak(AAK_DEVELOPMENT);
    expect(postback).toMatchObject({
      kind: "adattributionkit",
      version: "aak",
      adNetworkId: "development.adattributionkit",
      sourceIdentifier: "1234",
      appStoreId: "10738027756",
      transactionId: "85546EB7-FD39-44BC-8990-C98A4AC36A49",
      didWin: true,
      sequenceIndex: 0,
      conversionValue: 24,
      conversionType: "re-engagement",
      countryCode: "US",
      fidelityType: 1,
    });
    expect(postback.verification).toEqual({
      status: "verified",
      environment: "development",
      keyId: "apple-development-identifier/1",
      reason: null,
    });
    // A test's postback counts only when the owner asks for them.
    expect(counts(postback)).toBe(false);
    expect(counts(postback, { development: true })).toBe(true);
  });

  it("fails the example with one character of its payload changed", () => {
    const [header, payload, signature] = AAK_DEVELOPMENT["jws-string"].split(".");
    const decoded = Buffer.from(payload ?? "", "base64url").toString("utf8");
    const tampered = Buffer.from(decoded.replace('"1234"', '"1235"')).toString("base64url");
    const postback = readAak({
      ...AAK_DEVELOPMENT,
      "jws-string": `${header}.${tampered}.${signature}`,
    });
    expect(postback.sourceIdentifier).toBe("1235");
    expect(postback.verification.status).toBe("unverified");
  });

  it("tells the keys apart by kid: another key's signature does not verify", () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const [, payload] = AAK_DEVELOPMENT["jws-string"].split(".");
    for (const kid of ["apple-cas-identifier/0", "apple-development-identifier/0", "someone/0"]) {
      const header = Buffer.from(JSON.stringify({ kid, alg: "ES256" })).toString("base64url");
      const signature = sign("sha256", Buffer.from(`${header}.${payload}`), {
        key: privateKey,
        dsaEncoding: "ieee-p1363",
      }).toString("base64url");
      const postback = readAak({ "jws-string": `${header}.${payload}.${signature}` });
      expect(postback.verification.status, kid).toBe("unverified");
    }
  });

  /**
   * Apple's example with its payload's fields changed (so no longer Apple's signature), its
   * header's too, and the body's unsigned fields: what each field is read as.
   */
  const edited = (
    payloadFields: Record<string, unknown>,
    bodyFields: Record<string, unknown> = {},
    headerFields: Record<string, unknown> = {},
  ) => {
    const [header = "", payload = "", signature = ""] = AAK_DEVELOPMENT["jws-string"].split(".");
    const merged = (part: string, fields: Record<string, unknown>) =>
      Buffer.from(
        JSON.stringify({
          ...JSON.parse(Buffer.from(part, "base64url").toString("utf8")),
          ...fields,
        }),
      ).toString("base64url");
    return readAak({
      ...AAK_DEVELOPMENT,
      ...bodyFields,
      "jws-string": `${merged(header, headerFields)}.${merged(payload, payloadFields)}.${signature}`,
    });
  };

  it("reads each payload field where Apple puts it", () => {
    expect(edited({ "conversion-type": "redownload" })).toMatchObject({
      redownload: true,
      conversionType: "redownload",
    });
    expect(edited({ "conversion-type": "download" }).redownload).toBe(false);
    expect(edited({ "publisher-item-identifier": 1234567891 }).sourceAppId).toBe("1234567891");
    expect(edited({ "source-domain": "example.com" }).sourceDomain).toBe("example.com");
    expect(edited({}).sourceDomain).toBeNull();
    // The signed country wins over the body's unsigned one.
    expect(edited({ "country-code": "DE" }).countryCode).toBe("DE");
    expect(edited({}, { "ad-interaction-type": "view" }).fidelityType).toBe(0);
    const { "ad-interaction-type": _type, "country-code": _country, ...bare } = AAK_DEVELOPMENT;
    expect(readAak(bare)).toMatchObject({ fidelityType: null, countryCode: null });
    expect(
      edited({}, { "conversion-value": undefined, "coarse-conversion-value": "medium" }),
    ).toMatchObject({ conversionValue: null, coarseValue: "medium" });
    expect(edited({ "postback-sequence-index": 2, "did-win": false })).toMatchObject({
      sequenceIndex: 2,
      didWin: false,
    });
  });

  it("keeps a JWS of another algorithm or an unknown kid as unverified, saying why", () => {
    expect(edited({}, {}, { alg: "HS256" }).verification).toEqual({
      status: "unverified",
      environment: null,
      keyId: null,
      reason: "alg HS256 is not ES256",
    });
    expect(edited({}, {}, { kid: "someone/1" }).verification.reason).toBe(
      "kid someone/1 is not one of Apple's keys",
    );
    expect(edited({ "source-identifier": "1235" }).verification.reason).toBe(
      "Apple's signature does not match the JWS",
    );
  });

  it("refuses a body that is no postback, naming what is wrong", () => {
    const problem = (body: unknown) => {
      const result = readAdAttributionKitPostback(body);
      return result.ok ? null : result.problem;
    };
    expect(problem({})).toMatch(/^not an AdAttributionKit postback: jws-string /);
    expect(problem({ "jws-string": "a.b" })).toBe("a postback whose jws-string is no compact JWS");
    expect(problem({ "jws-string": "a.b.c.d" })).toBe(
      "a postback whose jws-string is no compact JWS",
    );
    expect(problem({ "jws-string": "e30.e30.e30" })).toBe(
      "a postback whose jws-string has no JWS header with a kid",
    );
    const header = Buffer.from(JSON.stringify({ kid: "k", alg: "ES256" })).toString("base64url");
    expect(problem({ "jws-string": `${header}.e30.e30` })).toMatch(
      /^not an AdAttributionKit postback's payload: /,
    );
    // Half a surrogate pair in a signed field: no lake column could carry it.
    const [head = "", payload = "", signature = ""] = AAK_DEVELOPMENT["jws-string"].split(".");
    const fields = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const halfPair = Buffer.from(
      JSON.stringify({ ...fields, "ad-network-identifier": "net\ud800" }),
    ).toString("base64url");
    expect(problem({ ...AAK_DEVELOPMENT, "jws-string": `${head}.${halfPair}.${signature}` })).toBe(
      "not Unicode text: a field holds a lone surrogate",
    );
  });
});
