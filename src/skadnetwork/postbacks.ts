/**
 * The postbacks Apple's devices send, read and verified: SKAdNetwork's (versions 1.0 to 4.0),
 * signed with ECDSA and SHA-256 over the fields Apple lists for each version joined by U+2063,
 * and AdAttributionKit's, a JWS signed with ES256 whose `kid` names the key. Conversion values
 * are never signed, as Apple documents: they are read beside what is.
 *
 * A body that is not a postback is refused with why (the endpoint answers 400 and keeps
 * nothing); a postback whose signature does not verify is read all the same, as unverified, so
 * it is kept and can be looked at, but never counted.
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import * as z from "zod";
import type {
  CoarseValue,
  IdentifierField,
  PostbackKind,
  ReceivedPostback,
  Verification,
} from "../ports/apple-postbacks.ts";
import { type AppleKey, appleKey } from "./apple-keys.ts";

/** AdAttributionKit's `conversion-type` of an ad that brought a user back to the installed app. */
export const REENGAGEMENT = "re-engagement";

export const COARSE_VALUES = ["low", "medium", "high"] as const satisfies readonly CoarseValue[];

export type { CoarseValue, IdentifierField, PostbackKind, ReceivedPostback, Verification };

export type ReadPostback =
  | { readonly ok: true; readonly postback: ReceivedPostback }
  | { readonly ok: false; readonly problem: string };

/** U+2063, INVISIBLE SEPARATOR: what Apple joins the signed fields with. */
export const SEPARATOR = "\u2063";

const keyObjects = new Map<string, KeyObject>();
const keyObjectOf = (key: AppleKey): KeyObject => {
  let object = keyObjects.get(key.id);
  if (!object) {
    object = createPublicKey({ key: Buffer.from(key.spki, "base64"), format: "der", type: "spki" });
    keyObjects.set(key.id, object);
  }
  return object;
};

const idText = z.union([z.string().min(1).max(200), z.number().int().nonnegative()]);
/**
 * Apple's campaign fields are small numbers: `source-identifier` 2 to 4 digits (4.0), and
 * `campaign-id` 1 to 100 before it. Bounding them keeps a forged body from growing a report's
 * campaign rows with text of its own.
 */
const digits = (min: number, max: number) =>
  z.union([
    z.string().regex(new RegExp(`^\\d{${min},${max}}$`), `must be ${min} to ${max} digits`),
    // As a number it has lost any leading zero: at most `max` digits, and not below `min`'s.
    z
      .number()
      .int()
      .min(min > 1 ? 10 ** (min - 1) : 0)
      .max(10 ** max - 1),
  ]);
const flag = z.union([z.boolean(), z.literal(0), z.literal(1)]);
const asText = (value: string | number | undefined | null): string | null =>
  value === undefined || value === null ? null : String(value);
const asFlag = (value: boolean | 0 | 1 | undefined): boolean => value === true || value === 1;

const unsigned = {
  "conversion-value": z.number().int().min(0).max(63).optional(),
  "coarse-conversion-value": z.enum(COARSE_VALUES).optional(),
  "country-code": z.string().max(8).optional(),
};

/** A DNS host name of two labels or more (`example.com`, `xn--bcher-kva.example`). */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/** Every field a version 1.0 to 4.0 postback may carry; which are there depends on the version. */
const skanSchema = z.object({
  version: z.string().max(8).optional(),
  "ad-network-id": z.string().min(1).max(200),
  "campaign-id": digits(1, 3).optional(),
  "source-identifier": digits(2, 4).optional(),
  "app-id": idText,
  "transaction-id": z.string().min(1).max(200),
  redownload: flag.optional(),
  // An App Store id, and a web site's host name: no other text can stand in a signed field's
  // place (a `"true"` moved from `redownload` into it would sign the same).
  "source-app-id": z
    .union([z.string().regex(/^\d{1,20}$/, "must be an App Store id"), z.number().int().min(0)])
    .optional(),
  "source-domain": z.string().max(253).regex(HOST_NAME, "must be a host name").optional(),
  // 0 a view, 1 a click; the lake's column is a small integer.
  "fidelity-type": z.number().int().min(0).max(255).optional(),
  "did-win": z.boolean().optional(),
  "postback-sequence-index": z.number().int().min(0).max(2).optional(),
  "attribution-signature": z.string().min(1).max(512),
  ...unsigned,
});
type SkanBody = z.output<typeof skanSchema>;

