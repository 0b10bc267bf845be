/**
 * Dashboard passwords in a Cognito user pool: the pool keeps them (its password policy,
 * lockout after repeated failures, and its own audit), and the service keeps its users table
 * for who sees which app. A password is checked with the admin flow from the sign-in function,
 * so the dashboard's sign-in form and cookie session are the same on both runtimes, with no
 * hosted page or token in the browser.
 */
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
  type CognitoIdentityProviderClient,
  NotAuthorizedException,
  UserNotFoundException,
  UsernameExistsException,
} from "@aws-sdk/client-cognito-identity-provider";
import type { Credentials } from "../../ports/users.ts";

export interface CognitoCredentialsOptions {
  readonly client: CognitoIdentityProviderClient;
  readonly userPoolId: string;
  /**
   * An app client that allows ADMIN_USER_PASSWORD_AUTH and has no secret: needed to verify a
   * password, not to manage people (the CLI).
   */
  readonly clientId?: string;
}

export const createCognitoCredentials = (options: CognitoCredentialsOptions): Credentials => {
  const { client, userPoolId, clientId } = options;
  return {
    async verify(email, password) {
      if (!clientId) throw new Error("Checking a password needs the user pool's app client id");
      try {
        const answer = await client.send(
          new AdminInitiateAuthCommand({
            UserPoolId: userPoolId,
            ClientId: clientId,
            AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
            AuthParameters: { USERNAME: email, PASSWORD: password },
          }),
        );
        // A challenge (a new password required, MFA) is not a sign-in the service completes.
        return answer.AuthenticationResult !== undefined;
      } catch (error) {
        if (error instanceof NotAuthorizedException || error instanceof UserNotFoundException) {
          return false;
        }
        throw error;
      }
    },
    async set(email, password) {
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
      } catch (error) {
        if (!(error instanceof UsernameExistsException)) throw error;
      }
      await client.send(
        new AdminSetUserPasswordCommand({
          UserPoolId: userPoolId,
          Username: email,
          Password: password,
          Permanent: true,
        }),
      );
    },
    async remove(email) {
      try {
        await client.send(new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: email }));
      } catch (error) {
        if (!(error instanceof UserNotFoundException)) throw error;
      }
    },
  };
};
