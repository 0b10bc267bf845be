/**
 * The attribution service on AWS: the stores, the lake and its delivery streams, the query
 * workgroup, the key that wraps apps' sealing keys, the API, the link host, the queue-driven
 * attribution worker and its sweep, the scheduled purge of deleted installs and the daily job
 * that keeps the exchange rates current. Each function is given exactly the environment and
 * the grants its manifest row uses (./bindings.ts). The outputs are what the CLI reads.
 */
import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { TABLE_DEFINITIONS, TABLE_IDS } from "../src/adapters/dynamodb/table-definitions.ts";
import { API_FUNCTIONS, type ApiFunctionId, apiFunctionIdOf } from "../src/functions/manifest.ts";
import type { Uses } from "../src/functions/uses.ts";
import { AUTHORIZER, LINK_HOST_ROUTES, type LinkHostRouteId, ROUTES } from "../src/http/routes.ts";
import { AWS_JOBS } from "../src/jobs/jobs.ts";
import { LAKE_TABLES } from "../src/lake/lake-tables.ts";
import { LINK_APP_HOSTS_NONE } from "../src/links/app-settings.ts";
import { TABLE_STREAM_WORKERS } from "../src/workers/table-stream-workers.ts";
import { ATTRIBUTION_WORKER, WORKERS, type WorkerId } from "../src/workers/workers.ts";
import { AttributionApi, type FunctionBinding } from "./api.ts";
import { QueryWorkgroup } from "./athena.ts";
import { AttributionSweep } from "./attribution-sweep.ts";
import { bindingOf, type StackParts } from "./bindings.ts";
import { DashboardSite } from "./dashboard-site.ts";
import { DashboardUsers } from "./dashboard-users.ts";
import { ServiceTables } from "./dynamodb-tables.ts";
import { FxRatesJob } from "./fx-rates-job.ts";
import { Lake } from "./lake.ts";
import { LakeStreams } from "./lake-streams.ts";
import { LinkHost } from "./link-host.ts";
import { pascal } from "./naming.ts";
import { Operations } from "./operations.ts";
import { PurgeJob } from "./purge-job.ts";
import { QueueWorkers } from "./queue-workers.ts";
import { ScheduledJob } from "./scheduled-job.ts";
import { SealingKey } from "./sealing-key.ts";
import type { EntryResolver } from "./service-function.ts";
import { type ReservedConcurrency, type StackSettings, stackSettings } from "./settings.ts";
import { TableStreamWorkers } from "./table-stream-workers.ts";

export { INGEST_DATA } from "./bindings.ts";

/** The ingestion routes' composition: installs, events and s2s events. */
const INGESTION_HANDLERS = "http/handlers/ingest.ts#";

/** What new links name when the stack has no link host (the setting linkHost false). */
export const NO_LINK_HOST_URL = "https://link-host.invalid";

const present = <T>(part: T | undefined, name: string, setting: string): T => {
  if (part === undefined) {
    throw new Error(`The stack has no ${name}: it was made with the setting ${setting} false`);
  }
  return part;
};

/** One binding per row, keyed by its id, each from what the row uses. */
const bindingsOf = <R extends { readonly id: string; readonly uses: StackUses }>(
  rows: readonly R[],
  parts: StackParts,
) =>
  Object.fromEntries(rows.map((row) => [row.id, bindingOf(row.uses, parts)])) as {
    readonly [K in R["id"]]: FunctionBinding;
  };
type StackUses = Parameters<typeof bindingOf>[0];

export interface ServiceStackProps extends StackProps {
  /** The tunables a deployment overrides; the rest keep DEFAULT_SETTINGS (lib/settings.ts). */
  readonly settings?: Partial<StackSettings>;
  /** Where a function's entry is; tests may substitute fixtures. */
  readonly entryFor?: EntryResolver;
}

