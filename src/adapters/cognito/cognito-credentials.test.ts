/**
 * The Cognito credentials' sign-in with a faked Cognito client: the exact commands and
 * parameters of a password, a TOTP challenge answered, an admin's first TOTP set up with the
 * sign-in's access token, and a pool's MFA_SETUP challenge; wrong and spent codes; the pool's
 * lockout said as such; and the dashboard's sign-in over them, which gives no session before
 * the code.
 */
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  AdminSetUserMFAPreferenceCommand,
  AdminSetUserPasswordCommand,
  AssociateSoftwareTokenCommand,
  CodeMismatchException,
  CognitoIdentityProviderClient,
  EnableSoftwareTokenMFAException,
  ExpiredCodeException,
  InternalErrorException,
  InvalidPasswordException,
  ListUsersCommand,
  NotAuthorizedException,
  UserNotFoundException,
  UsernameExistsException,
  VerifySoftwareTokenCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { endDisabledAccountsSessions } from "../../dashboard/disabled-accounts.ts";
import {
  memorySessionStore,
  memoryUserStore,
  testUser,
} from "../../dashboard/memory-stores.test-support.ts";
import { answerChallenge, currentSession, signIn } from "../../dashboard/sessions.ts";
import { createSignInGuard, LOCKED_OUT } from "../../dashboard/sign-in-guard.ts";
import { UnauthorizedError, ValidationError } from "../../domain/errors.ts";
import type { User } from "../../ports/users.ts";
import { COGNITO_LOCKED_OUT, createCognitoCredentials } from "./cognito-credentials.ts";

const cognito = mockClient(CognitoIdentityProviderClient);
const POOL = "eu-west-1_Pool";
const CLIENT = "app-client-id";
const EMAIL = "admin@example.com";
const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

const credentials = () =>
  createCognitoCredentials({
    client: new CognitoIdentityProviderClient({}),
    userPoolId: POOL,
    clientId: CLIENT,
  });

const inputsOf = <I extends object>(command: abstract new (input: I) => unknown) =>
  cognito
    .commandCalls(command as never)
    .map((call) => (call.args[0] as unknown as { input: I }).input);

const failure = <E>(Exception: new (options: never) => E, message: string): E =>
  new Exception({ message, $metadata: {} } as never);

