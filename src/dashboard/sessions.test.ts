/**
 * The dashboard's sign-in with a TOTP, over the embedded runtime's credentials (real scrypt
 * hashes, real RFC 6238 codes) and stores in memory: who is asked for a code, the setup of a
 * first TOTP, wrong codes counted as failed sign-ins, and a pending sign-in's end.
 */
import { describe, expect, it } from "vitest";
import { wrongTotpCode } from "../../test/support/totp.ts";
import { createPasswordCredentials } from "../adapters/dynamodb/password-credentials.ts";
import { MINUTE_MS } from "../domain/time.ts";
import type { User } from "../ports/users.ts";
import { setPassword } from "./accounts.ts";
import { memorySessionStore, memoryUserStore, testUser } from "./memory-stores.test-support.ts";
import { answerChallenge, currentSession, signIn, signOut } from "./sessions.ts";
import { createSignInGuard, LOCKED_OUT } from "./sign-in-guard.ts";
import { MAX_CODE_FAILURES, PENDING_SIGN_IN_LIFETIME_MS, totpCode } from "./totp.ts";

const ADMIN = "admin@example.com";
const VIEWER = "viewer@example.com";
const PASSWORD = "a long enough password";
const HERE = "203.0.113.7";
/** Now: the sessions made are read back against the real clock. */
const START = Date.now();

const person = (email: string, admin: boolean): User => testUser(email, { admin });

const setUp = async (options: { adminsNeedTotp: boolean; maxFailures?: number }) => {
  let clock = START;
  const users = memoryUserStore([person(ADMIN, true), person(VIEWER, false)]);
  const credentials = createPasswordCredentials(users, {
    adminsNeedTotp: options.adminsNeedTotp,
    now: () => clock,
  });
  await credentials.set(ADMIN, PASSWORD);
  await credentials.set(VIEWER, PASSWORD);
  const sessions = memorySessionStore();
  const deps = {
    users,
    sessions,
    credentials,
    guard: createSignInGuard({ maxFailures: options.maxFailures ?? 10, now: () => clock }),
  };
  return {
    deps,
    users,
    sessions,
    now: () => new Date(clock),
    advance: (ms: number) => {
      clock += ms;
    },
  };
};

/** Signs in with the password, expecting a challenge: its token and setup, if any. */
const challenged = async (t: Awaited<ReturnType<typeof setUp>>, email: string) => {
  const result = await signIn(t.deps, email, PASSWORD, t.now());
  if (!result.challenge) throw new Error(`${email} was signed in with the password alone`);
  return result.challenge;
};

