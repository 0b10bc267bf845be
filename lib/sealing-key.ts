/**
 * The KMS key that wraps apps' sealing private keys (src/crypto/keyring.ts), and seals the
 * secret values of apps' postback and webhook configurations (src/postbacks/secrets.ts), each
 * under a purpose of its own. Symmetric, rotated yearly by KMS (old versions still decrypt),
 * and kept when the stack goes, like the tables whose wrapped values only it can open. The key
 * policy is CDK's default, which delegates to IAM in this account (the account root), so every
 * use is granted by an IAM policy below, and only for the one purpose the grant names: a role
 * that opens postback secrets cannot unwrap an app's sealing key, nor the other way round.
 */
import { Names, RemovalPolicy } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Key, KeySpec, KeyUsage } from "aws-cdk-lib/aws-kms";
import { Construct } from "constructs";
import { sealingKeyContext } from "../src/crypto/keyring.ts";
import { POSTBACK_SECRET_PURPOSE } from "../src/postbacks/secrets.ts";

/** The `purpose` every sealing key is wrapped under, as the keyring sets it. */
export const SEALING_KEY_PURPOSE: string = (() => {
  const { purpose } = sealingKeyContext({}, "");
  if (purpose === undefined) throw new Error("The keyring names no purpose for sealing keys");
  return purpose;
})();

/** KMS condition: the request's encryption context names this purpose. */
const purposeCondition = (purpose: string) => ({
  StringEquals: { "kms:EncryptionContext:purpose": purpose },
});

export class SealingKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new Key(this, "Key", {
      description: "Wraps the private keys that open apps' sealed values (attribution service)",
      keySpec: KeySpec.SYMMETRIC_DEFAULT,
      keyUsage: KeyUsage.ENCRYPT_DECRYPT,
      enableKeyRotation: true,
      // Deleting it would make every wrapped app key in the (retained) apps table unreadable.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Generated, so two deployments in one account and region never collide; the alias goes
    // with the stack, the key stays.
    this.key.addAlias(`alias/${Names.uniqueResourceName(this, { maxLength: 200 })}`);
  }

  get keyArn(): string {
    return this.key.keyArn;
  }

  /** kms:Decrypt of sealing private keys only: what the ingestion path needs. */
  grantUnwrap(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(this.statement("kms:Decrypt", SEALING_KEY_PURPOSE));
  }

  /** kms:Encrypt of sealing private keys only: what creating an app key pair needs. */
  grantWrap(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(this.statement("kms:Encrypt", SEALING_KEY_PURPOSE));
  }

  /** kms:Decrypt of postback and webhook secrets only: what the postback worker needs. */
  grantOpenPostbackSecrets(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      this.statement("kms:Decrypt", POSTBACK_SECRET_PURPOSE),
    );
  }

  /** kms:Encrypt of postback and webhook secrets only: what saving a configuration needs. */
  grantSealPostbackSecrets(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      this.statement("kms:Encrypt", POSTBACK_SECRET_PURPOSE),
    );
  }

  private statement(action: string, purpose: string): PolicyStatement {
    return new PolicyStatement({
      actions: [action],
      resources: [this.key.keyArn],
      conditions: purposeCondition(purpose),
    });
  }
}