describe("Cognito credentials", () => {
  beforeEach(() => cognito.reset());

  it("checks a password with the admin password flow; a right one with no TOTP is verified", async () => {
    cognito.on(AdminInitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: "at" } });
    expect(await credentials().verify(EMAIL, "the password")).toEqual({
      outcome: "verified",
      state: "token:at",
    });
    expect(inputsOf(AdminInitiateAuthCommand)).toEqual([
      {
        UserPoolId: POOL,
        ClientId: CLIENT,
        AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: EMAIL, PASSWORD: "the password" },
      },
    ]);
  });

  it("refuses a wrong password and an unknown person alike", async () => {
    cognito.on(AdminInitiateAuthCommand).rejects(failure(NotAuthorizedException, "wrong"));
    expect(await credentials().verify(EMAIL, "wrong")).toEqual({ outcome: "refused" });
    cognito.reset();
    cognito
      .on(AdminInitiateAuthCommand)
      .rejects(failure(NotAuthorizedException, "Incorrect username or password."));
    expect(await credentials().verify(EMAIL, "wrong")).toEqual({ outcome: "refused" });
  });

  it("says the pool's lockout as such, not as a wrong password", async () => {
    cognito
      .on(AdminInitiateAuthCommand)
      .rejects(failure(NotAuthorizedException, "Password attempts exceeded"));
    const refusal = credentials().verify(EMAIL, "the password");
    await expect(refusal).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(refusal).rejects.toThrow(COGNITO_LOCKED_OUT);
    expect(COGNITO_LOCKED_OUT.startsWith(`${LOCKED_OUT} for this account`)).toBe(true);
  });

  it("answers SOFTWARE_TOKEN_MFA with the code and the challenge's session", async () => {
    cognito
      .on(AdminInitiateAuthCommand)
      .resolves({ ChallengeName: "SOFTWARE_TOKEN_MFA", Session: "s1" });
    cognito
      .on(AdminRespondToAuthChallengeCommand)
      .resolves({ AuthenticationResult: { AccessToken: "at" } });
    const check = await credentials().verify(EMAIL, "the password");
    expect(check).toEqual({ outcome: "code", step: "totp", state: "session:s1" });
    if (check.outcome !== "code") throw new Error("no challenge");
    expect(await credentials().checkCode(EMAIL, check.step, check.state, "123456")).toEqual({
      outcome: "accepted",
    });
    expect(inputsOf(AdminRespondToAuthChallengeCommand)).toEqual([
      {
        UserPoolId: POOL,
        ClientId: CLIENT,
        ChallengeName: "SOFTWARE_TOKEN_MFA",
        Session: "s1",
        ChallengeResponses: { USERNAME: EMAIL, SOFTWARE_TOKEN_MFA_CODE: "123456" },
      },
    ]);
  });

  it("says a wrong code is wrong, and a spent or old session over", async () => {
    cognito
      .on(AdminRespondToAuthChallengeCommand)
      .rejectsOnce(failure(CodeMismatchException, "Invalid code"))
      .rejectsOnce(failure(NotAuthorizedException, "Invalid session for the user"));
    const check = (code: string) => credentials().checkCode(EMAIL, "totp", "session:s1", code);
    expect(await check("000000")).toEqual({ outcome: "wrong" });
    expect(await check("111111")).toEqual({ outcome: "expired" });
  });

  it("sets up an admin's first TOTP with the sign-in's access token, then makes it their MFA", async () => {
    cognito.on(AssociateSoftwareTokenCommand).resolves({ SecretCode: SECRET });
    cognito.on(VerifySoftwareTokenCommand).resolves({ Status: "SUCCESS" });
    cognito.on(AdminSetUserMFAPreferenceCommand).resolves({});
    const setup = await credentials().startTotpSetup(EMAIL, "token:at");
    expect(setup).toEqual({ secret: SECRET, state: "token:at" });
    expect(inputsOf(AssociateSoftwareTokenCommand)).toEqual([{ AccessToken: "at" }]);

    expect(await credentials().checkCode(EMAIL, "totp-setup", setup.state, "654321")).toEqual({
      outcome: "accepted",
    });
    expect(inputsOf(VerifySoftwareTokenCommand)).toEqual([
      { AccessToken: "at", UserCode: "654321", FriendlyDeviceName: "Attribution dashboard" },
    ]);
    expect(inputsOf(AdminSetUserMFAPreferenceCommand)).toEqual([
      {
        UserPoolId: POOL,
        Username: EMAIL,
        SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true },
      },
    ]);
  });

  it("turns nothing on when the first code of a new TOTP is wrong", async () => {
    cognito
      .on(VerifySoftwareTokenCommand)
      .rejects(failure(EnableSoftwareTokenMFAException, "Code mismatch"));
    expect(await credentials().checkCode(EMAIL, "totp-setup", "token:at", "000000")).toEqual({
      outcome: "wrong",
    });
    expect(inputsOf(AdminSetUserMFAPreferenceCommand)).toEqual([]);
  });

  it("answers a pool's MFA_SETUP challenge: secret by the session, code verified, challenge answered", async () => {
    cognito.on(AdminInitiateAuthCommand).resolves({ ChallengeName: "MFA_SETUP", Session: "s1" });
    cognito.on(AssociateSoftwareTokenCommand).resolves({ SecretCode: SECRET, Session: "s2" });
    cognito.on(VerifySoftwareTokenCommand).resolves({ Status: "SUCCESS", Session: "s3" });
    cognito
      .on(AdminRespondToAuthChallengeCommand)
      .resolves({ AuthenticationResult: { AccessToken: "at" } });
    const check = await credentials().verify(EMAIL, "the password");
    expect(check).toEqual({ outcome: "code", step: "totp-setup", state: "session:s1" });
    if (check.outcome !== "code") throw new Error("no challenge");
    const setup = await credentials().startTotpSetup(EMAIL, check.state);
    expect(setup).toEqual({ secret: SECRET, state: "session:s2" });
    expect(inputsOf(AssociateSoftwareTokenCommand)).toEqual([{ Session: "s1" }]);

    expect(await credentials().checkCode(EMAIL, "totp-setup", setup.state, "654321")).toEqual({
      outcome: "accepted",
    });
    expect(inputsOf(VerifySoftwareTokenCommand)).toEqual([
      { Session: "s2", UserCode: "654321", FriendlyDeviceName: "Attribution dashboard" },
    ]);
    expect(inputsOf(AdminRespondToAuthChallengeCommand)).toEqual([
      {
        UserPoolId: POOL,
        ClientId: CLIENT,
        ChallengeName: "MFA_SETUP",
        Session: "s3",
        ChallengeResponses: { USERNAME: EMAIL },
      },
    ]);
    // The pool asks for the MFA itself: no preference to set.
    expect(inputsOf(AdminSetUserMFAPreferenceCommand)).toEqual([]);
  });
});

