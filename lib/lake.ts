/**
 * The data lake: the bucket Firehose writes Parquet to, the bucket Athena writes results to,
 * their access-log bucket, and the Glue catalog that describes the Parquet files. The Glue
 * columns are derived from src/lake/tables.ts, the one Parquet contract, so Firehose's
 * conversion, Athena and the embedded DuckDB views cannot drift apart.
 *
 * Encryption is S3-managed (SSE-S3), not KMS: the lake is read by Athena scans of many small
 * objects, and SSE-KMS would add a KMS request per object (cost and throttling), a key policy
 * that Firehose, Athena and the export function must all be wired into, and nothing a reader
 * with S3 access could not already do here, since the same roles would hold kms:Decrypt.
 * Server access logs also require SSE-S3 on their target bucket.
 */
import { Duration, Names, RemovalPolicy, Stack } from "aws-cdk-lib";
import { CfnDatabase, CfnTable } from "aws-cdk-lib/aws-glue";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from "aws-cdk-lib/cx-api";
import { Construct } from "constructs";
import { EXCLUSIONS_TABLE } from "../src/adapters/athena/exclusions.ts";
import {
  INSTALL_TABLES,
  LAKE_TABLES,
  type LakeColumn,
  type LakeTable,
  type LakeTableName,
  type LakeType,
  PARTITION_KEYS,
  perLakeTable,
} from "../src/lake/tables.ts";
import { acknowledgeWildcardResource } from "./nag.ts";
import { pascal } from "./naming.ts";

export type { LakeTableName };

const GLUE_TYPES: Record<LakeType, string> = {
  string: "string",
  int: "int",
  double: "double",
  timestamp: "timestamp",
};

/** Glue columns of a lake column list, in order. */
export const glueColumns = (columns: readonly LakeColumn[]): CfnTable.ColumnProperty[] =>
  columns.map((c) => ({ name: c.name, type: GLUE_TYPES[c.type] }));

/**
 * Partition projection per partition key: Athena computes partitions from these rules instead
 * of listing them in Glue, so new app/day folders are queryable the moment Firehose writes
 * them, with no crawler and no MSCK REPAIR. `app_id` is injected: every query names its app,
 * which is also the tenant boundary.
 */
const PROJECTION: Record<string, Record<string, string>> = {
  app_id: { type: "injected" },
  dt: {
    type: "date",
    format: "yyyy-MM-dd",
    // Ingestion accepts event times up to 24 h ahead of the clock, so their day is projected too.
    range: "2020-01-01,NOW+1DAYS",
    interval: "1",
    "interval.unit": "DAYS",
  },
};

/** `app_id=${app_id}/dt=${dt}/`: Hive layout in PARTITION_KEYS order, as Firehose writes it. */
export const partitionPathTemplate = (): string =>
  `${PARTITION_KEYS.map((k) => `${k.name}=\${${k.name}}`).join("/")}/`;

export const projectionParameters = (location: string): Record<string, string> => {
  const parameters: Record<string, string> = {
    "projection.enabled": "true",
    "storage.location.template": `${location}${partitionPathTemplate()}`,
  };
  for (const key of PARTITION_KEYS) {
    const rules = PROJECTION[key.name];
    if (!rules) throw new Error(`No partition projection rule for partition key ${key.name}`);
    for (const [name, value] of Object.entries(rules)) {
      parameters[`projection.${key.name}.${name}`] = value;
    }
  }
  return parameters;
};

/** How Athena reads a table's objects: the lake's Parquet, or text with one value a line. */
const STORAGE_FORMATS = {
  parquet: {
    inputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    outputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    serde: "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
  },
  text: {
    inputFormat: "org.apache.hadoop.mapred.TextInputFormat",
    outputFormat: "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
    serde: "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
  },
} as const;

/** Where Firehose puts records it could not convert or deliver, per table. */
export const errorPrefix = (table: LakeTableName): string => `firehose-errors/${table}/`;

/** The ECB rate table the daily rates job keeps, beside the lake tables (no table reads it). */
export const RATES_TABLE_KEY = "reference/ecb-eurofxref-hist.csv";

export interface LakeProps {
  /** Athena results live only as long as an export snapshot may be paged (at most a day). */
  readonly resultsExpiration?: Duration;
  /** Bounds how long deleted or overwritten lake objects survive, e.g. after a data purge. */
  readonly noncurrentVersionExpiration?: Duration;
  readonly firehoseErrorExpiration?: Duration;
  readonly accessLogExpiration?: Duration;
}

export class Lake extends Construct {
  readonly bucket: Bucket;
  readonly resultsBucket: Bucket;
  readonly accessLogsBucket: Bucket;
  readonly database: CfnDatabase;
  readonly databaseName: string;
  readonly tables: Readonly<Record<LakeTableName, CfnTable>>;
  /** The lists of installs an export leaves out, in the results bucket (exclusions.ts). */
  readonly exclusionsTable: CfnTable;

