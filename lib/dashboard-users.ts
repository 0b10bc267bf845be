/**
 * The dashboard's people on AWS: a Cognito user pool holds their passwords (its password
 * policy, its lockout after repeated failures) and their TOTP authenticators, with one app
 * client that allows only the admin password flow, which the sign-in function calls. No one
 * signs themselves up: an admin adds people (`attribution users add`). Who sees which app
 * stays in the users table.
 *
 * MFA is TOTP only (no SMS) and optional at the pool; the sign-in requires it of every admin
 * (an admin without one sets it up before a session is given, src/dashboard/sessions.ts), and
 * Cognito asks it of everyone who set one up. Required at the pool, it would bind the people
 * who only read their apps' reports too, and CloudFormation does not turn a pool's optional
 * MFA into required in place.
 */
import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { AccountRecovery, Mfa, UserPool, type UserPoolClient } from "aws-cdk-lib/aws-cognito";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { COGNITO_PASSWORD_POLICY } from "../src/adapters/cognito/password-policy.ts";
import { PENDING_SIGN_IN_LIFETIME_MS } from "../src/dashboard/totp.ts";
import { acknowledge } from "./nag.ts";

/**
 * Cognito's tokens serve the sign-in function only while it signs a person in (the dashboard's
 * own session follows), an access token at most while an admin sets up a TOTP: so they last
 * Cognito's shortest.
 */
const COGNITO_TOKEN_LIFETIME = Duration.minutes(5);

export class DashboardUsers extends Construct {
  readonly pool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.pool = new UserPool(this, "Pool", {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      passwordPolicy: { ...COGNITO_PASSWORD_POLICY, tempPasswordValidity: Duration.days(3) },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // People's accounts outlive the stack, as the users table does.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.client = this.pool.addClient("SignIn", {
      authFlows: { adminUserPassword: true },
      generateSecret: false,
      preventUserExistenceErrors: true,
      // A TOTP challenge waits as long as the dashboard's pending sign-in does.
      authSessionValidity: Duration.millis(PENDING_SIGN_IN_LIFETIME_MS),
      accessTokenValidity: COGNITO_TOKEN_LIFETIME,
      idTokenValidity: COGNITO_TOKEN_LIFETIME,
    });
    acknowledge(
      this.pool,
      "AwsSolutions-COG2",
      "MFA (TOTP only) is optional at the pool and required by the sign-in function of every admin, who sets it up before a session is given; Cognito asks it of everyone who set it up. Required at the pool it would bind people who only read reports too, and CloudFormation cannot turn optional MFA into required in place.",
    );
    acknowledge(
      this.pool,
      "AwsSolutions-COG8",
      "Threat protection needs Cognito's Plus plan, a per-user cost; the pool's own lockout after repeated failed sign-ins applies.",
    );
    acknowledge(
      this.pool,
      "AwsSolutions-COG3",
      "Threat protection needs Cognito's Plus plan, a per-user cost; the pool's own lockout after repeated failed sign-ins applies.",
    );
  }

  /**
   * Checks a password and a TOTP code, and turns on a person's new TOTP (the sign-in route).
   * Setting up the TOTP itself (AssociateSoftwareToken, VerifySoftwareToken) is authorized by
   * the sign-in's access token or session, never by IAM.
   */
  grantVerify(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          "cognito-idp:AdminInitiateAuth",
          "cognito-idp:AdminRespondToAuthChallenge",
          "cognito-idp:AdminSetUserMFAPreference",
        ],
        resources: [this.pool.userPoolArn],
      }),
    );
  }

  /** Lists the pool's people, whose `Enabled` says who was disabled there. */
  grantList(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["cognito-idp:ListUsers"],
        resources: [this.pool.userPoolArn],
      }),
    );
  }

  /** Adds people, sets and removes their passwords (the users routes and CLI). */
  grantManage(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          "cognito-idp:AdminCreateUser",
          "cognito-idp:AdminSetUserPassword",
          "cognito-idp:AdminDeleteUser",
        ],
        resources: [this.pool.userPoolArn],
      }),
    );
  }
}