describe("the dashboard's sign-in over Cognito", () => {
  beforeEach(() => cognito.reset());

  const person = (email: string, admin: boolean): User => testUser(email, { admin });
  const depsWith = () => ({
    users: memoryUserStore([
      person(EMAIL, true),
      person("viewer@example.com", false),
      person("other@example.com", false),
    ]),
    sessions: memorySessionStore(),
    credentials: credentials(),
    guard: createSignInGuard(),
  });

  it("leads an admin with no TOTP through its setup before any session", async () => {
    cognito.on(AdminInitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: "at" } });
    cognito.on(AssociateSoftwareTokenCommand).resolves({ SecretCode: SECRET });
    cognito
      .on(VerifySoftwareTokenCommand)
      .rejectsOnce(failure(CodeMismatchException, "Invalid code"))
      .resolves({ Status: "SUCCESS" });
    cognito.on(AdminSetUserMFAPreferenceCommand).resolves({});
    const deps = depsWith();

    const first = await signIn(deps, EMAIL, "the password");
    expect(first.signedIn).toBeUndefined();
    expect(first.challenge?.step).toBe("totp-setup");
    expect(first.challenge?.setup?.secret).toBe(SECRET);
    expect(first.challenge?.setup?.uri).toMatch(
      new RegExp(`^otpauth://totp/.*admin%40example\\.com\\?.*secret=${SECRET}`),
    );
    expect(deps.sessions.sessions.size).toBe(0);
    // The access token stays on the service's side, under the challenge token's hash.
    expect([...deps.sessions.pending.values()].map((p) => p.state)).toEqual(["token:at"]);
    const token = first.challenge?.token ?? "";

    await expect(answerChallenge(deps, token, "000000")).rejects.toThrow(/code is wrong/);
    expect(deps.sessions.sessions.size).toBe(0);
    const done = await answerChallenge(deps, token, "654321");
    expect(done.signedIn?.user.email).toBe(EMAIL);
    expect(deps.sessions.sessions.size).toBe(1);
    expect(deps.sessions.pending.size).toBe(0);
    expect(inputsOf(AdminSetUserMFAPreferenceCommand)).toHaveLength(1);
  });

  it("ends a sign-in whose code Cognito's session no longer takes: over, not a wrong code", async () => {
    cognito
      .on(AdminInitiateAuthCommand)
      .resolves({ ChallengeName: "SOFTWARE_TOKEN_MFA", Session: "s1" });
    cognito
      .on(AdminRespondToAuthChallengeCommand)
      .rejects(
        failure(NotAuthorizedException, "Invalid session for the user, session is expired."),
      );
    const deps = depsWith();
    const first = await signIn(deps, EMAIL, "the password");
    expect(first.challenge?.step).toBe("totp");
    await expect(answerChallenge(deps, first.challenge?.token ?? "", "123456")).rejects.toThrow(
      /This sign-in is over/,
    );
    expect(deps.sessions.pending.size).toBe(0);
    expect(deps.sessions.sessions.size).toBe(0);
  });

  it("refuses a locked person's right password with the lockout's words, and a wrong one as wrong", async () => {
    cognito
      .on(AdminInitiateAuthCommand)
      .rejectsOnce(failure(NotAuthorizedException, "Incorrect username or password."))
      .rejects(failure(NotAuthorizedException, "Password attempts exceeded"));
    const deps = depsWith();
    await expect(signIn(deps, EMAIL, "a wrong password")).rejects.toThrow(
      "The email or the password is wrong.",
    );
    const locked = signIn(deps, EMAIL, "the password");
    await expect(locked).rejects.toMatchObject({ statusCode: 401, message: COGNITO_LOCKED_OUT });
    expect(deps.sessions.sessions.size).toBe(0);
    expect(deps.sessions.pending.size).toBe(0);
  });

  it("signs a person who is not an admin and has no TOTP in with the password", async () => {
    cognito.on(AdminInitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: "at" } });
    const deps = depsWith();
    const result = await signIn(deps, "viewer@example.com", "the password");
    expect(result.signedIn?.user.email).toBe("viewer@example.com");
    expect(inputsOf(AssociateSoftwareTokenCommand)).toEqual([]);
  });

  it("ends the open session of a person disabled in the pool at the job's next run, and only theirs", async () => {
    cognito.on(AdminInitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: "at" } });
    const deps = depsWith();
    const viewer = await signIn(deps, "viewer@example.com", "the password");
    const other = await signIn(deps, "other@example.com", "the password");
    cognito.on(ListUsersCommand).resolves({
      Users: [
        {
          Username: "a1b2",
          Enabled: false,
          Attributes: [{ Name: "email", Value: "viewer@example.com" }],
        },
        {
          Username: "c3d4",
          Enabled: true,
          Attributes: [{ Name: "email", Value: "other@example.com" }],
        },
        // Disabled in the pool, and no person of the service's: nothing to end.
        { Username: "gone@example.com", Enabled: false },
      ],
    });
    expect(await endDisabledAccountsSessions(deps)).toBe(1);
    await expect(currentSession(deps, viewer.signedIn?.token)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect((await currentSession(deps, other.signedIn?.token)).user.email).toBe(
      "other@example.com",
    );
  });

  it("ends a disabling's sessions once: a person enabled again keeps the session then opened", async () => {
    cognito.on(AdminInitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: "at" } });
    const deps = depsWith();
    const disabledAt = (when: string) =>
      cognito.on(ListUsersCommand).resolves({
        Users: [
          {
            Username: "a1b2",
            Enabled: false,
            UserLastModifiedDate: new Date(when),
            Attributes: [{ Name: "email", Value: "viewer@example.com" }],
          },
        ],
      });
    const first = await signIn(deps, "viewer@example.com", "the password");
    disabledAt("2026-12-01T10:00:00Z");
    expect(await endDisabledAccountsSessions(deps)).toBe(1);
    await expect(currentSession(deps, first.signedIn?.token)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    // Enabled again, and signed in, while a run still read the pool as it was: nothing written.
    const again = await signIn(deps, "viewer@example.com", "the password");
    expect(await endDisabledAccountsSessions(deps)).toBe(0);
    expect((await currentSession(deps, again.signedIn?.token)).user.email).toBe(
      "viewer@example.com",
    );
    // Disabled a second time: the pool dates it anew, and the session ends.
    disabledAt("2026-12-02T08:00:00Z");
    expect(await endDisabledAccountsSessions(deps)).toBe(1);
    await expect(currentSession(deps, again.signedIn?.token)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
  });
});

