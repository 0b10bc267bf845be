/**
 * The attribution service on AWS: the stores, the lake and its delivery streams, the query
 * workgroup, and the API whose functions are given exactly the environment
 * (src/config/aws-env.ts) and the grants they need. The outputs are what the CLI reads.
 */
import { CfnOutput, Duration, type Size, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { authorizerEnv, configEnv, exportEnv } from "../src/config/aws-env.ts";
import type { RouteId } from "../src/http/routes.ts";
import { AttributionApi, type FunctionBinding } from "./api.ts";
import { QueryWorkgroup } from "./athena.ts";
import { envFor } from "./env.ts";
import { IngestStreams } from "./ingest-stream.ts";
import { Lake } from "./lake.ts";
import type { EntryResolver } from "./service-function.ts";
import { ServiceTables } from "./tables.ts";

export interface AttributionStackProps extends StackProps {
  /** How long an export snapshot serves pages (SNAPSHOT_TTL_SECONDS, 1 minute to 1 day). */
  readonly snapshotTtl?: Duration;
  readonly authorizerCacheTtl?: Duration;
  readonly bytesScannedCutoffPerQuery?: Size;
  /** Where `lambdas/<name>.ts` lives; tests may substitute fixtures. */
  readonly entryFor?: EntryResolver;
}

export class AttributionStack extends Stack {
  readonly tables: ServiceTables;
  readonly lake: Lake;
  readonly ingest: IngestStreams;
  readonly queries: QueryWorkgroup;
  readonly api: AttributionApi;

  constructor(scope: Construct, id: string, props: AttributionStackProps = {}) {
    super(scope, id, props);
    this.tables = new ServiceTables(this, "Tables");
    this.lake = new Lake(this, "Lake");
    this.ingest = new IngestStreams(this, "Ingest", { lake: this.lake });
    this.queries = new QueryWorkgroup(this, "Queries", {
      resultsBucket: this.lake.resultsBucket,
      bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery,
    });

    const { tables, lake, queries } = this;
    const authorizer: FunctionBinding = {
      environment: envFor(authorizerEnv, {
        APPS_TABLE: tables.apps.tableName,
        KEYS_TABLE: tables.keys.tableName,
      }),
      grant: (role) => tables.grantKeyLookup(role),
    };
    const routes: { [K in RouteId]: FunctionBinding } = {
      config: {
        environment: envFor(configEnv, { APPS_TABLE: tables.apps.tableName }),
        grant: (role) => tables.grantAppLookup(role),
      },
      export: {
        environment: envFor(exportEnv, {
          SNAPSHOTS_TABLE: tables.snapshots.tableName,
          ATHENA_WORKGROUP: queries.workGroupName,
          GLUE_DATABASE: lake.databaseName,
          SNAPSHOT_TTL_SECONDS: String((props.snapshotTtl ?? Duration.minutes(15)).toSeconds()),
        }),
        grant: (role) => {
          tables.grantSnapshots(role);
          queries.grantRunQueries(role);
          lake.grantReadCatalog(role);
          lake.grantReadTables(role);
          lake.grantResults(role);
        },
      },
    };
    this.api = new AttributionApi(this, "Api", {
      authorizer,
      routes,
      authorizerCacheTtl: props.authorizerCacheTtl,
      entryFor: props.entryFor,
    });

    const outputs: Record<string, [string, string]> = {
      ApiUrl: [this.api.url, "Base URL of the API (the spec's {base_url})"],
      AppsTableName: [tables.apps.tableName, "DynamoDB table of apps"],
      KeysTableName: [tables.keys.tableName, "DynamoDB table of API keys"],
      SnapshotsTableName: [tables.snapshots.tableName, "DynamoDB table of export snapshots"],
      LakeBucketName: [lake.bucket.bucketName, "S3 bucket of the Parquet lake"],
      ResultsBucketName: [lake.resultsBucket.bucketName, "S3 bucket of Athena results"],
      GlueDatabaseName: [lake.databaseName, "Glue database of the lake tables"],
      AthenaWorkGroupName: [queries.workGroupName, "Athena workgroup of export queries"],
      EventsStreamName: [this.ingest.streams.events.ref, "Firehose stream into the events table"],
      AttributionsStreamName: [
        this.ingest.streams.attributions.ref,
        "Firehose stream into the attributions table",
      ],
    };
    for (const [outputId, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, outputId, { value, description });
    }
  }
}
