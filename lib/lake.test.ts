import type { Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import type { CfnBucket } from "aws-cdk-lib/aws-s3";
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
  it("encrypts, blocks public access and disables ACLs on every bucket but CloudFront's logs'", () => {
    const buckets = template.findResources("AWS::S3::Bucket");
    expect(Object.keys(buckets)).toHaveLength(4);
    const cdnLogs = stack.getLogicalId(lake.cdnLogsBucket.node.defaultChild as CfnBucket);
    for (const [id, bucket] of Object.entries(buckets)) {
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
        // CloudFront's standard logs are delivered by ACL: a bucket without them refuses it.
        OwnershipControls: {
          Rules: [{ ObjectOwnership: id === cdnLogs ? "ObjectWriter" : "BucketOwnerEnforced" }],
        },
      });
    }
  });

  it("denies every request without TLS on every bucket", () => {
    for (const bucket of [
      lake.bucket,
      lake.resultsBucket,
      lake.accessLogsBucket,
      lake.cdnLogsBucket,
    ]) {
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

  it("expires Athena results after a day, the longest an export snapshot serves pages", () => {
    const results = template.findResources("AWS::S3::Bucket", {
      Properties: {
        LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 1 })] },
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
