/**
 * The embedded runtime's passwords and TOTP codes over the users' own records: who is refused,
 * when a code is wrong and when the sign-in is over.
 */
import { describe, expect, it } from "vitest";
import { memoryUserStore, testUser } from "../../dashboard/memory-stores.test-support.ts";
import { newTotpSecret, totpCode } from "../../dashboard/totp.ts";
import { hashPassword } from "../../domain/passwords.ts";
import { createPasswordCredentials } from "./password-credentials.ts";

const NOW = Date.parse("2026-11-01T10:00:00.000Z");

describe("password credentials", () => {
  it("refuses a person who has no password, whatever is typed", async () => {
    const users = memoryUserStore([testUser("new@example.com")]);
    const credentials = createPasswordCredentials(users);
    // The text an unknown person's check is made against is no one's password either.
    for (const password of ["no one has this password", "", "anything"]) {
      expect(await credentials.verify("new@example.com", password)).toEqual({
        outcome: "refused",
      });
      expect(await credentials.verify("unknown@example.com", password)).toEqual({
        outcome: "refused",
      });
    }
  });

  it("asks for no TOTP of an admin unless told to", () => {
    expect(createPasswordCredentials(memoryUserStore()).adminsNeedTotp).toBe(false);
    expect(
      createPasswordCredentials(memoryUserStore(), { adminsNeedTotp: true }).adminsNeedTotp,
    ).toBe(true);
  });

  it("ends a sign-in whose person was removed, or whose TOTP was taken away, rather than call its code wrong", async () => {
    const secret = newTotpSecret();
    const users = memoryUserStore([testUser("gone@example.com", { totpSecret: secret })]);
    const credentials = createPasswordCredentials(users, { now: () => NOW });
    const code = totpCode(secret, NOW);
    await users.save(testUser("gone@example.com"));
    expect(await credentials.checkCode("gone@example.com", "totp", "", code)).toEqual({
      outcome: "expired",
    });
    await users.remove("gone@example.com");
    expect(await credentials.checkCode("gone@example.com", "totp", "", code)).toEqual({
      outcome: "expired",
    });
    expect(await credentials.checkCode("gone@example.com", "totp-setup", secret, code)).toEqual({
      outcome: "expired",
    });
  });

  it("sets a password of a person there is, and refuses one there is not", async () => {
    const users = memoryUserStore([testUser("kept@example.com")]);
    const credentials = createPasswordCredentials(users);
    await credentials.set("kept@example.com", "a long password");
    expect(await credentials.verify("kept@example.com", "a long password")).toEqual({
      outcome: "verified",
      state: "",
    });
    await expect(credentials.set("nobody@example.com", "a long password")).rejects.toThrow(
      "No user nobody@example.com",
    );
    expect(await users.get("nobody@example.com")).toBeUndefined();
    // A hash made elsewhere is read the same.
    await users.save(
      testUser("kept@example.com", { passwordHash: await hashPassword("other one") }),
    );
    expect((await credentials.verify("kept@example.com", "other one")).outcome).toBe("verified");
  });
});
