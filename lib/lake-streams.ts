/**
 * One Firehose delivery stream per lake table. A producer puts newline-delimited JSON records
 * (many events per Firehose record); Firehose splits them, reads each record's `app_id` and its
 * partition day (`lakeDay`, named by the producer), converts the record to Parquet with the Glue table's
 * schema and writes it under `<table>/app_id=<app>/dt=<yyyy-mm-dd>/`, the layout the Glue
 * partition projection and the embedded DuckDB views both expect.
 */
import { type Duration, type Size, Stack } from "aws-cdk-lib";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { CfnDeliveryStream } from "aws-cdk-lib/aws-kinesisfirehose";
import { LogGroup, LogStream, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import {
  errorPrefix,
  type LakeTable,
  type LakeTableName,
  PARTITION_DAY_KEY,
  PARTITION_KEYS,
  perLakeTable,
} from "../src/lake/lake-tables.ts";
import type { Lake } from "./lake.ts";
import { acknowledgeWildcardResource } from "./nag.ts";
import { pascal } from "./naming.ts";
import { DEFAULT_SETTINGS } from "./settings.ts";

/**
 * The JQ query that yields a record's partition keys: its app and the day the Firehose stream
 * (src/adapters/firehose/record-stream.ts) named by `lakeDay`, which bounds the partitions
 * open at once whatever the days of the rows.
 */
export const partitionQuery = (): string => `{app_id: .app_id, dt: .${PARTITION_DAY_KEY}}`;

/** `<table>/app_id=!{partitionKeyFromQuery:app_id}/dt=!{partitionKeyFromQuery:dt}/` */
export const deliveryPrefix = (table: LakeTableName): string =>
  `${table}/${PARTITION_KEYS.map((k) => `${k.name}=!{partitionKeyFromQuery:${k.name}}`).join("/")}/`;

export interface LakeStreamsProps {
  readonly lake: Lake;
  /**
   * How long Firehose buffers before writing a file. Longer means fewer, larger Parquet files
   * (cheaper Athena scans); shorter means fresher exports.
   */
  readonly bufferInterval?: Duration;
  /** How much Firehose buffers before writing a file (at least 64 MiB, for Parquet). */
  readonly bufferSize?: Size;
  readonly logRetention?: RetentionDays;
}

interface Delivery {
  readonly stream: CfnDeliveryStream;
  /** The role Firehose delivers with. */
  readonly role: Role;
}

export class LakeStreams extends Construct {
  readonly streams: Readonly<Record<LakeTableName, CfnDeliveryStream>>;
  readonly roles: Readonly<Record<LakeTableName, Role>>;
  /** How long a record may wait in a stream's buffer before it is written to the lake. */
  readonly bufferInterval: Duration;
  readonly bufferSize: Size;

  constructor(scope: Construct, id: string, props: LakeStreamsProps) {
    super(scope, id);
    this.bufferInterval = props.bufferInterval ?? DEFAULT_SETTINGS.streamBufferInterval;
    this.bufferSize = props.bufferSize ?? DEFAULT_SETTINGS.streamBufferSize;
    const made = perLakeTable((table) => this.delivery(table, props));
    this.streams = perLakeTable((table) => made[table.name].stream);
    this.roles = perLakeTable((table) => made[table.name].role);
  }

  /** PutRecord/PutRecordBatch on one table's stream, for the functions that feed it. */
  grantPutRecords(role: IRole, table: LakeTableName): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["firehose:PutRecord", "firehose:PutRecordBatch"],
        resources: [this.streams[table].attrArn],
      }),
    );
  }

  private delivery(table: LakeTable<LakeTableName>, props: LakeStreamsProps): Delivery {
    const { lake } = props;
    const scope = new Construct(this, pascal(table.name));
    const stack = Stack.of(this);

    const logGroup = new LogGroup(scope, "Logs", {
      retention: props.logRetention ?? DEFAULT_SETTINGS.logRetention,
    });
    const logStream = new LogStream(scope, "DeliveryLogs", { logGroup });

    const role = new Role(scope, "Role", {
      assumedBy: new ServicePrincipal("firehose.amazonaws.com", {
        // Only our account's Firehose may assume it (confused-deputy protection).
        conditions: { StringEquals: { "sts:ExternalId": stack.account } },
      }),
    });
    const objectPrefixes = [`${table.name}/*`, `${errorPrefix(table.name)}*`].map((p) =>
      lake.bucket.arnForObjects(p),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ["s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads"],
        resources: [lake.bucket.bucketArn],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ["s3:AbortMultipartUpload", "s3:GetObject", "s3:PutObject"],
        resources: objectPrefixes,
      }),
    );
    if (lake.hasCatalog) {
      role.addToPolicy(
        new PolicyStatement({
          actions: ["glue:GetTable", "glue:GetTableVersion", "glue:GetTableVersions"],
          resources: lake.catalog.arns([table.name]),
        }),
      );
    }
    logGroup.grantWrite(role);
    for (const resource of objectPrefixes) {
      acknowledgeWildcardResource(
        role,
        resource,
        "Firehose writes objects with generated names, so the grant is scoped to its own table prefix and error prefix in the lake bucket.",
      );
    }

    const glueTable = lake.hasCatalog ? lake.catalog.tables[table.name] : undefined;
    const stream = new CfnDeliveryStream(scope, "Stream", {
      deliveryStreamType: "DirectPut",
      deliveryStreamEncryptionConfigurationInput: { keyType: "AWS_OWNED_CMK" },
      extendedS3DestinationConfiguration: {
        bucketArn: lake.bucket.bucketArn,
        roleArn: role.roleArn,
        prefix: deliveryPrefix(table.name),
        errorOutputPrefix: `${errorPrefix(table.name)}!{firehose:error-output-type}/!{timestamp:yyyy-MM-dd}/`,
        // Parquet conversion and dynamic partitioning both need at least 64 MiB.
        bufferingHints: {
          sizeInMBs: this.bufferSize.toMebibytes(),
          intervalInSeconds: this.bufferInterval.toSeconds(),
        },
        // Parquet pages are compressed by the serializer; the file itself must not be.
        compressionFormat: "UNCOMPRESSED",
        cloudWatchLoggingOptions: {
          enabled: true,
          logGroupName: logGroup.logGroupName,
          logStreamName: logStream.logStreamName,
        },
        dynamicPartitioningConfiguration: {
          enabled: true,
          retryOptions: { durationInSeconds: 300 },
        },
        processingConfiguration: {
          enabled: true,
          processors: [
            {
              // First split a record of newline-delimited JSON into one record per event.
              type: "RecordDeAggregation",
              parameters: [{ parameterName: "SubRecordType", parameterValue: "JSON" }],
            },
            {
              type: "MetadataExtraction",
              parameters: [
                { parameterName: "MetadataExtractionQuery", parameterValue: partitionQuery() },
                { parameterName: "JsonParsingEngine", parameterValue: "JQ-1.6" },
              ],
            },
          ],
        },
        // Without the catalog (lakeQueries false) records land as the JSON they were put as.
        dataFormatConversionConfiguration: glueTable && {
          enabled: true,
          inputFormatConfiguration: { deserializer: { openXJsonSerDe: {} } },
          outputFormatConfiguration: {
            serializer: { parquetSerDe: { compression: "SNAPPY" } },
          },
          schemaConfiguration: {
            catalogId: stack.account,
            region: stack.region,
            databaseName: lake.catalog.databaseName,
            tableName: table.name,
            roleArn: role.roleArn,
            versionId: "LATEST",
          },
        },
      },
    });
    // Firehose checks its role's rights when the stream is created, so the policy goes first.
    stream.node.addDependency(role);
    if (glueTable) stream.addResourceDependency(glueTable);
    return { stream, role };
  }
}
