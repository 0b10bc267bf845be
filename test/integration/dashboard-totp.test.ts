/**
 * The dashboard's sign-in with a TOTP over HTTP, on the embedded runtime with admins held to a
 * TOTP (`ATTRIBUTION_DASHBOARD_TOTP=admins`, as on AWS): the owner's password answers a setup
 * challenge and no cookie, a wrong code an error body and no cookie, the first right code the
 * session; the next sign-in asks the code; a challenge token is never a session; a person who
 * is not an admin signs in with the password alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPasswordCredentials } from "../../src/adapters/dynamodb/password-credentials.ts";
import { addUser } from "../../src/dashboard/accounts.ts";
import { totpCode } from "../../src/dashboard/totp.ts";
import { SESSION_COOKIE } from "../../src/domain/sessions.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";
import { wrongTotpCode } from "../support/totp.ts";

interface Challenge {
  challenge: "totp" | "totp_setup";
  challenge_token: string;
  expires_at: string;
  secret?: string;
  otpauth_uri?: string;
}

describe("signing in to the dashboard with a TOTP", () => {
  let rt: TestRuntime;
  let secret = "";
  /** The code the setup took, and when. */
  let setupCode = "";
  let setupAt = 0;

  beforeAll(async () => {
    rt = await startTestRuntime({ dashboardTotp: "admins" });
  });

  afterAll(async () => {
    await rt.dispose();
  });

  const owner = () => {
    if (!rt.owner) throw new Error("The first start made no owner account");
    return rt.owner;
  };
  const post = (body: unknown) => rt.post("/v1/session", body);
  const cookieOf = (response: Response) =>
    new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(response.headers.get("set-cookie") ?? "")?.[1];
  /** Who the session a response's cookie names is, as the service reads it back. */
  const signedInAs = async (response: Response) => {
    const cookie = cookieOf(response);
    if (cookie === undefined) return "no cookie";
    const session = await rt.fetch("/v1/session", {
      headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
    });
    if (session.status !== 200) return `${session.status}`;
    return ((await session.json()) as { user: { email: string } }).user.email;
  };

  it("answers the owner's password with a TOTP to set up, and no session", async () => {
    const response = await post({ email: owner().email, password: owner().password });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("cache-control")).toBe("no-store");
    const challenge = (await response.json()) as Challenge;
    expect(challenge.challenge).toBe("totp_setup");
    secret = challenge.secret ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(challenge.otpauth_uri ?? "");
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(secret);
    expect(decodeURIComponent(uri.pathname)).toContain(owner().email);
    expect(Date.parse(challenge.expires_at) - Date.now()).toBeGreaterThan(4 * 60_000);

    // A wrong code: the error body every refusal has, and still no session.
    const wrong = await post({
      challenge_token: challenge.challenge_token,
      code: wrongTotpCode(secret).replace(/^(\d{3})/, "$1 "),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.json()).toEqual({
      error: "Unauthorized",
      detail: "The code is wrong: enter the code your authenticator app shows now.",
    });
    // Not a code at all.
    const malformed = await post({ challenge_token: challenge.challenge_token, code: "12345" });
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { detail: string }).detail).toBe(
      "code: must be the 6 digits the authenticator app shows",
    );

    // A challenge's token is never a session's cookie.
    const asCookie = await rt.fetch("/v1/session", {
      headers: { cookie: `${SESSION_COOKIE}=${challenge.challenge_token}` },
    });
    expect(asCookie.status).toBe(401);

    // The first right code (typed as the app shows it, with a space) sets it up and signs in.
    setupAt = Date.now();
    const code = totpCode(secret, setupAt);
    setupCode = code;
    const right = await post({
      challenge_token: challenge.challenge_token,
      code: `${code.slice(0, 3)} ${code.slice(3)}`,
    });
    expect(right.status).toBe(200);
    const body = (await right.json()) as { user: { email: string; admin: boolean } };
    expect(body.user).toEqual({ email: owner().email, admin: true, viewer: false });
    expect(await signedInAs(right)).toBe(owner().email);
    expect((await rt.stores.users.get(owner().email))?.totpSecret).toBe(secret);

    // The challenge is spent with its sign-in.
    const again = await post({ challenge_token: challenge.challenge_token, code });
    expect(again.status).toBe(401);
  });

  it("asks the owner's code at the next sign-in, and takes no code twice", async () => {
    const response = await post({ email: owner().email, password: owner().password });
    const challenge = (await response.json()) as Challenge;
    expect(challenge.challenge).toBe("totp");
    expect(challenge.secret).toBeUndefined();
    expect(challenge.otpauth_uri).toBeUndefined();
    // The code the setup took is not taken again; the next step's is (one step either side).
    const used = await post({ challenge_token: challenge.challenge_token, code: setupCode });
    expect(used.status).toBe(401);
    const next = await post({
      challenge_token: challenge.challenge_token,
      // Now's, if a step has passed since (on a slow machine the next step may be too old).
      code: totpCode(secret, Math.max(Date.now(), setupAt + 30_000)),
    });
    expect(next.status).toBe(200);
    expect(await signedInAs(next)).toBe(owner().email);
  });

  it("signs a person who is not an admin in with the password alone", async () => {
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      { email: "viewer@example.com", password: "viewer's long password" },
    );
    const response = await post({
      email: "viewer@example.com",
      password: "viewer's long password",
    });
    expect(response.status).toBe(200);
    expect(await signedInAs(response)).toBe("viewer@example.com");
  });

  it("refuses a wrong password as before, with no challenge", async () => {
    const response = await post({ email: owner().email, password: "not the owner's password" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: "Unauthorized",
      detail: "The email or the password is wrong.",
    });
  });
});
