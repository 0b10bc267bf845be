/**
 * Dashboard passwords in a Cognito user pool: the pool keeps them (its password policy,
 * lockout after repeated failures, and its own audit), and the service keeps its users table
 * for who sees which app. A password is checked with the admin flow from the sign-in function,
 * so the dashboard's sign-in form and cookie session are the same on both runtimes, with no
 * hosted page or token in the browser.
 *
 * The second factor is Cognito's software token (TOTP). A person who has one is asked for its
 * code (the SOFTWARE_TOKEN_MFA challenge, answered with the challenge's session). A person
 * without one whom the sign-in requires to use one (an admin: the pool's MFA is optional, so
 * Cognito signs them in with tokens) sets one up with the access token of that sign-in:
 * AssociateSoftwareToken gives the secret, VerifySoftwareToken takes its first code, and the
 * person's MFA preference is set to it, so that Cognito asks for it at every sign-in from then
 * on. A pool that requires MFA asks instead with the MFA_SETUP challenge, whose session plays
 * the access token's part and is answered once the code is verified. The state kept between
 * the calls names which of the two it is. The pool's lockout is said as such, not as a wrong
 * password.
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
  type CognitoIdentityProviderClient,
  EnableSoftwareTokenMFAException,
  ExpiredCodeException,
  InvalidPasswordException,
  ListUsersCommand,
  NotAuthorizedException,
  UserNotFoundException,
  UsernameExistsException,
  VerifySoftwareTokenCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { normalEmail } from "../../dashboard/sessions.ts";
import { LOCKED_OUT } from "../../dashboard/sign-in-guard.ts";
import { TOTP_ISSUER } from "../../dashboard/totp.ts";
import { UnauthorizedError, ValidationError } from "../../domain/errors.ts";
import type { CodeCheck, Credentials, DisabledAccount } from "../../ports/users.ts";
import { COGNITO_PASSWORD_RULE } from "./password-policy.ts";

export interface CognitoCredentialsOptions {
  readonly client: CognitoIdentityProviderClient;
  readonly userPoolId: string;
  /**
   * An app client that allows ADMIN_USER_PASSWORD_AUTH and has no secret: needed to verify a
   * password, not to manage people (the CLI).
   */
  readonly clientId?: string;
  /** Whether an admin must use TOTP (true: the dashboard's rule on AWS). */
  readonly adminsNeedTotp?: boolean;
}

/**
 * The state between a sign-in's calls: a challenge's session (`session:`), or the access token
 * of a sign-in that sets up its first TOTP (`token:`).
 */
type State = { readonly kind: "session" | "token"; readonly value: string };

const stateText = (state: State): string => `${state.kind}:${state.value}`;

const stateOf = (text: string): State => {
  const at = text.indexOf(":");
  const kind = text.slice(0, at);
  if (kind !== "session" && kind !== "token") throw new Error("Not a Cognito sign-in's state");
  return { kind, value: text.slice(at + 1) };
};

/**
 * Cognito's lockout: after repeated wrong passwords it refuses the person's sign-ins for a
 * while (from a second, doubling with each further failure, to about 15 minutes), the right
 * password too, with a NotAuthorizedException of this message. Said as a wrong password, the
 * person would keep trying passwords that are right, each lengthening the lockout.
 */

const isLockout = (error: NotAuthorizedException): boolean =>
  /password attempts exceeded/i.test(error.message);

/** The lockout as the dashboard shows it (it shows a refusal that begins so as it is). */
export const COGNITO_LOCKED_OUT = `${LOCKED_OUT} for this account: it is locked for a while, up to 15 minutes, and each further try makes it longer. Try again later.`;

const WRONG: CodeCheck = { outcome: "wrong" };
const EXPIRED: CodeCheck = { outcome: "expired" };
const ACCEPTED: CodeCheck = { outcome: "accepted" };

/**
 * A code Cognito refused: not the code, or one already used or from another step (the person
 * tries the next); a session or token that is spent or too old (the sign-in starts again).
 */
const refusedCode = (error: unknown): CodeCheck => {
  if (
    error instanceof CodeMismatchException ||
    error instanceof ExpiredCodeException ||
    error instanceof EnableSoftwareTokenMFAException
  ) {
    return WRONG;
  }
  if (error instanceof NotAuthorizedException) return EXPIRED;
  throw error;
};

