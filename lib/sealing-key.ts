/**
 * The KMS key that wraps apps' sealing private keys (src/crypto/keyring.ts). Symmetric, rotated
 * yearly by KMS (old versions still decrypt), and kept when the stack goes, like the apps table
 * whose wrapped keys only it can open. The key policy is CDK's default, which delegates to IAM
 * in this account (the account root), so every use is granted by an IAM policy below, and
 * only for the encryption context sealing keys are wrapped under.
 */
import { Names, RemovalPolicy } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Key, KeySpec, KeyUsage } from "aws-cdk-lib/aws-kms";
import { Construct } from "constructs";
import { sealingKeyContext } from "../src/crypto/keyring.ts";

/** The `purpose` every sealing key is wrapped under, as the keyring sets it. */
export const SEALING_KEY_PURPOSE = sealingKeyContext({}, "").purpose;

/** KMS condition: the request's encryption context says it wraps a sealing private key. */
const sealingContextCondition = {
  StringEquals: { "kms:EncryptionContext:purpose": SEALING_KEY_PURPOSE },
};

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
    grantee.grantPrincipal.addToPrincipalPolicy(this.statement("kms:Decrypt"));
  }

  /** kms:Encrypt of sealing private keys only: what creating an app key pair needs. */
  grantWrap(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(this.statement("kms:Encrypt"));
  }

  private statement(action: string): PolicyStatement {
    return new PolicyStatement({
      actions: [action],
      resources: [this.key.keyArn],
      conditions: sealingContextCondition,
    });
  }
}
