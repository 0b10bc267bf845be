/**
 * Ending a person's access ends their sessions, over HTTP on the embedded runtime: a password
 * set (or reset) ends every session and pending sign-in the person had, and so does their
 * removal, for good: the same email added again starts with no session of the old account's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPasswordCredentials } from "../../src/adapters/dynamodb/password-credentials.ts";
import { addUser, removeUser, setPassword } from "../../src/dashboard/accounts.ts";
import { totpCode } from "../../src/dashboard/totp.ts";
import { type DashboardSession, signIn } from "../support/dashboard-session.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

describe("ending a person's access over HTTP", () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await startTestRuntime();
  });

  afterAll(async () => {
    await rt.dispose();
  });

  const accounts = () => ({
    users: rt.stores.users,
    credentials: createPasswordCredentials(rt.stores.users),
  });

  /** The statuses a session's cookie gets from the session route and an authorized route. */
  const statusesOf = async (session: DashboardSession) => [
    (await session.get("/v1/session")).status,
    (await session.get("/v1/apps")).status,
  ];

  /** A password's sign-in for a person with a TOTP: the challenge's token. */
  const challengeOf = async (email: string, password: string) => {
    const response = await rt.post("/v1/session", { email, password });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { challenge?: string; challenge_token: string };
    expect(body.challenge).toBe("totp");
    return body.challenge_token;
  };

  const withTotp = async (email: string) => {
    const user = await rt.stores.users.get(email);
    if (!user) throw new Error(`no user ${email}`);
    await rt.stores.users.save({ ...user, totpSecret: SECRET });
  };

  it("ends every session of a person whose password is set", async () => {
    await addUser(accounts(), { email: "reset@example.com", password: "the first password" });
    const first = await signIn(rt.url, "reset@example.com", "the first password");
    const second = await signIn(rt.url, "reset@example.com", "the first password");
    expect(await statusesOf(first)).toEqual([200, 200]);

    await setPassword(accounts(), "reset@example.com", "the second password");

    expect(await statusesOf(first)).toEqual([401, 401]);
    expect(await statusesOf(second)).toEqual([401, 401]);
    const old = await rt.post("/v1/session", {
      email: "reset@example.com",
      password: "the first password",
    });
    expect(old.status).toBe(401);
    const fresh = await signIn(rt.url, "reset@example.com", "the second password");
    expect(await statusesOf(fresh)).toEqual([200, 200]);
  });

  it("does not bring a removed person's sessions back when the same email is added again", async () => {
    await addUser(accounts(), { email: "removed@example.com", password: "the first password" });
    const before = await signIn(rt.url, "removed@example.com", "the first password");
    expect(await statusesOf(before)).toEqual([200, 200]);

    await removeUser(accounts(), "removed@example.com");
    expect(await statusesOf(before)).toEqual([401, 401]);

    await addUser(accounts(), { email: "removed@example.com", password: "the first password" });
    expect(await statusesOf(before)).toEqual([401, 401]);
    const change = await before.send("POST", "/v1/apps", {
      app_id: "com.example.revived",
      name: "Revived",
      platform: "ios",
    });
    expect(change.status).toBe(401);
    expect(await rt.stores.apps.get("com.example.revived")).toBeUndefined();
    const fresh = await signIn(rt.url, "removed@example.com", "the first password");
    expect(await statusesOf(fresh)).toEqual([200, 200]);
  });

  it("ends a pending sign-in whose password is set before its code comes", async () => {
    await addUser(accounts(), { email: "pending@example.com", password: "the first password" });
    await withTotp("pending@example.com");
    const token = await challengeOf("pending@example.com", "the first password");

    await setPassword(accounts(), "pending@example.com", "the second password");

    const answer = await rt.post("/v1/session", {
      challenge_token: token,
      code: totpCode(SECRET, Date.now()),
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("set-cookie")).toBeNull();
    expect(((await answer.json()) as { detail: string }).detail).toMatch(/sign-in is over/);
  });

  it("ends a removed person's pending sign-in, even when the same email is added again", async () => {
    await addUser(accounts(), { email: "gone@example.com", password: "the first password" });
    await withTotp("gone@example.com");
    const token = await challengeOf("gone@example.com", "the first password");

    // Removed and added again with the same password and TOTP: the old sign-in is still over.
    await removeUser(accounts(), "gone@example.com");
    await addUser(accounts(), { email: "gone@example.com", password: "the first password" });
    await withTotp("gone@example.com");

    const answer = await rt.post("/v1/session", {
      challenge_token: token,
      code: totpCode(SECRET, Date.now()),
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("set-cookie")).toBeNull();
  });
});
