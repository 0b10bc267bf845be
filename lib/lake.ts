/**
 * The data lake's storage: the bucket Firehose writes Parquet to, the bucket Athena writes
 * results to, their access-log bucket, and the grants on them; its catalog (the Glue database
 * and tables that describe the Parquet files) is lib/lake-catalog.ts.
 *
 * Encryption is S3-managed (SSE-S3), not KMS: the lake is read by Athena scans of many small
 * objects, and SSE-KMS would add a KMS request per object (cost and throttling), a key policy
 * that Firehose, Athena and the export function must all be wired into, and nothing a reader
 * with S3 access could not already do here, since the same roles would hold kms:Decrypt.
 * Server access logs also require SSE-S3 on their target bucket.
 */
import { Duration, RemovalPolicy } from "aws-cdk-lib";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from "aws-cdk-lib/cx-api";
import { Construct } from "constructs";
import {
  errorPrefix,
  INSTALL_TABLES,
  type LakeTable,
  type LakeTableName,
} from "../src/lake/lake-tables.ts";
import { LakeCatalog } from "./lake-catalog.ts";
import { acknowledgeWildcardResource } from "./nag.ts";

export type { LakeTableName };

/** The ECB rate table the daily rates job keeps, beside the lake tables (no table reads it). */
export const RATES_TABLE_KEY = "reference/ecb-eurofxref-hist.csv";

export interface LakeProps {
  /**
   * Athena results live only as long as an export snapshot may be paged (at most a day): the
   * purge of a deleted install finds a snapshot's files by its catalog entry, which goes when
   * the snapshot expires, and the lifecycle removes what it could not find.
   */
  readonly resultsExpiration?: Duration;
  /** Bounds how long deleted or overwritten lake objects survive, e.g. after a data purge. */
  readonly noncurrentVersionExpiration?: Duration;
  readonly firehoseErrorExpiration?: Duration;
  readonly accessLogExpiration?: Duration;
  /** False: no Glue catalog (lib/settings.ts, lakeQueries). */
  readonly catalog?: boolean;
}

export class Lake extends Construct {
  readonly bucket: Bucket;
  readonly resultsBucket: Bucket;
  readonly accessLogsBucket: Bucket;
  /**
   * The CloudFront distributions' standard logs: CloudFront writes them only to a bucket with
   * ACLs on (it grants its log delivery account by ACL), which no other bucket here has.
   */
  readonly cdnLogsBucket: Bucket;
  readonly #catalog: LakeCatalog | undefined;

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

    this.cdnLogsBucket = new Bucket(this, "CdnLogs", {
      ...secure,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: "cdn-logs/",
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
          expiration: props.resultsExpiration ?? Duration.days(1),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });

    this.#catalog = props.catalog === false ? undefined : new LakeCatalog(this, "Catalog", this);
  }

  /** Whether the lake has its Glue catalog (not with the setting lakeQueries false). */
  get hasCatalog(): boolean {
    return this.#catalog !== undefined;
  }

  /** The Glue database and tables that describe the lake's files. */
  get catalog(): LakeCatalog {
    if (!this.#catalog)
      throw new Error("The lake has no catalog: the stack leaves out lake queries");
    return this.#catalog;
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
   * What the purge job needs in the lake bucket: list the prefixes of the lake tables whose rows
   * name an install, and of their error output (records Firehose could not deliver, which hold
   * installs' rows too), only (the `s3:prefix` condition); read their objects (HeadObject and
   * GetObject), put a rewritten one, and delete an object version by its id (which deletes for
   * good in a versioned bucket, instead of leaving a noncurrent version behind). No plain
   * s3:DeleteObject.
   */
  grantPurgeTables(role: IRole): void {
    const prefixes = INSTALL_TABLES.flatMap((t) => [`${t.name}/`, errorPrefix(t.name)]);
    // Versions, not only current objects: a version left by a run that stopped between its
    // rewrite and its delete still holds the install, and the next run must find it.
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:ListBucketVersions"],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { "s3:prefix": prefixes.map((prefix) => `${prefix}*`) } },
      }),
    );
    const objects = prefixes.map((prefix) => this.bucket.arnForObjects(`${prefix}*`));
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
        "The purge rewrites or deletes any Parquet file of a table, or object of its error output, that holds a deleted install; Firehose names the objects, so the grant is scoped to the table's prefix and its error prefix.",
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
}