describe("signing in with a TOTP", () => {
  it("leads an admin through a first TOTP before a session, then asks its code at each sign-in", async () => {
    const t = await setUp({ adminsNeedTotp: true });
    const setup = await challenged(t, ADMIN);
    expect(setup.step).toBe("totp-setup");
    const secret = setup.setup?.secret ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.setup?.uri).toBe(
      `otpauth://totp/Attribution%20dashboard:admin%40example.com?issuer=Attribution%20dashboard&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
    );
    expect(t.sessions.sessions.size).toBe(0);
    // Not kept on the person until its first code is right.
    expect((await t.users.get(ADMIN))?.totpSecret).toBeUndefined();

    const done = await answerChallenge(t.deps, setup.token, totpCode(secret, START), t.now());
    expect(done.signedIn?.user.email).toBe(ADMIN);
    expect((await t.users.get(ADMIN))?.totpSecret).toBe(secret);
    const session = done.signedIn;
    if (!session) throw new Error("no session");
    expect((await currentSession(t.deps, session.token)).user.email).toBe(ADMIN);
    // The challenge is spent with its sign-in: not even the next right code takes it again.
    await expect(
      answerChallenge(t.deps, setup.token, totpCode(secret, START + 30_000), t.now()),
    ).rejects.toThrow(/sign-in is over/);
    expect(t.sessions.sessions.size).toBe(1);

    // The next sign-in asks for the code of that TOTP.
    t.advance(MINUTE_MS);
    const next = await challenged(t, ADMIN);
    expect(next.step).toBe("totp");
    expect(next.setup).toBeUndefined();
    const again = await answerChallenge(t.deps, next.token, totpCode(secret, t.now().getTime()));
    expect(again.signedIn?.user.email).toBe(ADMIN);
  });

  it("signs a person who is not an admin in with the password alone, and an admin where admins need no TOTP", async () => {
    const t = await setUp({ adminsNeedTotp: true });
    expect((await signIn(t.deps, VIEWER, PASSWORD, t.now())).signedIn?.user.email).toBe(VIEWER);
    const relaxed = await setUp({ adminsNeedTotp: false });
    const admin = (await signIn(relaxed.deps, ADMIN, PASSWORD, relaxed.now())).signedIn;
    expect(admin?.user.email).toBe(ADMIN);
    expect((await currentSession(relaxed.deps, admin?.token)).user.email).toBe(ADMIN);
  });

  it("asks the code of anyone who has a TOTP, admin or not", async () => {
    const t = await setUp({ adminsNeedTotp: false });
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    const viewer = await t.users.get(VIEWER);
    if (!viewer) throw new Error("no viewer");
    await t.users.save({ ...viewer, totpSecret: secret });
    const challenge = await challenged(t, VIEWER);
    expect(challenge.step).toBe("totp");
    await expect(
      answerChallenge(t.deps, challenge.token, wrongTotpCode(secret, t.now().getTime()), t.now()),
    ).rejects.toThrow("The code is wrong: enter the code your authenticator app shows now.");
    const done = await answerChallenge(t.deps, challenge.token, totpCode(secret, START), t.now());
    expect(done.signedIn?.user.email).toBe(VIEWER);
    // A code is taken once: the same code again is refused.
    const replay = await challenged(t, VIEWER);
    await expect(
      answerChallenge(t.deps, replay.token, totpCode(secret, START), t.now()),
    ).rejects.toThrow(/code is wrong/);
  });

  it("counts no right password as a failed sign-in while its code is due, nor a sign-in a new password ended", async () => {
    const t = await setUp({ adminsNeedTotp: false, maxFailures: 2 });
    const viewer = await t.users.get(VIEWER);
    if (!viewer) throw new Error("no viewer");
    await t.users.save({ ...viewer, totpSecret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" });
    // More right passwords than the failures allowed, their codes never given.
    for (let i = 0; i < 3; i += 1) await challenged(t, VIEWER);
    // Pending sign-ins that a new password ends, their codes then given.
    const ended = [await challenged(t, VIEWER), await challenged(t, VIEWER)];
    const renewed = "another long enough password";
    await setPassword({ users: t.users, credentials: t.deps.credentials }, VIEWER, renewed);
    for (const pending of ended) {
      await expect(answerChallenge(t.deps, pending.token, "000000", t.now())).rejects.toThrow(
        /sign-in is over/,
      );
    }
    // None counted: the person is not locked out.
    const again = await signIn(t.deps, VIEWER, renewed, t.now());
    expect(again.challenge?.step).toBe("totp");
  });

  it("ends a pending sign-in after its wrong codes allowed, and after its minutes", async () => {
    const t = await setUp({ adminsNeedTotp: true });
    const setup = await challenged(t, ADMIN);
    const wrong = wrongTotpCode(setup.setup?.secret ?? "", t.now().getTime());
    for (let i = 1; i < MAX_CODE_FAILURES; i += 1) {
      await expect(answerChallenge(t.deps, setup.token, wrong, t.now())).rejects.toThrow(
        /code is wrong/,
      );
    }
    await expect(answerChallenge(t.deps, setup.token, wrong, t.now())).rejects.toThrow(
      "Too many wrong codes: sign in again with your password.",
    );
    // Even the right code does not revive it.
    const right = totpCode(setup.setup?.secret ?? "", START);
    await expect(answerChallenge(t.deps, setup.token, right, t.now())).rejects.toThrow(
      /sign-in is over/,
    );

    const late = await challenged(t, ADMIN);
    t.advance(PENDING_SIGN_IN_LIFETIME_MS);
    await expect(
      answerChallenge(
        t.deps,
        late.token,
        totpCode(late.setup?.secret ?? "", t.now().getTime()),
        t.now(),
      ),
    ).rejects.toThrow(
      "This sign-in is over (it waits 5 minutes for its code): sign in again with your password.",
    );
    expect(t.sessions.sessions.size).toBe(0);
  });

  it("counts wrong codes as failed sign-ins: the guard locks the person out, right code or not", async () => {
    const t = await setUp({ adminsNeedTotp: true, maxFailures: 3 });
    const setup = await challenged(t, ADMIN);
    const wrong = wrongTotpCode(setup.setup?.secret ?? "", t.now().getTime());
    for (let i = 0; i < 2; i += 1) {
      await expect(answerChallenge(t.deps, setup.token, wrong, t.now())).rejects.toThrow(
        /code is wrong/,
      );
    }
    // A right password does not clear them while a code is due.
    const another = await challenged(t, ADMIN);
    await expect(
      answerChallenge(
        t.deps,
        another.token,
        wrongTotpCode(another.setup?.secret ?? "", t.now().getTime()),
        t.now(),
      ),
    ).rejects.toThrow(/code is wrong/);
    const right = totpCode(another.setup?.secret ?? "", START);
    await expect(answerChallenge(t.deps, another.token, right, t.now())).rejects.toThrow(
      /Too many failed sign-ins/,
    );
    await expect(signIn(t.deps, ADMIN, PASSWORD, t.now())).rejects.toThrow(
      /Too many failed sign-ins/,
    );
    expect(t.sessions.sessions.size).toBe(0);
  });

  it("gives a session of twelve hours, by its token's hash, under the email as accounts key it", async () => {
    const t = await setUp({ adminsNeedTotp: true });
    const result = await signIn(t.deps, "  Viewer@Example.COM ", PASSWORD, t.now());
    const session = result.signedIn;
    if (!session) throw new Error("the viewer was not signed in");
    expect(session.user.email).toBe(VIEWER);
    expect(session.expiresAt.toISOString()).toBe(new Date(START + 12 * 3_600_000).toISOString());
    const [stored] = [...t.sessions.sessions.values()];
    expect(stored?.email).toBe(VIEWER);
    expect(stored?.sessionKey).not.toContain(session.token);
    expect(stored?.csrfToken).toBe(session.csrfToken);
    const key = stored?.sessionKey ?? "";
    expect(await t.sessions.get(key, new Date(START + 12 * 3_600_000 - 1))).toEqual(stored);
    expect(await t.sessions.get(key, new Date(START + 12 * 3_600_000))).toBeUndefined();
  });

  it("ends the session on sign-out, and no other", async () => {
    const t = await setUp({ adminsNeedTotp: false });
    const mine = (await signIn(t.deps, VIEWER, PASSWORD, t.now())).signedIn?.token;
    const other = (await signIn(t.deps, VIEWER, PASSWORD, t.now())).signedIn?.token;
    await signOut(t.deps, mine);
    await expect(currentSession(t.deps, mine)).rejects.toThrow(/session is over/);
    expect((await currentSession(t.deps, other)).user.email).toBe(VIEWER);
    expect(t.sessions.sessions.size).toBe(1);
  });

  it("refuses a password the credentials know for a person the dashboard does not", async () => {
    const t = await setUp({ adminsNeedTotp: false });
    // As Cognito may: a pool's user the users table has no record of.
    const deps = {
      ...t.deps,
      credentials: {
        ...t.deps.credentials,
        adminsNeedTotp: false,
        verify: async () => ({ outcome: "verified" as const, state: "" }),
      },
    };
    await expect(signIn(deps, "stranger@example.com", PASSWORD, t.now())).rejects.toThrow(
      "The email or the password is wrong.",
    );
    expect(t.sessions.sessions.size).toBe(0);
  });

  it("gives nothing for a challenge token that was never given", async () => {
    const t = await setUp({ adminsNeedTotp: true });
    await expect(answerChallenge(t.deps, "made-up", "123456", t.now())).rejects.toThrow(
      /sign-in is over/,
    );
  });
});

describe("the lockout under concurrent guesses", () => {
  /** The setup's credentials, counting the passwords they were asked to check. */
  const counting = async () => {
    const t = await setUp({ adminsNeedTotp: false });
    let verified = 0;
    const { credentials } = t.deps;
    const deps = {
      ...t.deps,
      credentials: {
        ...credentials,
        adminsNeedTotp: credentials.adminsNeedTotp,
        verify: (email: string, password: string) => {
          verified += 1;
          return credentials.verify(email, password);
        },
      },
    };
    return { ...t, deps, verified: () => verified };
  };

  const outcomes = async (attempts: readonly Promise<unknown>[]) => {
    const settled = await Promise.allSettled(attempts);
    const reasons = settled.map((result) =>
      result.status === "rejected" ? String((result.reason as Error).message) : "signed in",
    );
    return {
      wrong: reasons.filter((reason) => reason === "The email or the password is wrong.").length,
      lockedOut: reasons.filter((reason) => reason.startsWith(LOCKED_OUT)).length,
    };
  };

  it("checks no more of one person's passwords from one address than the limit, however many come at once", async () => {
    const t = await counting();
    const guesses = Array.from({ length: 40 }, (_, i) =>
      signIn(t.deps, VIEWER, `guess ${i}`, t.now(), HERE),
    );
    expect(await outcomes(guesses)).toEqual({ wrong: 10, lockedOut: 30 });
    expect(t.verified()).toBe(10);
    // The right password is refused too, unchecked, while the lockout holds.
    await expect(signIn(t.deps, VIEWER, PASSWORD, t.now(), HERE)).rejects.toThrow(LOCKED_OUT);
    expect(t.verified()).toBe(10);
  });

  it("checks no more of one address's passwords than its limit, whatever accounts they name", async () => {
    const t = await counting();
    const guesses = Array.from({ length: 60 }, (_, i) =>
      signIn(t.deps, `person${i}@example.com`, "a guess", t.now(), HERE),
    );
    expect(await outcomes(guesses)).toEqual({ wrong: 50, lockedOut: 10 });
    expect(t.verified()).toBe(50);
  });

  it("does not count a right password, even among wrong ones at once", async () => {
    const t = await counting();
    const attempts = [
      ...Array.from({ length: 9 }, (_, i) => signIn(t.deps, VIEWER, `guess ${i}`, t.now(), HERE)),
      signIn(t.deps, VIEWER, PASSWORD, t.now(), HERE),
    ];
    const settled = await Promise.allSettled(attempts);
    expect(settled.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    // Its completed sign-in cleared the person's failures at the address: ten more are checked.
    const more = Array.from({ length: 11 }, (_, i) =>
      signIn(t.deps, VIEWER, `more ${i}`, t.now(), HERE),
    );
    expect(await outcomes(more)).toEqual({ wrong: 10, lockedOut: 1 });
  });
});

describe("a password set while a sign-in checks the old one", () => {
  it("ends the session that sign-in gives, as it ends the others", async () => {
    const t = await setUp({ adminsNeedTotp: false });
    const accounts = { users: t.users, credentials: t.deps.credentials };
    const { credentials } = t.deps;
    const deps = {
      ...t.deps,
      credentials: {
        ...credentials,
        adminsNeedTotp: credentials.adminsNeedTotp,
        // The old password proves right, and the new one is set before the answer comes back.
        verify: async (email: string, password: string) => {
          const check = await credentials.verify(email, password);
          await setPassword(accounts, email, "the new long password");
          return check;
        },
      },
    };
    const result = await signIn(deps, VIEWER, PASSWORD, t.now());
    const token = result.signedIn?.token;
    // A session was given (the old password was right), and it is the one that is over.
    expect(token).toMatch(/\S{20,}/);
    await expect(currentSession(t.deps, token)).rejects.toThrow(/session is over/);
    const fresh = await signIn(t.deps, VIEWER, "the new long password", t.now());
    expect((await currentSession(t.deps, fresh.signedIn?.token)).user.email).toBe(VIEWER);
  });
});
