import type { Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { beforeAll, describe, expect, it } from "vitest";
import { LAKE_TABLES } from "../src/lake/lake-tables.ts";
import { Lake } from "./lake.ts";
import { LakeStreams } from "./lake-streams.ts";
import { actionsOf, propertiesOf, statementsOfRole, testStack } from "./stack.test-support.ts";

let stack: Stack;
let lake: Lake;
let ingest: LakeStreams;
let producer: Role;
let template: Template;

beforeAll(() => {
  stack = testStack();
  lake = new Lake(stack, "Lake");
  ingest = new LakeStreams(stack, "Ingest", { lake });
  producer = new Role(stack, "Producer", {
    assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
  });
  ingest.grantPutRecords(producer, "events");
  template = Template.fromStack(stack);
});

describe.each(LAKE_TABLES.map((t) => [t.name]))("delivery stream %s", (name) => {
  const destination = () => {
    const stream = stack.resolve(ingest.streams[name].extendedS3DestinationConfiguration);
    if (typeof stream !== "object" || stream === null) throw new Error("no S3 destination");
    return stream;
  };

  it("is encrypted at rest and logs delivery errors", () => {
    template.hasResourceProperties("AWS::KinesisFirehose::DeliveryStream", {
      DeliveryStreamType: "DirectPut",
      DeliveryStreamEncryptionConfigurationInput: { KeyType: "AWS_OWNED_CMK" },
      ExtendedS3DestinationConfiguration: Match.objectLike({
        BucketARN: stack.resolve(lake.bucket.bucketArn),
        Prefix: Match.stringLikeRegexp(`^${name}/`),
        CloudWatchLoggingOptions: Match.objectLike({ Enabled: true }),
      }),
    });
  });

  it("writes the lake's Hive layout under the table's prefix, errors elsewhere", () => {
    expect(destination()).toMatchObject({
      bucketArn: stack.resolve(lake.bucket.bucketArn),
      prefix: `${name}/app_id=!{partitionKeyFromQuery:app_id}/dt=!{partitionKeyFromQuery:dt}/`,
      errorOutputPrefix: expect.stringMatching(
        new RegExp(`^firehose-errors/${name}/!\\{firehose:error-output-type\\}/`),
      ),
    });
  });

  it("splits multi-event records, then partitions by app and the date column's day", () => {
    expect(destination()).toMatchObject({
      dynamicPartitioningConfiguration: { enabled: true },
      processingConfiguration: {
        enabled: true,
        processors: [
          {
            type: "RecordDeAggregation",
            parameters: [{ parameterName: "SubRecordType", parameterValue: "JSON" }],
          },
          {
            type: "MetadataExtraction",
            parameters: expect.arrayContaining([
              {
                parameterName: "MetadataExtractionQuery",
                parameterValue: "{app_id: .app_id, dt: .partition_dt}",
              },
              { parameterName: "JsonParsingEngine", parameterValue: "JQ-1.6" },
            ]),
          },
        ],
      },
    });
  });

  it("converts JSON to Parquet with the Glue table's schema", () => {
    const stream = ingest.streams[name];
    expect(destination()).toMatchObject({
      compressionFormat: "UNCOMPRESSED",
      dataFormatConversionConfiguration: {
        enabled: true,
        inputFormatConfiguration: { deserializer: { openXJsonSerDe: {} } },
        outputFormatConfiguration: { serializer: { parquetSerDe: { compression: "SNAPPY" } } },
        schemaConfiguration: {
          databaseName: lake.catalog.databaseName,
          tableName: name,
          roleArn: stack.resolve(ingest.roles[name].roleArn),
        },
      },
    });
    const dependsOn = template.toJSON().Resources[stack.resolve(stream.ref).Ref].DependsOn;
    expect(dependsOn).toContain(stack.resolve(lake.catalog.tables[name].ref).Ref);
  });

  it("buffers at least the 64 MiB that conversion and partitioning require", () => {
    const hints = destination().bufferingHints;
    expect(hints.sizeInMBs).toBeGreaterThanOrEqual(64);
    expect(hints.intervalInSeconds).toBeGreaterThanOrEqual(60);
  });

  it("has a role that writes only its own prefixes and reads only its own Glue table", () => {
    const statements = statementsOfRole(template, ingest.roles[name]);
    const objectWrites = statements.filter((s) => actionsOf(s).includes("s3:PutObject"));
    expect(objectWrites).toHaveLength(1);
    expect(stack.resolve(objectWrites[0]?.Resource)).toEqual([
      stack.resolve(lake.bucket.arnForObjects(`${name}/*`)),
      stack.resolve(lake.bucket.arnForObjects(`firehose-errors/${name}/*`)),
    ]);
    const actions = statements.flatMap(actionsOf);
    expect(actions.filter((a) => a.includes("*"))).toEqual([]);
    expect(actions).not.toContain("s3:DeleteObject");
    expect(actions.filter((a) => a.startsWith("glue:")).sort()).toEqual([
      "glue:GetTable",
      "glue:GetTableVersion",
      "glue:GetTableVersions",
    ]);
    const glue = statements.find((s) => actionsOf(s).includes("glue:GetTable"));
    expect(JSON.stringify(glue?.Resource)).toContain(`table/${lake.catalog.databaseName}/${name}`);
    const other = LAKE_TABLES.find((t) => t.name !== name)?.name;
    expect(JSON.stringify(glue?.Resource)).not.toContain(`/${other}`);
  });

  it("may be assumed only by this account's Firehose", () => {
    const roleId = stack.resolve(ingest.roles[name].roleName).Ref;
    expect(propertiesOf(template.toJSON().Resources[roleId])).toMatchObject({
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Principal: { Service: "firehose.amazonaws.com" },
            Condition: { StringEquals: { "sts:ExternalId": "123456789012" } },
          },
        ],
      },
    });
  });
});

describe("grantPutRecords", () => {
  it("lets a producer put records on one stream only", () => {
    const statements = statementsOfRole(template, producer);
    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: ["firehose:PutRecord", "firehose:PutRecordBatch"],
        Resource: stack.resolve(ingest.streams.events.attrArn),
      },
    ]);
  });
});
