import type { Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { Lake } from "./lake.ts";
import { propertiesOf, testStack } from "./stack.test-support.ts";

let stack: Stack;
let lake: Lake;
let template: Template;

beforeAll(() => {
  stack = testStack();
  lake = new Lake(stack, "Lake");
  template = Template.fromStack(stack);
});

describe("lake buckets", () => {
  it("encrypts, blocks public access and disables ACLs on every bucket", () => {
    const buckets = Object.values(template.findResources("AWS::S3::Bucket"));
    expect(buckets).toHaveLength(3);
    for (const bucket of buckets) {
      expect(propertiesOf(bucket)).toMatchObject({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } },
          ],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
      });
    }
  });

  it("denies every request without TLS on every bucket", () => {
    for (const bucket of [lake.bucket, lake.resultsBucket, lake.accessLogsBucket]) {
      template.hasResourceProperties("AWS::S3::BucketPolicy", {
        Bucket: stack.resolve(bucket.bucketName),
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: "Deny",
              Action: "s3:*",
              Condition: { Bool: { "aws:SecureTransport": "false" } },
            }),
          ]),
        },
      });
    }
  });

  it("keeps old lake versions for a bounded time and expires Firehose errors", () => {
    template.hasResourceProperties("AWS::S3::Bucket", {
      VersioningConfiguration: { Status: "Enabled" },
      LoggingConfiguration: {
        DestinationBucketName: stack.resolve(lake.accessLogsBucket.bucketName),
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 30 } }),
          Match.objectLike({ Prefix: "firehose-errors/", ExpirationInDays: 30 }),
        ]),
      },
    });
  });

  it("expires Athena results after a week", () => {
    const results = template.findResources("AWS::S3::Bucket", {
      Properties: {
        LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 7 })] },
      },
    });
    expect(Object.keys(results)).toEqual([stack.resolve(lake.resultsBucket.bucketName).Ref]);
  });

  it("keeps the buckets when the stack is deleted", () => {
    for (const bucket of Object.values(template.findResources("AWS::S3::Bucket"))) {
      expect(bucket).toMatchObject({ DeletionPolicy: "Retain" });
    }
  });
});
