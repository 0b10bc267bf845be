/**
 * The attribution service on AWS: the stores, the lake and its delivery streams, the query
 * workgroup, the key that wraps apps' sealing keys, the API, the link host, the queue-driven
 * attribution worker and its sweep, the scheduled purge of deleted installs and the daily job
 * that keeps the exchange rates current. Each function is given exactly the environment
 * (src/config/aws-env.ts) and the grants it needs. The outputs are what the CLI reads.
 */
import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { TABLE_DEFINITIONS, TABLE_IDS } from "../src/adapters/dynamodb/tables.ts";
import { defaultCountryDatabase } from "../src/adapters/geoip/country-resolver.ts";
import {
  attributeEnv,
  attributionEnv,
  authorizerEnv,
  configEnv,
  deletionsEnv,
  exportEnv,
  ingestEnv,
  linksEnv,
  openapiEnv,
  touchesEnv,
  wellKnownEnv,
} from "../src/config/aws-env.ts";
import { APPLE_ADSERVICES_URL } from "../src/config/defaults.ts";
import { SHIPPED_ECB_RATES } from "../src/fx/ecb-rates.ts";
import type { RouteId } from "../src/http/routes.ts";
import { EXPORT_TABLES } from "../src/lake/export-query.ts";
import { LAKE_TABLES } from "../src/lake/tables.ts";
import { WORKERS } from "../src/workers/workers.ts";
import { AttributionApi, type FunctionBinding } from "./api.ts";
import { QueryWorkgroup } from "./athena.ts";
import { AttributionSweep } from "./attribution-sweep.ts";
import { envFor } from "./env.ts";
import { FxRatesJob } from "./fx-rates-job.ts";
import { IngestStreams } from "./ingest-stream.ts";
import { Lake, RATES_TABLE_KEY } from "./lake.ts";
import { LinkHost } from "./link-host.ts";
import { pascal } from "./naming.ts";
import { PurgeJob } from "./purge-job.ts";
import { QueueWorkers } from "./queue-workers.ts";
import { SealingKey } from "./sealing-key.ts";
import { bundledPath, type EntryResolver, projectFile } from "./service-function.ts";
import { type StackSettings, stackSettings } from "./settings.ts";
import { ServiceTables } from "./tables.ts";

/**
 * The data files ingestion reads at start-up, the same ones the embedded runtime uses by
 * default: the ECB rate history (data/) and the country database of its registry package.
 */
export const INGEST_DATA = {
  fxRates: projectFile(SHIPPED_ECB_RATES),
  geoip: projectFile(defaultCountryDatabase()),
} as const;

export interface AttributionStackProps extends StackProps {
  /** The tunables a deployment overrides; the rest keep DEFAULT_SETTINGS (lib/settings.ts). */
  readonly settings?: Partial<StackSettings>;
  /** Where `lambdas/<name>.ts` lives; tests may substitute fixtures. */
  readonly entryFor?: EntryResolver;
}

export class AttributionStack extends Stack {
  readonly tables: ServiceTables;
  readonly lake: Lake;
  readonly ingest: IngestStreams;
  readonly queries: QueryWorkgroup;
  readonly sealingKey: SealingKey;
  readonly api: AttributionApi;
  readonly linkHost: LinkHost;
  readonly purge: PurgeJob;
  readonly fxRates: FxRatesJob;
  readonly workers: QueueWorkers<(typeof WORKERS)[number]>;
  readonly attributionSweep: AttributionSweep;