/** The signed fields of each version, in Apple's order; an absent optional one is left out. */
const signedFields = (version: string, body: SkanBody): (string | null)[] | null => {
  const text = (name: keyof SkanBody) => asText(body[name] as string | number | undefined);
  const bool = (name: "redownload" | "did-win") =>
    body[name] === undefined ? null : String(asFlag(body[name]));
  const source = () => text("source-app-id");
  // Each version signs its predecessor's fields and a few more; 4.0 names the campaign anew.
  const v2 = [
    version,
    text("ad-network-id"),
    text("campaign-id"),
    text("app-id"),
    text("transaction-id"),
    bool("redownload"),
    source(),
  ];
  const v22 = [...v2, text("fidelity-type")];
  switch (version) {
    case "1.0":
      return [text("ad-network-id"), text("campaign-id"), text("app-id"), text("transaction-id")];
    case "2.0":
    case "2.1":
      return v2;
    case "2.2":
      return v22;
    case "3.0":
      return [...v22, bool("did-win")];
    case "4.0":
      return [
        version,
        text("ad-network-id"),
        text("source-identifier"),
        text("app-id"),
        text("transaction-id"),
        bool("redownload"),
        source() ?? text("source-domain"),
        text("fidelity-type"),
        bool("did-win"),
        text("postback-sequence-index"),
      ];
    default:
      return null;
  }
};

/**
 * What a postback is counted by, each field read only where its version signs it: a field the
 * version does not sign (a `source-identifier` beside 3.0's `campaign-id`, a `did-win` before
 * 3.0, a `source-domain` beside 4.0's `source-app-id`) is not read, so that a copy of Apple's
 * postback with one added, which still verifies, counts as Apple signed it.
 */
const countedFields = (version: string, skan: SkanBody) => {
  const at = versionNumber(version) ?? 10;
  return {
    sourceIdentifier: asText(at >= 40 ? skan["source-identifier"] : skan["campaign-id"]) ?? "",
    redownload: at >= 20 && asFlag(skan.redownload),
    sourceAppId: at >= 20 ? asText(skan["source-app-id"]) : null,
    // 4.0 signs the domain in the place of an app id, when there is none.
    sourceDomain:
      at >= 40 && skan["source-app-id"] === undefined ? (skan["source-domain"] ?? null) : null,
    fidelityType: at >= 22 ? (skan["fidelity-type"] ?? null) : null,
    // Before 3.0 only the winner is sent a postback.
    didWin: at >= 30 ? (skan["did-win"] ?? true) : true,
    sequenceIndex: at >= 40 ? (skan["postback-sequence-index"] ?? 0) : 0,
  };
};

/** The fields a version must carry, for a clear refusal of a body that lacks them. */
const REQUIRED: Readonly<Record<string, readonly (keyof SkanBody)[]>> = {
  "1.0": ["campaign-id"],
  "2.0": ["campaign-id"],
  "2.1": ["campaign-id"],
  "2.2": ["campaign-id", "fidelity-type"],
  "3.0": ["campaign-id", "fidelity-type", "did-win"],
  "4.0": ["source-identifier", "fidelity-type", "did-win", "postback-sequence-index"],
};

/** The versions that name the campaign by `campaign-id`: those before 4.0. */
export const CAMPAIGN_ID_VERSIONS: readonly string[] = Object.keys(REQUIRED).filter((version) =>
  REQUIRED[version]?.includes("campaign-id"),
);

/** Apple's field a postback's `sourceIdentifier` was read from (a later version reads as 4.0). */
export const identifierFieldOf = (
  postback: Pick<ReceivedPostback, "kind" | "version">,
): IdentifierField =>
  postback.kind === "skadnetwork" && CAMPAIGN_ID_VERSIONS.includes(postback.version)
    ? "campaign-id"
    : "source-identifier";

const P192_VERSIONS = new Set(["1.0", "2.0"]);

/** The last version whose signed fields are known: a later one is read as its fields. */
const LATEST_VERSION = "4.0";

/** A version of Apple's form (major.minor, up to 99.9) as a number to compare; else null. */
const versionNumber = (version: string): number | null => {
  const match = /^(\d{1,2})\.(\d)$/.exec(version);
  return match ? Number(match[1]) * 10 + Number(match[2]) : null;
};

