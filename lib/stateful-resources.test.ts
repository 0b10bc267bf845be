/**
 * A change that would replace a stateful resource fails here before it reaches a deployment.
 * CloudFormation replaces a resource whose logical id changes, or one of whose properties that
 * cannot change in place: a new, empty table, bucket or queue takes its place (the old one is
 * retained, or gone, and the service no longer reads it), a link host domain or distribution
 * made anew breaks every live ad link, and an API domain made anew every SDK's configured URL. `stateful-resources.json` holds each stateful resource's logical
 * id and those properties; a change meant to replace one (with its data moved, docs/aws.md)
 * updates it with `npx vitest run lib/stateful-resources.test.ts -u`.
 */
import { describe, expect, it } from "vitest";
import { synthServiceStack } from "./stack.test-support.ts";

/** Per stateful type, the properties whose change replaces the resource. */
const REPLACED_BY: Record<string, readonly string[]> = {
  "AWS::DynamoDB::Table": ["TableName", "KeySchema", "LocalSecondaryIndexes"],
  "AWS::S3::Bucket": ["BucketName", "ObjectLockEnabled"],
  // The destination too: a stream pointed at another bucket leaves the lake behind.
  "AWS::KinesisFirehose::DeliveryStream": [
    "DeliveryStreamName",
    "DeliveryStreamType",
    "ExtendedS3DestinationConfiguration.BucketARN",
  ],
  "AWS::KMS::Key": ["KeySpec", "KeyUsage"],
  "AWS::Cognito::UserPool": ["UserPoolName", "UsernameAttributes", "AliasAttributes"],
  "AWS::ApiGatewayV2::DomainName": ["DomainName"],
  // The REST API's domain is the SDKs' configured URL.
  "AWS::ApiGateway::DomainName": ["DomainName"],
  // A distribution made anew has a new name, which the link host's DNS record points at.
  "AWS::CloudFront::Distribution": [],
  "AWS::SQS::Queue": ["QueueName", "FifoQueue"],
};

const at = (value: unknown, path: string): unknown =>
  path
    .split(".")
    .reduce<unknown>(
      (node, key) =>
        typeof node === "object" && node !== null
          ? (node as Record<string, unknown>)[key]
          : undefined,
      value,
    );

describe("stateful resources", () => {
  it("are the ones stateful-resources.json names, none of them replaced", async () => {
    // With the link host's and the API's domains, so that their names are among them.
    const { template } = synthServiceStack({
      settings: {
        linkDomain: {
          name: "go.example.com",
          certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/link-host",
          edgeCertificateArn: "arn:aws:acm:us-east-1:123456789012:certificate/link-host-edge",
        },
        apiDomain: {
          name: "api.example.com",
          certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/api",
        },
      },
    });
    const resources = template.toJSON().Resources as Record<
      string,
      { Type: string; Properties?: unknown }
    >;
    const stateful = Object.fromEntries(
      Object.entries(resources)
        .filter(([, resource]) => resource.Type in REPLACED_BY)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([id, resource]) => [
          id,
          {
            type: resource.Type,
            ...Object.fromEntries(
              (REPLACED_BY[resource.Type] ?? [])
                .map((path) => [path, at(resource.Properties, path)] as const)
                .filter(([, value]) => value !== undefined),
            ),
          },
        ]),
    );
    expect(Object.keys(stateful).length).toBeGreaterThan(20);
    await expect(`${JSON.stringify(stateful, null, 2)}\n`).toMatchFileSnapshot(
      "./stateful-resources.json",
    );
  });
});