  constructor(scope: Construct, id: string, props: AttributionStackProps = {}) {
    super(scope, id, props);
    const settings = stackSettings(props.settings);
    this.tables = new ServiceTables(this, "Tables");
    this.lake = new Lake(this, "Lake");
    this.ingest = new IngestStreams(this, "Ingest", {
      lake: this.lake,
      bufferInterval: settings.streamBufferInterval,
      bufferSize: settings.streamBufferSize,
      logRetention: settings.logRetention,
    });
    this.queries = new QueryWorkgroup(this, "Queries", {
      resultsBucket: this.lake.resultsBucket,
      bytesScannedCutoffPerQuery: settings.bytesScannedCutoffPerQuery,
    });
    this.sealingKey = new SealingKey(this, "SealingKey");

    const { tables, lake, queries, ingest, sealingKey } = this;
    const authorizer: FunctionBinding = {
      environment: envFor(authorizerEnv, {
        APPS_TABLE: tables.table.apps.tableName,
        KEYS_TABLE: tables.table.keys.tableName,
      }),
      grant: (role) => tables.grantKeyLookup(role),
    };
    // Queue-driven workers: an SQS queue, a dead-letter queue and a function per row.
    this.workers = new QueueWorkers(this, "Workers", {
      workers: WORKERS,
      bindings: {
        attribute: {
          environment: envFor(attributeEnv, {
            APPS_TABLE: tables.table.apps.tableName,
            INSTALLS_TABLE: tables.table.installs.tableName,
            ATTRIBUTIONS_TABLE: tables.table.attributions.tableName,
            TOUCHES_TABLE: tables.table.touches.tableName,
            ATTRIBUTIONS_STREAM: ingest.streams.attributions.ref,
            EVENTS_STREAM: ingest.streams.events.ref,
            DELETIONS_TABLE: tables.table.deletions.tableName,
            APPLE_ADS_URL: APPLE_ADSERVICES_URL,
          }),
          grant: (role) => {
            tables.grantAttributionWork(role);
            tables.grantDeletionLookup(role);
            ingest.grantPutRecords(role, "attributions");
            ingest.grantPutRecords(role, "events");
          },
        },
      },
      entryFor: props.entryFor,
      logRetention: settings.logRetention,
    });

    const attributionQueue = this.workers.queueOf("attribute");
    this.attributionSweep = new AttributionSweep(this, "AttributionSweep", {
      tables,
      queue: attributionQueue,
      entryFor: props.entryFor,
      logRetention: settings.logRetention,
    });

    // The three ingestion routes share one environment and one set of data files.
    const ingestion = (grant: FunctionBinding["grant"]): FunctionBinding => ({
      environment: envFor(ingestEnv, {
        APPS_TABLE: tables.table.apps.tableName,
        INSTALLS_TABLE: tables.table.installs.tableName,
        CUSTOMER_USERS_TABLE: tables.table.customerUsers.tableName,
        EVENTS_STREAM: ingest.streams.events.ref,
        SEALING_KEY_ARN: sealingKey.keyArn,
        FX_RATES_FILE: bundledPath(INGEST_DATA.fxRates),
        FX_RATES_BUCKET: lake.bucket.bucketName,
        FX_RATES_KEY: RATES_TABLE_KEY,
        GEOIP_DB_FILE: bundledPath(INGEST_DATA.geoip),
        DELETIONS_TABLE: tables.table.deletions.tableName,
        TRUST_VIEWER_COUNTRY: settings.trustViewerCountry ? "true" : "false",
        ATTRIBUTIONS_TABLE: tables.table.attributions.tableName,
        ATTRIBUTION_QUEUE_URL: attributionQueue.queueUrl,
      }),
      assets: [INGEST_DATA.fxRates, INGEST_DATA.geoip],
      grant: (role) => {
        tables.grantIngestion(role);
        tables.grantDeletionLookup(role);
        tables.grantAttributionRequests(role);
        attributionQueue.grantSendMessages(role);
        lake.grantReadRates(role);
        grant(role);
      },
    });
    // Events go to the lake and may carry sealed values; installs do neither, so they get
    // neither the stream nor the key.
    const ingestEvents = ingestion((role) => {
      ingest.grantPutRecords(role, "events");
      sealingKey.grantUnwrap(role);
    });
    // Touches, tapped on the link host or reported by a network: one environment for both.
    const touchRecording: FunctionBinding = {
      environment: envFor(touchesEnv, {
        APPS_TABLE: tables.table.apps.tableName,
        LINKS_TABLE: tables.table.links.tableName,
        TOUCHES_TABLE: tables.table.touches.tableName,
        TOUCHES_STREAM: ingest.streams.touches.ref,
        GEOIP_DB_FILE: bundledPath(INGEST_DATA.geoip),
      }),
      assets: [INGEST_DATA.geoip],
      grant: (role) => {
        tables.grantTouchRecording(role);
        ingest.grantPutRecords(role, "touches");
      },
    };
    const wellKnown: FunctionBinding = {
      environment: envFor(wellKnownEnv, { APPS_TABLE: tables.table.apps.tableName }),
      grant: (role) => tables.grantAppListing(role),
    };
    this.linkHost = new LinkHost(this, "LinkHost", {
      routes: {
        click: touchRecording,
        "apple-app-site-association": wellKnown,
        assetlinks: wellKnown,
      },
      domain: settings.linkDomain,
      throttle: settings.linkThrottle,
      entryFor: props.entryFor,
      logRetention: settings.logRetention,
    });
    const links: FunctionBinding = {
      environment: envFor(linksEnv, {
        APPS_TABLE: tables.table.apps.tableName,
        LINKS_TABLE: tables.table.links.tableName,
        LINK_BASE_URL: this.linkHost.baseUrl,
      }),
      grant: (role) => tables.grantLinks(role),
    };
    const routes: { [K in RouteId]: FunctionBinding } = {
      config: {
        environment: envFor(configEnv, { APPS_TABLE: tables.table.apps.tableName }),
        grant: (role) => tables.grantAppLookup(role),
      },
      "delete-install": {
        environment: envFor(deletionsEnv, { DELETIONS_TABLE: tables.table.deletions.tableName }),
        grant: (role) => tables.grantDeletionRequests(role),
      },
      "deletion-status": {
        environment: envFor(deletionsEnv, { DELETIONS_TABLE: tables.table.deletions.tableName }),
        grant: (role) => tables.grantDeletionStatus(role),
      },
      installs: ingestion(() => {}),
      events: ingestEvents,
      "s2s-events": ingestEvents,
      export: {
        environment: envFor(exportEnv, {
          SNAPSHOTS_TABLE: tables.table.snapshots.tableName,
          DELETIONS_TABLE: tables.table.deletions.tableName,
          ATHENA_WORKGROUP: queries.workGroupName,
          GLUE_DATABASE: lake.catalog.databaseName,
          RESULTS_BUCKET: lake.resultsBucket.bucketName,
          SNAPSHOT_TTL_SECONDS: String(settings.snapshotTtl.toSeconds()),
        }),
        grant: (role) => {
          tables.grantSnapshots(role);
          tables.grantTombstones(role);
          queries.grantRunQueries(role);
          lake.catalog.grantRead(role, EXPORT_TABLES);
          lake.grantReadTables(role, EXPORT_TABLES);
          lake.grantResults(role);
        },
      },
      attribution: {
        environment: envFor(attributionEnv, {
          APPS_TABLE: tables.table.apps.tableName,
          ATTRIBUTIONS_TABLE: tables.table.attributions.tableName,
          DELETIONS_TABLE: tables.table.deletions.tableName,
        }),
        grant: (role) => tables.grantAttributionRead(role),
      },
      touches: touchRecording,
      "create-link": links,
      "list-links": links,
      "get-link": links,
      "update-link": links,
      // Public and built from the code: no variable, no grant.
      openapi: { environment: envFor(openapiEnv, {}), grant: () => {} },
    };
    this.api = new AttributionApi(this, "Api", {
      authorizer,
      routes,
      authorizerCacheTtl: settings.authorizerCacheTtl,
      throttle: settings.throttle,
      logRetention: settings.logRetention,
      entryFor: props.entryFor,
    });

    // Deletion requests are completed on a schedule (lib/purge-job.ts documents the bound).
    this.purge = new PurgeJob(this, "Purge", {
      tables,
      lake,
      streamBufferInterval: ingest.bufferInterval,
      schedule: settings.purgeSchedule,
      logRetention: settings.logRetention,
      entryFor: props.entryFor,
    });

    // The rate table that ingestion reads, kept current from the ECB's feed.
    this.fxRates = new FxRatesJob(this, "FxRates", {
      lake,
      shippedRates: INGEST_DATA.fxRates,
      schedule: settings.fxRatesSchedule,
      entryFor: props.entryFor,
      logRetention: settings.logRetention,
    });

    const outputs: Record<string, [string, string]> = {
      ApiUrl: [this.api.url, "Base URL of the API (the spec's {base_url})"],
      LinkHostUrl: [this.linkHost.baseUrl, "Base URL of the link host: links are tapped here"],
      ...Object.fromEntries(
        TABLE_IDS.map((id) => [
          `${pascal(id)}TableName`,
          [tables.table[id].tableName, `DynamoDB table of ${TABLE_DEFINITIONS[id].holds}`],
        ]),
      ),
      LakeBucketName: [lake.bucket.bucketName, "S3 bucket of the Parquet lake"],
      ResultsBucketName: [lake.resultsBucket.bucketName, "S3 bucket of Athena results"],
      GlueDatabaseName: [lake.catalog.databaseName, "Glue database of the lake tables"],
      AthenaWorkGroupName: [queries.workGroupName, "Athena workgroup of export queries"],
      ...Object.fromEntries(
        LAKE_TABLES.map((table) => [
          `${pascal(table.name)}StreamName`,
          [ingest.streams[table.name].ref, `Firehose stream into the ${table.name} table`],
        ]),
      ),
      SealingKeyArn: [
        sealingKey.keyArn,
        "KMS key wrapping apps' sealing private keys: creating an app key pair needs kms:Encrypt on it with the encryption context purpose=sealed-value-private-key",
      ],
    };
    for (const [outputId, [value, description]] of Object.entries(outputs)) {
      new CfnOutput(this, outputId, { value, description });
    }
  }
}