describe("Cognito credentials: edges of the sign-in", () => {
  beforeEach(() => cognito.reset());

  it("refuses an unknown person, and a challenge the dashboard does not answer", async () => {
    cognito.on(AdminInitiateAuthCommand).rejects(failure(UserNotFoundException, "no such user"));
    expect(await credentials().verify(EMAIL, "the password")).toEqual({ outcome: "refused" });
    cognito.reset();
    cognito
      .on(AdminInitiateAuthCommand)
      .resolves({ ChallengeName: "NEW_PASSWORD_REQUIRED", Session: "s1" });
    expect(await credentials().verify(EMAIL, "the password")).toEqual({ outcome: "refused" });
  });

  it("passes on any other failure of Cognito's", async () => {
    const down = failure(InternalErrorException, "Cognito is down");
    cognito.on(AdminInitiateAuthCommand).rejects(down);
    await expect(credentials().verify(EMAIL, "the password")).rejects.toBe(down);
    cognito.on(AdminRespondToAuthChallengeCommand).rejects(down);
    await expect(credentials().checkCode(EMAIL, "totp", "session:s1", "123456")).rejects.toBe(down);
  });

  it("needs the app client to check a password", async () => {
    const withoutClient = createCognitoCredentials({
      client: new CognitoIdentityProviderClient({}),
      userPoolId: POOL,
    });
    await expect(withoutClient.verify(EMAIL, "the password")).rejects.toThrow(
      "Signing in needs the user pool's app client id",
    );
    expect(inputsOf(AdminInitiateAuthCommand)).toEqual([]);
    // An admin must use TOTP unless said otherwise.
    expect(withoutClient.adminsNeedTotp).toBe(true);
  });

  it("refuses a state that is no sign-in's, and a TOTP setup without a secret", async () => {
    await expect(credentials().startTotpSetup(EMAIL, "cookie:at")).rejects.toThrow(
      "Not a Cognito sign-in's state",
    );
    await expect(credentials().checkCode(EMAIL, "totp", "s1", "123456")).rejects.toThrow(
      "Not a Cognito sign-in's state",
    );
    cognito.on(AssociateSoftwareTokenCommand).resolves({});
    await expect(credentials().startTotpSetup(EMAIL, "token:at")).rejects.toThrow(
      "Cognito gave no TOTP secret",
    );
  });

  it("keeps a challenge's session when Cognito gives no new one", async () => {
    cognito.on(AssociateSoftwareTokenCommand).resolves({ SecretCode: SECRET });
    expect(await credentials().startTotpSetup(EMAIL, "session:s1")).toEqual({
      secret: SECRET,
      state: "session:s1",
    });
  });

  it("says an expired code wrong, a new TOTP not verified wrong, and a further challenge over", async () => {
    cognito.on(AdminRespondToAuthChallengeCommand).rejects(failure(ExpiredCodeException, "used"));
    expect(await credentials().checkCode(EMAIL, "totp", "session:s1", "123456")).toEqual({
      outcome: "wrong",
    });
    cognito.reset();
    cognito.on(VerifySoftwareTokenCommand).resolves({ Status: "ERROR" });
    expect(await credentials().checkCode(EMAIL, "totp-setup", "token:at", "123456")).toEqual({
      outcome: "wrong",
    });
    expect(inputsOf(AdminSetUserMFAPreferenceCommand)).toEqual([]);
    cognito.reset();
    cognito
      .on(AdminRespondToAuthChallengeCommand)
      .resolves({ ChallengeName: "SELECT_MFA_TYPE", Session: "s2" });
    expect(await credentials().checkCode(EMAIL, "totp", "session:s1", "123456")).toEqual({
      outcome: "expired",
    });
  });
});