export const createCognitoCredentials = (options: CognitoCredentialsOptions): Credentials => {
  const { client, userPoolId, clientId, adminsNeedTotp = true } = options;
  const appClient = () => {
    if (!clientId) throw new Error("Signing in needs the user pool's app client id");
    return clientId;
  };
  /** The challenge answered (a TOTP code, or a new TOTP verified): a sign-in, or not. */
  const respond = async (
    email: string,
    challenge: "SOFTWARE_TOKEN_MFA" | "MFA_SETUP",
    session: string | undefined,
    responses: Record<string, string> = {},
  ): Promise<CodeCheck> => {
    const answer = await client.send(
      new AdminRespondToAuthChallengeCommand({
        UserPoolId: userPoolId,
        ClientId: appClient(),
        ChallengeName: challenge,
        Session: session,
        ChallengeResponses: { USERNAME: email, ...responses },
      }),
    );
    // Any further challenge is not one the dashboard answers: the sign-in starts again.
    return answer.AuthenticationResult ? ACCEPTED : EXPIRED;
  };
  return {
    adminsNeedTotp,
    async verify(email, password) {
      try {
        const answer = await client.send(
          new AdminInitiateAuthCommand({
            UserPoolId: userPoolId,
            ClientId: appClient(),
            AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
            AuthParameters: { USERNAME: email, PASSWORD: password },
          }),
        );
        const token = answer.AuthenticationResult?.AccessToken;
        if (token)
          return { outcome: "verified", state: stateText({ kind: "token", value: token }) };
        const session = answer.Session ?? "";
        if (answer.ChallengeName === "SOFTWARE_TOKEN_MFA") {
          return {
            outcome: "code",
            step: "totp",
            state: stateText({ kind: "session", value: session }),
          };
        }
        if (answer.ChallengeName === "MFA_SETUP") {
          return {
            outcome: "code",
            step: "totp-setup",
            state: stateText({ kind: "session", value: session }),
          };
        }
        // Another challenge (a new password required, SMS) is not a sign-in the dashboard
        // completes: people are given permanent passwords, and the pool has no SMS.
        return { outcome: "refused" };
      } catch (error) {
        if (error instanceof NotAuthorizedException && isLockout(error)) {
          throw new UnauthorizedError(COGNITO_LOCKED_OUT);
        }
        if (error instanceof NotAuthorizedException || error instanceof UserNotFoundException) {
          return { outcome: "refused" };
        }
        throw error;
      }
    },
    async startTotpSetup(_email, text) {
      const state = stateOf(text);
      const answer = await client.send(
        new AssociateSoftwareTokenCommand(
          state.kind === "token" ? { AccessToken: state.value } : { Session: state.value },
        ),
      );
      if (!answer.SecretCode) throw new Error("Cognito gave no TOTP secret");
      return {
        secret: answer.SecretCode,
        // An access token stays the state; a challenge's session is replaced by the new one.
        state:
          state.kind === "token"
            ? text
            : stateText({ kind: "session", value: answer.Session ?? state.value }),
      };
    },
    async checkCode(email, step, text, code) {
      const state = stateOf(text);
      try {
        if (step === "totp") {
          return await respond(email, "SOFTWARE_TOKEN_MFA", state.value, {
            SOFTWARE_TOKEN_MFA_CODE: code,
          });
        }
        const verified = await client.send(
          new VerifySoftwareTokenCommand({
            ...(state.kind === "token" ? { AccessToken: state.value } : { Session: state.value }),
            UserCode: code,
            FriendlyDeviceName: TOTP_ISSUER,
          }),
        );
        if (verified.Status !== "SUCCESS") return WRONG;
        if (state.kind === "session") return await respond(email, "MFA_SETUP", verified.Session);
        // The pool's MFA is optional: the person's preference makes Cognito ask for it.
        await client.send(
          new AdminSetUserMFAPreferenceCommand({
            UserPoolId: userPoolId,
            Username: email,
            SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true },
          }),
        );
        return ACCEPTED;
      } catch (error) {
        return refusedCode(error);
      }
    },
    async set(email, password) {
      let created = false;
      try {
        await client.send(
          new AdminCreateUserCommand({
            UserPoolId: userPoolId,
            Username: email,
            UserAttributes: [
              { Name: "email", Value: email },
              { Name: "email_verified", Value: "true" },
            ],
            MessageAction: "SUPPRESS",
          }),
        );
        created = true;
      } catch (error) {
        if (!(error instanceof UsernameExistsException)) throw error;
      }
      try {
        await client.send(
          new AdminSetUserPasswordCommand({
            UserPoolId: userPoolId,
            Username: email,
            Password: password,
            Permanent: true,
          }),
        );
      } catch (error) {
        // The pool's policy (lib/dashboard-users.ts) is stricter than the embedded runtime's
        // length rule: said as the password's fault, with the policy, not as a failure.
        if (error instanceof InvalidPasswordException) {
          // A person this call made, without the password they were to have, is not left in
          // the pool: added again with a better one, they start afresh.
          if (created) {
            await client.send(
              new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: email }),
            );
          }
          throw new ValidationError(`password: ${COGNITO_PASSWORD_RULE}`);
        }
        throw error;
      }
    },
    async remove(email) {
      try {
        await client.send(new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: email }));
      } catch (error) {
        if (!(error instanceof UserNotFoundException)) throw error;
      }
    },
    async disabledAccounts() {
      // Every person of the pool, a page (60, Cognito's most) at a time: a dashboard's people
      // are a few pages at most, and each person's `Enabled` is read as it is, with no filter
      // expression to spell. A pool whose people sign in by email names them by a generated
      // username: their email attribute is who they are here.
      const disabled: DisabledAccount[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListUsersCommand({ UserPoolId: userPoolId, Limit: 60, PaginationToken: token }),
        );
        for (const person of page.Users ?? []) {
          if (person.Enabled !== false) continue;
          const email = person.Attributes?.find((attribute) => attribute.Name === "email")?.Value;
          const who = email ?? person.Username;
          if (!who) continue;
          const changedAt = person.UserLastModifiedDate?.toISOString() ?? null;
          disabled.push({ email: normalEmail(who), changedAt });
        }
        token = page.PaginationToken;
      } while (token);
      return disabled;
    },
  };
};
