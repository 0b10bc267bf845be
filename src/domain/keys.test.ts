import { describe, expect, it } from "vitest";
import { generateKey, hashKey, KEY_KINDS, keyIdOf, keyMatches } from "./keys.ts";

describe("API keys", () => {
  it("are random, typed by prefix, and carry their kind's scopes", () => {
    const a = generateKey("server");
    const b = generateKey("server");
    expect(a.plaintext).not.toBe(b.plaintext);
    expect(a.plaintext).toMatch(/^srv_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(generateKey("sdk").plaintext.startsWith("sdk_")).toBe(true);
    expect(a.scopes).toEqual(KEY_KINDS.server.scopes);
    expect(KEY_KINDS.sdk.scopes).not.toContain("export");
  });

  it("are stored as a hash that matches only the same key", () => {
    const key = generateKey("sdk");
    expect(key.hash).toBe(hashKey(key.plaintext));
    expect(key.hash).not.toContain(key.plaintext);
    expect(keyMatches(key.plaintext, key.hash)).toBe(true);
    expect(keyMatches(`${key.plaintext.slice(0, -1)}x`, key.hash)).toBe(false);
    expect(keyMatches(key.plaintext, "abcd")).toBe(false);
  });

  it("name their id, and nothing else is taken for a key", () => {
    const key = generateKey("server");
    expect(keyIdOf(key.plaintext)).toBe(key.keyId);
    expect(keyIdOf("Bearer x")).toBeUndefined();
    expect(keyIdOf(`${key.plaintext} `)).toBeUndefined();
  });
});