const laterThanKnown = (version: string): boolean =>
  (versionNumber(version) ?? 0) > (versionNumber(LATEST_VERSION) ?? 0);

const unverified = (reason: string): Verification => ({
  status: "unverified",
  environment: null,
  keyId: null,
  reason,
});

const problemOf = (error: z.ZodError, what: string): string =>
  `not ${what}: ${error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "body"} ${issue.message}`)
    .join("; ")}`;

/** An SKAdNetwork postback's body, read and verified. */
export const readSkadnetworkPostback = (body: unknown): ReadPostback => {
  const parsed = skanSchema.safeParse(body);
  if (!parsed.success)
    return { ok: false, problem: problemOf(parsed.error, "an SKAdNetwork postback") };
  const skan = parsed.data;
  if (!wellFormed(skan)) return { ok: false, problem: LONE_SURROGATE };
  const version = skan.version ?? "1.0";
  // A version after the last one known is read as that one's fields, and kept unverified: the
  // fields it signs are not known, and a postback Apple's device sent is not lost for it.
  const later = !Object.hasOwn(REQUIRED, version) && laterThanKnown(version);
  const readAs = later ? LATEST_VERSION : version;
  // Own keys only: `toString` is no version.
  const required = Object.hasOwn(REQUIRED, readAs) ? REQUIRED[readAs] : undefined;
  if (!required)
    return { ok: false, problem: `of version ${version}, which is no SKAdNetwork version` };
  // A later version's fields are not known: one of 4.0's it lacks is read as absent, and the
  // copy kept unverified, rather than refused and lost after the device's retries.
  const missing = later ? [] : required.filter((name) => skan[name] === undefined);
  if (missing.length > 0) {
    return { ok: false, problem: `a version ${version} postback without ${missing.join(", ")}` };
  }
  const fields = (later ? null : signedFields(version, skan)) ?? [];
  // A field holding the separator could carry others' values (a copy of a postback with a new
  // transaction id made from its optional fields), and still verify: no real one holds it.
  if (fields.some((field) => field?.includes(SEPARATOR))) {
    return {
      ok: false,
      problem: "a postback whose signed field holds U+2063, which separates Apple's fields",
    };
  }
  const key = appleKey(
    "skadnetwork",
    P192_VERSIONS.has(version) ? "skadnetwork-1" : "skadnetwork-2.1",
  );
  let verification: Verification;
  if (later) verification = unverified(`version ${version} signs fields not known here`);
  else if (!key) verification = unverified("no key for the version");
  else {
    const message = fields.filter((field) => field !== null).join(SEPARATOR);
    let valid = false;
    try {
      valid = verify(
        "sha256",
        Buffer.from(message, "utf8"),
        keyObjectOf(key),
        Buffer.from(skan["attribution-signature"], "base64"),
      );
    } catch {
      valid = false;
    }
    verification = valid
      ? { status: "verified", environment: key.environment, keyId: key.id, reason: null }
      : unverified("Apple's signature does not match the postback's fields");
  }
  return {
    ok: true,
    postback: {
      kind: "skadnetwork",
      version,
      // Checked as sent; kept in lower case, as an id is one network whatever its case.
      adNetworkId: skan["ad-network-id"].toLowerCase(),
      appStoreId: String(skan["app-id"]),
      transactionId: skan["transaction-id"],
      ...countedFields(readAs, skan),
      conversionValue: skan["conversion-value"] ?? null,
      coarseValue: skan["coarse-conversion-value"] ?? null,
      countryCode: skan["country-code"] ?? null,
      conversionType: null,
      verification,
    },
  };
};

const aakBodySchema = z.object({
  "jws-string": z.string().min(1).max(8_192),
  ...unsigned,
  "ad-interaction-type": z.string().max(32).optional(),
});

const aakHeaderSchema = z.object({ kid: z.string().max(200), alg: z.string().max(16) });

const aakPayloadSchema = z.object({
  "ad-network-identifier": z.string().min(1).max(200),
  "source-identifier": digits(2, 4),
  "advertised-item-identifier": idText,
  "postback-identifier": z.string().min(1).max(200),
  "did-win": z.boolean(),
  "postback-sequence-index": z.number().int().min(0).max(2),
  "conversion-type": z.string().max(32).optional(),
  "publisher-item-identifier": idText.optional(),
  "source-domain": z.string().max(253).optional(),
  "country-code": z.string().max(8).optional(),
});

/** Whether every text of a body is Unicode text: half a surrogate pair is none a reader decodes. */
const wellFormed = (value: unknown): boolean =>
  typeof value === "string"
    ? value.isWellFormed()
    : typeof value === "object" && value !== null
      ? Object.values(value).every(wellFormed)
      : true;

const LONE_SURROGATE = "not Unicode text: a field holds a lone surrogate";

const decodeJson = (part: string): unknown => {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
};

/** An AdAttributionKit postback's body (its `jws-string` and unsigned fields), read and verified. */
export const readAdAttributionKitPostback = (body: unknown): ReadPostback => {
  const parsed = aakBodySchema.safeParse(body);
  if (!parsed.success) {
    return { ok: false, problem: problemOf(parsed.error, "an AdAttributionKit postback") };
  }
  const parts = parsed.data["jws-string"].split(".");
  const [headerPart = "", payloadPart = "", signaturePart = ""] = parts;
  if (parts.length !== 3)
    return { ok: false, problem: "a postback whose jws-string is no compact JWS" };
  const header = aakHeaderSchema.safeParse(decodeJson(headerPart));
  if (!header.success)
    return { ok: false, problem: "a postback whose jws-string has no JWS header with a kid" };
  const payload = aakPayloadSchema.safeParse(decodeJson(payloadPart));
  if (!payload.success) {
    return {
      ok: false,
      problem: problemOf(payload.error, "an AdAttributionKit postback's payload"),
    };
  }
  const key = appleKey("adattributionkit", header.data.kid);
  let verification: Verification;
  if (header.data.alg !== "ES256") verification = unverified(`alg ${header.data.alg} is not ES256`);
  else if (!key) {
    verification = unverified(`kid ${header.data.kid} is not one of Apple's keys`);
  } else {
    let valid = false;
    try {
      valid = verify(
        "sha256",
        Buffer.from(`${headerPart}.${payloadPart}`, "ascii"),
        { key: keyObjectOf(key), dsaEncoding: "ieee-p1363" },
        Buffer.from(signaturePart, "base64url"),
      );
    } catch {
      valid = false;
    }
    verification = valid
      ? { status: "verified", environment: key.environment, keyId: key.id, reason: null }
      : unverified("Apple's signature does not match the JWS");
  }
  const signed = payload.data;
  if (!wellFormed(signed) || !wellFormed(parsed.data))
    return { ok: false, problem: LONE_SURROGATE };
  return {
    ok: true,
    postback: {
      kind: "adattributionkit",
      version: "aak",
      adNetworkId: signed["ad-network-identifier"].toLowerCase(),
      sourceIdentifier: String(signed["source-identifier"]),
      appStoreId: String(signed["advertised-item-identifier"]),
      transactionId: signed["postback-identifier"],
      redownload: signed["conversion-type"] === "redownload",
      sourceAppId: asText(signed["publisher-item-identifier"]),
      sourceDomain: signed["source-domain"] ?? null,
      fidelityType:
        parsed.data["ad-interaction-type"] === "click"
          ? 1
          : parsed.data["ad-interaction-type"] === "view"
            ? 0
            : null,
      didWin: signed["did-win"],
      sequenceIndex: signed["postback-sequence-index"],
      conversionValue: parsed.data["conversion-value"] ?? null,
      coarseValue: parsed.data["coarse-conversion-value"] ?? null,
      countryCode: signed["country-code"] ?? parsed.data["country-code"] ?? null,
      conversionType: signed["conversion-type"] ?? null,
      verification,
    },
  };
};

/** A body POSTed to one of the two endpoints, read as that endpoint's framework sends it. */
export const readPostback = (kind: PostbackKind, body: unknown): ReadPostback =>
  kind === "skadnetwork" ? readSkadnetworkPostback(body) : readAdAttributionKitPostback(body);

/**
 * Whether a postback counts in the figures: verified with a production key, unless the owner
 * asks for development (a test's) or unverified ones too.
 */
export const counts = (
  postback: { readonly verification: Pick<Verification, "status" | "environment"> },
  include: { readonly development?: boolean; readonly unverified?: boolean } = {},
): boolean => {
  const { status, environment } = postback.verification;
  if (status !== "verified") return include.unverified === true;
  return environment === "production" || include.development === true;
};
