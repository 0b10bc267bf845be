/** The embedded runtime's password hashes: scrypt with a salt of their own, read back safely. */
import { describe, expect, it } from "vitest";
import { generatePassword, hashPassword, verifyPassword } from "./passwords.ts";

describe("password hashes", () => {
  it("verify the password they were made of, and no other", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword("correct horse battery", stored)).toBe(true);
    expect(await verifyPassword("correct horse batterY", stored)).toBe(false);
    // Each its own salt: the same password hashes apart.
    expect(await hashPassword("correct horse battery")).not.toBe(stored);
  });

  it("match nothing when the stored value is of another scheme, lacks a part or holds a hash of another length", async () => {
    const stored = await hashPassword("correct horse battery");
    const parts = stored.split("$");
    const withPart = (index: number, value: string) =>
      parts.map((part, at) => (at === index ? value : part)).join("$");
    for (const broken of [
      withPart(0, "bcrypt"),
      ...[1, 2, 3, 4, 5].map((index) => withPart(index, "")),
      parts.slice(0, 5).join("$"),
      withPart(5, Buffer.alloc(16).toString("base64url")),
      // The right hash cut short: no password opens it, the right one included.
      withPart(
        5,
        Buffer.from(parts[5] ?? "", "base64url")
          .subarray(0, 16)
          .toString("base64url"),
      ),
      "",
    ]) {
      expect(await verifyPassword("correct horse battery", broken), broken).toBe(false);
    }
  });

  it("make a printed password of 20 characters to copy, with every class a pool's policy asks for", () => {
    const printed = generatePassword();
    expect(printed).toMatch(/^[\w-]{20}$/);
    expect(generatePassword()).not.toBe(printed);
    // Cognito's policy on AWS (lib/dashboard-users.ts): a lowercase and an uppercase letter, a
    // digit and a symbol, every time (a random base64url string lacks a symbol most times).
    for (let n = 0; n < 2_000; n++) {
      const password = generatePassword();
      expect(password).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[-_])[\w-]{20}$/);
    }
  });
});