export class ServiceStack extends Stack {
  readonly tables: ServiceTables;
  readonly lake: Lake;
  readonly ingest: LakeStreams;
  readonly sealingKey: SealingKey;
  readonly api: AttributionApi;
  readonly fxRates: FxRatesJob;
  readonly workers: QueueWorkers<(typeof WORKERS)[number]>;
  readonly tableStreamWorkers: TableStreamWorkers<(typeof TABLE_STREAM_WORKERS)[number]>;
  readonly attributionSweep: AttributionSweep;
  readonly operations: Operations;
  readonly #queries: QueryWorkgroup | undefined;
  readonly #linkHost: LinkHost | undefined;
  readonly #purge: PurgeJob | undefined;
  readonly #dashboardUsers: DashboardUsers | undefined;
  readonly #dashboard: DashboardSite | undefined;

  /** The dashboard's user pool; absent with the setting dashboard false. */
  get dashboardUsers(): DashboardUsers {
    return present(this.#dashboardUsers, "dashboard user pool", "dashboard");
  }

  /** The dashboard's site; absent with the setting dashboard false. */
  get dashboard(): DashboardSite {
    return present(this.#dashboard, "dashboard site", "dashboard");
  }

  /** The Athena workgroup; absent with the setting lakeQueries false. */
  get queries(): QueryWorkgroup {
    return present(this.#queries, "the query workgroup", "lakeQueries");
  }

  /** The link host; absent with the setting linkHost false. */
  get linkHost(): LinkHost {
    return present(this.#linkHost, "the link host", "linkHost");
  }

  /** The purge of deleted installs; absent with the setting lakeQueries false. */
  get purge(): PurgeJob {
    return present(this.#purge, "the purge job", "lakeQueries");
  }

  /**
   * Reserved concurrency (lib/settings.ts): each ingestion function's, the tap's and the
   * attribution worker's. The worker's must cover its event source's maxConcurrency, or Lambda
   * would throttle the pollers SQS scales up to and messages would come back as failures.
   */
  #reserveConcurrency(reserved: ReservedConcurrency): void {
    const worker = ATTRIBUTION_WORKER.maxConcurrency;
    if (reserved.attribution > 0 && reserved.attribution < worker) {
      throw new Error(
        `reservedConcurrency.attribution must be 0 or at least the worker's maxConcurrency (${worker})`,
      );
    }
    for (const route of ROUTES.filter((row) => row.handler.startsWith(INGESTION_HANDLERS))) {
      // A reservation is a function's: in a route group it would be shared with other routes.
      if (apiFunctionIdOf(route.id) !== route.id) {
        throw new Error(
          `${route.id} has its concurrency reserved, so it may not be in a route group`,
        );
      }
      this.api.routeFunctions[route.id]?.reserveConcurrency(reserved.ingest);
    }
    this.#linkHost?.routeFunctions.click.reserveConcurrency(reserved.tap);
    this.workers.workers
      .get(ATTRIBUTION_WORKER.id)
      ?.function.reserveConcurrency(reserved.attribution);
  }

  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);
    const settings = stackSettings(props.settings);
    this.tables = new ServiceTables(this, "Tables");
    this.lake = new Lake(this, "Lake", { catalog: settings.lakeQueries });
    this.ingest = new LakeStreams(this, "Ingest", {
      lake: this.lake,
      bufferInterval: settings.streamBufferInterval,
      bufferSize: settings.streamBufferSize,
      logRetention: settings.logRetention,
    });
    this.#queries = settings.lakeQueries
      ? new QueryWorkgroup(this, "Queries", {
          resultsBucket: this.lake.resultsBucket,
          bytesScannedCutoffPerQuery: settings.bytesScannedCutoffPerQuery,
        })
      : undefined;
    this.sealingKey = new SealingKey(this, "SealingKey");
    this.#dashboardUsers = settings.dashboard
      ? new DashboardUsers(this, "DashboardUsers")
      : undefined;

    const { tables, lake, ingest, sealingKey } = this;
    const queries = this.#queries;
    // Every function's environment and grants come from its manifest row; the parts are what
    // those rows may name, the queues and the link host's URL once they are built.
    const parts: StackParts = {
      tables,
      lake,
      queries,
      streams: ingest,
      sealingKey,
      users: this.#dashboardUsers,
      queue: (worker) => this.workers.queueOf(worker as WorkerId),
      linkBaseUrl: () => this.#linkHost?.baseUrl ?? NO_LINK_HOST_URL,
      linkAppHosts: settings.linkDomain?.appHosts ?? [],
      settings: {
        snapshotTtl: String(settings.snapshotTtl.toSeconds()),
        trustViewerCountry: settings.trustViewerCountry ? "true" : "false",
        postbacksAllowLoopback: settings.postbacksAllowLoopback ? "true" : "false",
        // The link host stands behind its distribution, which nothing reaches around.
        trustViewerAddress: settings.linkHost ? "true" : "false",
      },
    };
    // Queue-driven workers: an SQS queue, a dead-letter queue and a function per row.
    this.workers = new QueueWorkers(this, "Workers", {
      workers: WORKERS,
      // A worker may send to a queue of the set (the postback worker to its own, for later).
      bindings: (queueOf) =>
        bindingsOf(WORKERS, { ...parts, queue: (worker) => queueOf(worker as WorkerId) }),
      entryFor: props.entryFor,
      logRetention: settings.logRetention,
    });
    // Table-stream workers: a function per row, fed by its table's new items.
    this.tableStreamWorkers = new TableStreamWorkers(this, "TableStreamWorkers", {
      workers: TABLE_STREAM_WORKERS,
      bindings: bindingsOf(TABLE_STREAM_WORKERS, parts),
      tables: tables.table,
      entryFor: props.entryFor,
      logRetention: settings.logRetention,
    });
    this.attributionSweep = new AttributionSweep(this, "AttributionSweep", {
      tables,
      queue: this.workers.queueOf("attribute"),
      entryFor: props.entryFor,
      logRetention: settings.logRetention,
    });
    this.#linkHost = settings.linkHost
      ? new LinkHost(this, "LinkHost", {
          routes: bindingsOf<(typeof LINK_HOST_ROUTES)[number]>(LINK_HOST_ROUTES, parts) satisfies {
            readonly [K in LinkHostRouteId]: FunctionBinding;
          },
          domain: settings.linkDomain,
          throttle: settings.linkThrottle,
          webAclArn: settings.edgeWebAclArn,
          logsBucket: lake.cdnLogsBucket,
          entryFor: props.entryFor,
          logRetention: settings.logRetention,
        })
      : undefined;
    // Without lake queries, the functions that query the lake (the export, the reports) are
    // left out with their routes; without the dashboard's user pool, those that check a
    // password (the session routes).
    const functions = bindingsOf(
      API_FUNCTIONS.filter((row) => {
        const uses = row.uses as Uses;
        return (settings.lakeQueries || !uses.queries) && (settings.dashboard || !uses.credentials);
      }),
      parts,
    ) as Readonly<Record<string, FunctionBinding>>;
    this.api = new AttributionApi(this, "Api", {
      authorizer: bindingOf(AUTHORIZER.uses, parts),
      functions: Object.fromEntries(
        API_FUNCTIONS.map((row) => [row.id, functions[row.id] ?? null]),
      ) as { readonly [K in ApiFunctionId]: FunctionBinding | null },
      authorizerCacheTtl: settings.authorizerCacheTtl,
      limits: settings,
      addressRateLimit: settings.addressRateLimit,
      domain: settings.apiDomain,
      logRetention: settings.logRetention,
      entryFor: props.entryFor,
    });

    // What the functions that must never starve keep of the account's concurrency.
    this.#reserveConcurrency(settings.reservedConcurrency);

    // The dashboard's page, and the API behind the same origin.
    this.#dashboard = settings.dashboard
      ? new DashboardSite(this, "Dashboard", {
          api: this.api.api,
          logsBucket: lake.cdnLogsBucket,
          webAclArn: settings.edgeWebAclArn,
          logRetention: settings.logRetention,
        })
      : undefined;

    // Deletion requests are completed on a schedule (lib/purge-job.ts documents the bound).
    // The purge rewrites the lake's Parquet files: none are written without the catalog.
    this.#purge = settings.lakeQueries
      ? new PurgeJob(this, "Purge", {
          tables,
          lake,
          streamBufferInterval: ingest.bufferInterval,
          schedule: settings.purgeSchedule,
          logRetention: settings.logRetention,
          entryFor: props.entryFor,
        })
      : undefined;

    // The rate table that ingestion reads, kept current from the ECB's feed.
    this.fxRates = new FxRatesJob(this, "FxRates", {
      lake,
      schedule: settings.fxRatesSchedule,
      entryFor: props.entryFor,
      logRetention: settings.logRetention,
    });

    // Any other job of the table that runs on AWS: its row is all it needs.
    const built = new Set<string>(["purge", "fx-rates", "attribution-sweep"]);
    for (const job of AWS_JOBS) {
      if (built.has(job.id)) continue;
      // As the routes that check a password: without the dashboard, no user pool to read.
      if (!settings.dashboard && (job.aws.uses as Uses).credentials) continue;
      new ScheduledJob(this, `${pascal(job.id)}Job`, {
        job,
        binding: bindingOf(job.aws.uses, parts),
        entryFor: props.entryFor,
        logRetention: settings.logRetention,
      });
    }

    // Last: its alarms cover every function, table, queue and stream built above.
    this.operations = new Operations(this, "Operations", {
      alarmEmail: settings.alarmEmail,
      alarmTopicArn: settings.alarmTopicArn,
      api: { api: this.api.api, accessLogs: this.api.accessLogs },
      ...(this.#linkHost && {
        linkHost: {
          api: this.#linkHost.api,
          tapLogs: this.#linkHost.routeFunctions.click.function.logGroup,
        },
      }),
      tables: TABLE_IDS.map((id) => tables.table[id]),
      queues: [...this.workers.workers.values()].map((worker) => worker.queue),
      streamWorkers: [...this.tableStreamWorkers.workers.entries()].map(([id, worker]) => ({
        id,
        function: worker.function.function,
        logs: worker.function.function.logGroup,
      })),
      streams: LAKE_TABLES.map((table) => ingest.streams[table.name]),
    });

    const outputs: Record<string, [string, string]> = {
      ApiUrl: [this.api.url, "Base URL of the API (the spec's {base_url})"],
      OperationsDashboardUrl: [
        this.operations.dashboardUrl,
        "CloudWatch dashboard of the stack's alarms (each also sent to the alarm topic)",
      ],
      AlarmTopicArn: [this.operations.topic.topicArn, "SNS topic every alarm sends to"],
      ...(this.#dashboard && {
        DashboardUrl: [
          this.#dashboard.url,
          "The dashboard (and the API behind the same origin)",
        ] as [string, string],
      }),
      ...(this.#dashboardUsers && {
        UserPoolId: [
          this.#dashboardUsers.pool.userPoolId,
          "Cognito user pool of the dashboard's people (attribution users)",
        ] as [string, string],
      }),
      ...(this.#linkHost && {
        LinkHostUrl: [
          this.#linkHost.baseUrl,
          "Base URL of the link host: links are tapped here",
        ] as [string, string],
      }),
      // `none` for none: an output takes no empty value, and an empty setting is an unset one.
      ...(this.#linkHost && {
        LinkAppHosts: [
          (parts.linkAppHosts ?? []).join(",") || LINK_APP_HOSTS_NONE,
          "The apps' own link hosts the link host serves (-c linkAppHosts), or none: an app may name only these",
        ] as [string, string],
      }),
      ...Object.fromEntries(
        TABLE_IDS.map((id) => [
          `${pascal(id)}TableName`,
          [tables.table[id].tableName, `DynamoDB table of ${TABLE_DEFINITIONS[id].holds}`],
        ]),
      ),
      LakeBucketName: [lake.bucket.bucketName, "S3 bucket of the Parquet lake"],
      ResultsBucketName: [lake.resultsBucket.bucketName, "S3 bucket of Athena results"],
      ...(queries && {
        GlueDatabaseName: [lake.catalog.databaseName, "Glue database of the lake tables"] as [
          string,
          string,
        ],
        AthenaWorkGroupName: [queries.workGroupName, "Athena workgroup of export queries"] as [
          string,
          string,
        ],
      }),
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
