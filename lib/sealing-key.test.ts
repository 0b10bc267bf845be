import type { Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { beforeAll, describe, expect, it } from "vitest";
import { sealingKeyContext } from "../src/crypto/keyring.ts";
import { POSTBACK_SECRET_PURPOSE } from "../src/postbacks/secrets.ts";
import { SealingKey } from "./sealing-key.ts";
import { isJson, propertiesOf, statementsOfRole, testStack } from "./stack.test-support.ts";

let stack: Stack;
let sealing: SealingKey;
let reader: Role;
let writer: Role;
let postbackWorker: Role;
let postbackSaver: Role;
let template: Template;

beforeAll(() => {
  stack = testStack();
  sealing = new SealingKey(stack, "Sealing");
  const lambda = new ServicePrincipal("lambda.amazonaws.com");
  reader = new Role(stack, "Reader", { assumedBy: lambda });
  writer = new Role(stack, "Writer", { assumedBy: lambda });
  sealing.grantUnwrap(reader);
  sealing.grantWrap(writer);
  postbackWorker = new Role(stack, "PostbackWorker", { assumedBy: lambda });
  postbackSaver = new Role(stack, "PostbackSaver", { assumedBy: lambda });
  sealing.grantOpenPostbackSecrets(postbackWorker);
  sealing.grantSealPostbackSecrets(postbackSaver);
  template = Template.fromStack(stack);
});

const keyResource = () => {
  const keys = Object.values(template.findResources("AWS::KMS::Key"));
  expect(keys).toHaveLength(1);
  return keys[0];
};

const purposeCondition = {
  StringEquals: { "kms:EncryptionContext:purpose": "sealed-value-private-key" },
};

describe("sealing key", () => {
  it("is a symmetric encrypt/decrypt key with yearly rotation", () => {
    expect(propertiesOf(keyResource())).toMatchObject({
      KeySpec: "SYMMETRIC_DEFAULT",
      KeyUsage: "ENCRYPT_DECRYPT",
      EnableKeyRotation: true,
    });
  });

  it("outlives the stack, like the wrapped keys in the apps table", () => {
    expect(keyResource()).toMatchObject({
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
    });
  });

  it("leaves the key policy to the account root, so IAM policies grant every use", () => {
    const policy = propertiesOf(keyResource()).KeyPolicy;
    const statements = isJson(policy) ? policy.Statement : undefined;
    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: "kms:*",
        Principal: {
          AWS: { "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":iam::123456789012:root"]] },
        },
        Resource: "*",
      },
    ]);
  });

  it("has a generated alias, not a literal one", () => {
    const aliases = Object.values(template.findResources("AWS::KMS::Alias")).map(propertiesOf);
    expect(aliases).toHaveLength(1);
    expect(aliases[0]?.AliasName).toMatch(/^alias\/[A-Za-z0-9]+$/);
    expect(aliases[0]?.AliasName).toContain("Sealing");
    expect(aliases[0]?.TargetKeyId).toEqual(stack.resolve(sealing.key.keyArn));
  });

  it("conditions on the purpose the keyring wraps sealing keys under", () => {
    expect(sealingKeyContext({ appId: "a" }, "k").purpose).toBe("sealed-value-private-key");
  });

  it("lets ingestion decrypt sealing keys only, on this key only", () => {
    expect(statementsOfRole(template, reader)).toEqual([
      {
        Effect: "Allow",
        Action: "kms:Decrypt",
        Resource: stack.resolve(sealing.keyArn),
        Condition: purposeCondition,
      },
    ]);
  });

  it("lets whoever creates app keys encrypt sealing keys only", () => {
    expect(statementsOfRole(template, writer)).toEqual([
      {
        Effect: "Allow",
        Action: "kms:Encrypt",
        Resource: stack.resolve(sealing.keyArn),
        Condition: purposeCondition,
      },
    ]);
  });

  it("lets the postback worker decrypt configurations' secrets only, never a sealing key", () => {
    const postbackPurpose = {
      StringEquals: { "kms:EncryptionContext:purpose": POSTBACK_SECRET_PURPOSE },
    };
    expect(POSTBACK_SECRET_PURPOSE).not.toBe("sealed-value-private-key");
    expect(statementsOfRole(template, postbackWorker)).toEqual([
      {
        Effect: "Allow",
        Action: "kms:Decrypt",
        Resource: stack.resolve(sealing.keyArn),
        Condition: postbackPurpose,
      },
    ]);
    expect(statementsOfRole(template, postbackSaver)).toEqual([
      {
        Effect: "Allow",
        Action: "kms:Encrypt",
        Resource: stack.resolve(sealing.keyArn),
        Condition: postbackPurpose,
      },
    ]);
  });
});