describe("Cognito credentials: people", () => {
  beforeEach(() => cognito.reset());

  it("makes a person with a verified email and a permanent password, sending them nothing", async () => {
    cognito.on(AdminCreateUserCommand).resolves({});
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    await credentials().set(EMAIL, "a long password");
    expect(inputsOf(AdminCreateUserCommand)).toEqual([
      {
        UserPoolId: POOL,
        Username: EMAIL,
        UserAttributes: [
          { Name: "email", Value: EMAIL },
          { Name: "email_verified", Value: "true" },
        ],
        MessageAction: "SUPPRESS",
      },
    ]);
    expect(inputsOf(AdminSetUserPasswordCommand)).toEqual([
      { UserPoolId: POOL, Username: EMAIL, Password: "a long password", Permanent: true },
    ]);
  });

  it("sets a password of a person who is there already, and passes on other failures", async () => {
    cognito.on(AdminCreateUserCommand).rejects(failure(UsernameExistsException, "exists"));
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    await credentials().set(EMAIL, "a new password");
    expect(inputsOf(AdminSetUserPasswordCommand)).toHaveLength(1);
    cognito.reset();
    const down = failure(InternalErrorException, "Cognito is down");
    cognito.on(AdminCreateUserCommand).rejects(down);
    await expect(credentials().set(EMAIL, "a new password")).rejects.toBe(down);
    expect(inputsOf(AdminSetUserPasswordCommand)).toEqual([]);
  });

  it("says a password the pool's policy refuses as the password's fault, with the policy, and leaves no person it made", async () => {
    cognito.on(AdminCreateUserCommand).resolves({});
    cognito.on(AdminDeleteUserCommand).resolves({});
    cognito
      .on(AdminSetUserPasswordCommand)
      .rejects(failure(InvalidPasswordException, "Password does not conform to policy"));
    const refused = credentials().set(EMAIL, "onlylowercase1");
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toThrow(
      /^password: the user pool asks for at least 12 characters/,
    );
    expect(inputsOf(AdminDeleteUserCommand)).toEqual([{ UserPoolId: POOL, Username: EMAIL }]);
    // A person there already keeps their account (and their old password).
    cognito.reset();
    cognito.on(AdminCreateUserCommand).rejects(failure(UsernameExistsException, "exists"));
    cognito
      .on(AdminSetUserPasswordCommand)
      .rejects(failure(InvalidPasswordException, "Password does not conform to policy"));
    await expect(credentials().set(EMAIL, "onlylowercase1")).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(inputsOf(AdminDeleteUserCommand)).toEqual([]);
  });

  it("removes a person, one who is gone already too, and passes on other failures", async () => {
    cognito
      .on(AdminDeleteUserCommand)
      .resolvesOnce({})
      .rejectsOnce(failure(UserNotFoundException, "gone"));
    await credentials().remove(EMAIL);
    await credentials().remove(EMAIL);
    expect(inputsOf(AdminDeleteUserCommand)).toEqual([
      { UserPoolId: POOL, Username: EMAIL },
      { UserPoolId: POOL, Username: EMAIL },
    ]);
    const down = failure(InternalErrorException, "Cognito is down");
    cognito.on(AdminDeleteUserCommand).rejects(down);
    await expect(credentials().remove(EMAIL)).rejects.toBe(down);
  });
});

