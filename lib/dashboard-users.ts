/**
 * The dashboard's people on AWS: a Cognito user pool holds their passwords (its password
 * policy, its lockout after repeated failures), with one app client that allows only the
 * admin password flow, which the sign-in function calls. No one signs themselves up: an admin
 * adds people (`attribution users add`). Who sees which app stays in the users table.
 */
import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { AccountRecovery, Mfa, UserPool, type UserPoolClient } from "aws-cdk-lib/aws-cognito";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { acknowledge } from "./nag.ts";

export class DashboardUsers extends Construct {
  readonly pool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.pool = new UserPool(this, "Pool", {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
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
    });
    acknowledge(
      this.pool,
      "AwsSolutions-COG2",
      "MFA is optional (TOTP): the sign-in function completes only a password sign-in today, and a person with MFA on is asked for the code by Cognito's challenge, which the dashboard does not yet answer.",
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

  /** Checks a password (the sign-in route). */
  grantVerify(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["cognito-idp:AdminInitiateAuth"],
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
