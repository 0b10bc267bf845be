/**
 * API keys: random, shown once, stored only as a SHA-256 hash (the keys carry 256 bits of
 * entropy, so a slow hash buys nothing), compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const SCOPES = [
  "ingest",
  "config",
  "attribution:read",
  "export",
  "s2s",
  "deletions",
  "links",
  "reports",
  // An app's postback and webhook configurations and their delivery log.
  "postbacks",
  // What the app's campaigns cost.
  "costs",
  // The dashboard's apps, settings and keys: a signed-in person's, never a key's.
  "apps",
  // The dashboard's people: a signed-in admin's who is no viewer, never a key's.
  "users",
] as const;
export type Scope = (typeof SCOPES)[number];

/** An SDK key is embedded in apps and so is public; a server key stays on the owner's servers. */
export const KEY_KINDS = {
  sdk: { prefix: "sdk", scopes: ["ingest", "config", "attribution:read"] },
  server: {
    prefix: "srv",
    scopes: ["export", "s2s", "deletions", "links", "reports", "postbacks", "costs"],
  },
} as const satisfies Record<string, { prefix: string; scopes: readonly Scope[] }>;
export type KeyKind = keyof typeof KEY_KINDS;

const KEY_PATTERN = /^(sdk|srv)_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface NewKey {
  /** The key itself: returned to the caller once, never stored. */
  readonly plaintext: string;
  readonly keyId: string;
  readonly hash: string;
  readonly kind: KeyKind;
  readonly scopes: readonly Scope[];
}

export const hashKey = (plaintext: string): string =>
  createHash("sha256").update(plaintext).digest("hex");

export const generateKey = (kind: KeyKind): NewKey => {
  const { prefix, scopes } = KEY_KINDS[kind];
  const keyId = randomBytes(8).toString("hex");
  const plaintext = `${prefix}_${keyId}_${randomBytes(32).toString("base64url")}`;
  return { plaintext, keyId, hash: hashKey(plaintext), kind, scopes };
};

/** The key id of a well-formed key, or undefined; the secret part is never looked at here. */
export const keyIdOf = (plaintext: string): string | undefined => KEY_PATTERN.exec(plaintext)?.[2];

export const keyMatches = (plaintext: string, storedHash: string): boolean => {
  const given = Buffer.from(hashKey(plaintext), "hex");
  const stored = Buffer.from(storedHash, "hex");
  return given.length === stored.length && timingSafeEqual(given, stored);
};