describe("Cognito credentials' disabled accounts", () => {
  beforeEach(() => cognito.reset());

  it("reads every page of the pool's people, each disabled one by its email, else its username", async () => {
    cognito
      .on(ListUsersCommand)
      .resolvesOnce({
        Users: [
          {
            Username: "u-1",
            Enabled: false,
            Attributes: [{ Name: "email", Value: " Left@Example.com" }],
          },
          {
            Username: "u-2",
            Enabled: true,
            Attributes: [{ Name: "email", Value: "stays@example.com" }],
          },
        ],
        PaginationToken: "page-2",
      })
      .resolvesOnce({ Users: [{ Username: "Named@Example.com", Enabled: false }] });
    expect(await credentials().disabledAccounts()).toEqual([
      { email: "left@example.com", changedAt: null },
      { email: "named@example.com", changedAt: null },
    ]);
    expect(inputsOf(ListUsersCommand)).toEqual([
      { UserPoolId: POOL, Limit: 60, PaginationToken: undefined },
      { UserPoolId: POOL, Limit: 60, PaginationToken: "page-2" },
    ]);
  });

  it("counts as disabled only a person said to be, named somehow, with when it changed", async () => {
    cognito.on(ListUsersCommand).resolves({
      Users: [
        { Username: "u-1", Attributes: [{ Name: "email", Value: "unsaid@example.com" }] },
        { Enabled: false, Attributes: [{ Name: "phone_number", Value: "+15550100" }] },
        {
          Username: "u-3",
          Enabled: false,
          UserLastModifiedDate: new Date("2026-11-20T10:00:00Z"),
          Attributes: [{ Name: "email", Value: "off@example.com" }],
        },
      ],
    });
    expect(await credentials().disabledAccounts()).toEqual([
      { email: "off@example.com", changedAt: "2026-11-20T10:00:00.000Z" },
    ]);
  });
});