  constructor(scope: Construct, id: string, props: LakeProps = {}) {
    super(scope, id);
    // Log delivery by bucket policy, not by ACL: ACLs stay disabled (BucketOwnerEnforced)
    // whatever feature flags the app sets.
    this.node.setContext(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true);

    const secure = {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    };

    // The log target itself is not logged (that would loop); cdk-nag S1 accepts a log target.
    this.accessLogsBucket = new Bucket(this, "AccessLogs", {
      ...secure,
      lifecycleRules: [{ expiration: props.accessLogExpiration ?? Duration.days(90) }],
    });

    this.bucket = new Bucket(this, "Bucket", {
      ...secure,
      // Versioning guards the lake against an accidental overwrite or delete; old versions
      // expire so that purged data is really gone within a bounded time.
      versioned: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: "lake/",
      lifecycleRules: [
        {
          noncurrentVersionExpiration: props.noncurrentVersionExpiration ?? Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
          expiredObjectDeleteMarker: true,
        },
        {
          prefix: "firehose-errors/",
          expiration: props.firehoseErrorExpiration ?? Duration.days(30),
        },
      ],
    });

    this.resultsBucket = new Bucket(this, "Results", {
      ...secure,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: "results/",
      lifecycleRules: [
        {
          expiration: props.resultsExpiration ?? Duration.days(7),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });

    const account = Stack.of(this).account;
    // Athena wants lower-case names made of letters, digits and underscores.
    this.databaseName = Names.uniqueResourceName(this, { maxLength: 64, separator: "_" })
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, "_");
    this.database = new CfnDatabase(this, "Database", {
      catalogId: account,
      databaseInput: {
        name: this.databaseName,
        description: "Attribution lake: Parquet written by Firehose, read by Athena.",
      },
    });

    this.tables = perLakeTable((table) => this.glueTable(table));
    this.exclusionsTable = this.exclusionListsTable();
  }

  /** `s3://bucket/<table>/`, the table's location and its Firehose prefix root. */
  tableLocation(table: LakeTableName): string {
    return `s3://${this.bucket.bucketName}/${table}/`;
  }

  /** Read the named lake tables' objects, as an Athena query issued by the role does. */
  grantReadTables(role: IRole, tables: readonly LakeTable[]): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:GetBucketLocation", "s3:ListBucket"],
        resources: [this.bucket.bucketArn],
      }),
    );
    const objects = tables.map((t) => this.bucket.arnForObjects(`${t.name}/*`));
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["s3:GetObject"], resources: objects }),
    );
    for (const resource of objects) {
      acknowledgeWildcardResource(
        role,
        resource,
        "Athena reads every Parquet object of a table's partitions; the grant is read-only and scoped to the table's prefix.",
      );
    }
  }

  /**
   * Read the rate table, and list its key alone, so S3 answers 404 rather than 403 while the
   * job has stored none.
   */
  grantReadRates(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:ListBucket"],
        resources: [this.bucket.bucketArn],
        conditions: { StringEquals: { "s3:prefix": RATES_TABLE_KEY } },
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:GetObject"],
        resources: [this.bucket.arnForObjects(RATES_TABLE_KEY)],
      }),
    );
  }

  /** Read and replace the rate table: the daily rates job. */
  grantWriteRates(role: IRole): void {
    this.grantReadRates(role);
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:PutObject"],
        resources: [this.bucket.arnForObjects(RATES_TABLE_KEY)],
      }),
    );
  }

  /** Read and write query results and snapshots, as Athena does with the caller's rights. */
  grantResults(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads"],
        resources: [this.resultsBucket.bucketArn],
      }),
    );
    const objects = this.resultsBucket.arnForObjects("*");
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          "s3:GetObject",
          "s3:PutObject",
          "s3:DeleteObject",
          "s3:AbortMultipartUpload",
          "s3:ListMultipartUploadParts",
        ],
        resources: [objects],
      }),
    );
    acknowledgeWildcardResource(
      role,
      objects,
      "Athena names each result object after its query id; the results bucket holds nothing but query results, their page checkpoints and the lists of installs exports leave out, all of which expire.",
    );
  }

  /**
   * What the purge job needs in the lake bucket: list the lake tables' prefixes only (the
   * `s3:prefix` condition), read their objects (HeadObject and GetObject), put a rewritten
   * file, and delete an object version by its id (which deletes for good in a versioned
   * bucket, instead of leaving a noncurrent version behind). No plain s3:DeleteObject.
   */
  grantPurgeTables(role: IRole): void {
    // Versions, not only current objects: a version left by a run that stopped between its
    // rewrite and its delete still holds the install, and the next run must find it.
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:ListBucketVersions"],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { "s3:prefix": INSTALL_TABLES.map((t) => `${t.name}/*`) } },
      }),
    );
    const objects = INSTALL_TABLES.map((t) => this.bucket.arnForObjects(`${t.name}/*`));
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:GetObject", "s3:GetObjectVersion", "s3:PutObject", "s3:DeleteObjectVersion"],
        resources: objects,
      }),
    );
    for (const resource of objects) {
      acknowledgeWildcardResource(
        role,
        resource,
        "The purge rewrites or deletes any Parquet file of a table that holds a deleted install; Firehose names the files, so the grant is scoped to the table's prefix.",
      );
    }
  }

  /** Delete query results under a prefix: the purge drops export snapshots. Nothing else. */
  grantDeleteResults(role: IRole, prefix: string): void {
    const objects = this.resultsBucket.arnForObjects(`${prefix}*`);
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["s3:DeleteObject"], resources: [objects] }),
    );
    acknowledgeWildcardResource(
      role,
      objects,
      "Athena names each result object after its query id, so deleting an app's snapshots needs the results prefix; the grant is delete-only (no read or list).",
    );
  }

  /** The Glue catalog, database and lake table ARNs (Glue checks all three). */
  catalogArns(
    tables: readonly (LakeTableName | typeof EXCLUSIONS_TABLE.name)[] = LAKE_TABLES.map(
      (t) => t.name,
    ),
  ): string[] {
    const stack = Stack.of(this);
    const glueArn = (resource: string, resourceName?: string): string =>
      stack.formatArn({ service: "glue", resource, resourceName });
    return [
      glueArn("catalog"),
      glueArn("database", this.databaseName),
      ...tables.map((t) => glueArn("table", `${this.databaseName}/${t}`)),
    ];
  }

  /** Read the catalog entries an export query uses, as Athena planning it does. */
  grantReadCatalog(role: IRole, tables: readonly LakeTable<LakeTableName>[]): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["glue:GetDatabase", "glue:GetTable", "glue:GetTables"],
        resources: this.catalogArns([...tables.map((t) => t.name), EXCLUSIONS_TABLE.name]),
      }),
    );
  }

  private glueTable(table: LakeTable<LakeTableName>): CfnTable {
    const location = this.tableLocation(table.name);
    return this.externalTable(`${pascal(table.name)}Table`, {
      name: table.name,
      location,
      format: "parquet",
      parameters: {
        classification: "parquet",
        "parquet.compression": "SNAPPY",
        ...projectionParameters(location),
      },
      partitionKeys: glueColumns(PARTITION_KEYS),
      columns: glueColumns(table.columns),
    });
  }

  /**
   * One line per service id, in text objects under `exclusions/<list>/` of the results bucket.
   * The list is an injected partition: a query names the one it reads, and Athena reads no
   * other.
   */
  private exclusionListsTable(): CfnTable {
    const { name, prefix, partitionKey, column } = EXCLUSIONS_TABLE;
    const location = `s3://${this.resultsBucket.bucketName}/${prefix}`;
    return this.externalTable("ExclusionListsTable", {
      name,
      location,
      format: "text",
      parameters: {
        classification: "csv",
        "projection.enabled": "true",
        [`projection.${partitionKey}.type`]: "injected",
        "storage.location.template": `${location}\${${partitionKey}}/`,
      },
      partitionKeys: [{ name: partitionKey, type: "string" }],
      columns: [{ name: column, type: "string" }],
    });
  }

  private externalTable(
    id: string,
    table: {
      name: string;
      location: string;
      format: keyof typeof STORAGE_FORMATS;
      parameters: Record<string, string>;
      partitionKeys: CfnTable.ColumnProperty[];
      columns: CfnTable.ColumnProperty[];
    },
  ): CfnTable {
    const format = STORAGE_FORMATS[table.format];
    const glueTable = new CfnTable(this, id, {
      catalogId: Stack.of(this).account,
      databaseName: this.databaseName,
      tableInput: {
        name: table.name,
        tableType: "EXTERNAL_TABLE",
        parameters: { EXTERNAL: "TRUE", ...table.parameters },
        partitionKeys: table.partitionKeys,
        storageDescriptor: {
          columns: table.columns,
          location: table.location,
          inputFormat: format.inputFormat,
          outputFormat: format.outputFormat,
          serdeInfo: {
            serializationLibrary: format.serde,
            parameters: { "serialization.format": "1" },
          },
          compressed: false,
          storedAsSubDirectories: false,
        },
      },
    });
    glueTable.addResourceDependency(this.database);
    return glueTable;
  }
}
