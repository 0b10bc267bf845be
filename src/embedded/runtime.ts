/**
 * The whole service on one machine: the embedded gateway, DynamoDB-compatible store, delivery
 * streams, lake folder and DuckDB, wired to the same handlers that run on AWS.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { DuckDBInstance } from "@duckdb/node-api";
import { cachedAppStore } from "../adapters/cache/cached-apps.ts";
import { cachedCustomerUserMap } from "../adapters/cache/cached-customer-users.ts";
import { cachedDeletionStore } from "../adapters/cache/cached-deletions.ts";
import { cachedInstallStore } from "../adapters/cache/cached-installs.ts";
import { cachedKeyStore } from "../adapters/cache/cached-keys.ts";
import { cachedSnapshotCatalog } from "../adapters/cache/cached-snapshots.ts";
import { createDuckDbPurger } from "../adapters/duckdb/purge.ts";
import {
  createDuckDbQueryEngine,
  type DuckDbQueryEngine,
} from "../adapters/duckdb/query-engine.ts";
import { createReadWriteLock } from "../adapters/duckdb/read-write-lock.ts";
import { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import { createCountryResolver } from "../adapters/geoip/country-resolver.ts";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import {
  createLocalDeliveryStream,
  type LocalDeliveryStream,
} from "../adapters/local-stream/delivery-stream.ts";
import { fileRatesTable } from "../adapters/rates-file/rates-file.ts";
import { createAppKeyrings } from "../apps/app-keyrings.ts";
import { type EmbeddedConfig, sizeInBytes } from "../config/embedded.ts";
import { purgeOpenRequests } from "../deletion/deletions.ts";
import { type FxRates, loadEcbRates } from "../fx/ecb-rates.ts";
import { ratesFrom } from "../fx/reloading-rates.ts";
import { createAttributionHandler } from "../http/handlers/attribution.ts";
import { createAuthorizerHandler } from "../http/handlers/authorizer.ts";
import { createConfigHandler } from "../http/handlers/config.ts";
import { createDeletionHandlers } from "../http/handlers/deletions.ts";
import { createExportHandler } from "../http/handlers/export.ts";
import { createIngestHandlers } from "../http/handlers/ingest.ts";
import { linkNotFound } from "../http/handlers/link-host.ts";
import { createOpenApiHandler } from "../http/handlers/openapi.ts";
import { LINK_HOST_ROUTES, ROUTES, type RouteId } from "../http/routes.ts";
import { jobOf } from "../jobs/jobs.ts";
import { reapSnapshotEntries } from "../jobs/reap-snapshot-entries.ts";
import { type LakeTableName, perLakeTableAsync } from "../lake/tables.ts";
import type { WORKERS } from "../workers/workers.ts";
import { adminRevision } from "./admin-changes.ts";
import { startAttribution } from "./attribution.ts";
import { cacheAuthorizerAnswers } from "./authorizer-cache.ts";
import { startJob } from "./background-job.ts";
import { dataPaths, removeRuntimeInfo, writeRuntimeInfo } from "./data-dir.ts";
import type { RouteHandler } from "./gateway.ts";
import { listenAll } from "./listeners.ts";
import { type DynamoConnection, LOCAL_TABLE_NAMES, startLocalDynamoDb } from "./local-dynamodb.ts";
import type { QueueWorkers } from "./queue-workers.ts";
import { startRatesRefresh } from "./rates-refresh.ts";
import { startTouches } from "./touches.ts";

/** One delivery stream per lake table. */
export type LakeStreams = Readonly<Record<LakeTableName, LocalDeliveryStream>>;

export interface EmbeddedRuntime {
  readonly url: string;
  /** The link host: links are tapped here. */
  readonly linkUrl: string;
  readonly config: EmbeddedConfig;
  readonly dynamodb: DynamoConnection;
  readonly stores: ReturnType<typeof createDynamoStores>;
  readonly streams: LakeStreams;
  readonly engine: DuckDbQueryEngine;
  readonly workers: QueueWorkers<(typeof WORKERS)[number]>;
  /** The exchange rates ingestion converts revenue with now. */
  readonly fx: FxRates;
  /** Delivers everything the streams accepted to the lake now. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** The lake side alone (streams and DuckDB), for the service and for offline CLI commands. */
/** What the instance serving pages and purges may hold in memory. */
const PAGE_QUERY_MEMORY = "128MB";

/** Snapshots outlive their catalog entry by a grace period, for pages being streamed. */
const snapshotPruneAfterMs = (config: EmbeddedConfig) => 2 * config.snapshotTtlSeconds * 1000;

export const openLake = async (config: EmbeddedConfig) => {
  const paths = dataPaths(config.dataDir);
  await mkdir(paths.lake, { recursive: true });
  // Pages and purges: small slices and streamed rewrites.
  const duckdb = await DuckDBInstance.create(":memory:", {
    memory_limit: PAGE_QUERY_MEMORY,
    temp_directory: paths.duckdbTemp,
    max_temp_directory_size: config.snapshotDisk,
  });
  // Snapshots, on an instance of their own: bounded, so the memory an export takes does not
  // grow with its window (it is made a day at a time, and a large day's sort spills to the
  // data folder), and on one thread, with which DuckDB's join and sort stay within the bound
  // where two threads' buffers do not; pages meanwhile go on on the instance above.
  const snapshotDuckdb = await DuckDBInstance.create(":memory:", {
    threads: "1",
    memory_limit: config.queryMemory,
    temp_directory: paths.duckdbTemp,
    max_temp_directory_size: config.snapshotDisk,
  });
  // Delivery turns write-ahead files into Parquet in the background: on one thread of its own
  // it leaves the other cores to the requests (and to export queries on the first instance).
  const deliveryDuckdb = await DuckDBInstance.create(":memory:", { threads: "1" });
  const streamOptions = {
    duckdb: deliveryDuckdb,
    lakeDir: paths.lake,
    walDir: paths.wal,
    bufferIntervalMs: config.flushIntervalMs,
  };
  const streams: LakeStreams = await perLakeTableAsync((table) =>
    createLocalDeliveryStream({ ...streamOptions, table }),
  );
  // A purge never replaces a lake file while a snapshot is being made from it.
  const lakeFiles = createReadWriteLock();
  const engine = createDuckDbQueryEngine({
    duckdb,
    snapshotDuckdb,
    lakeDir: paths.lake,
    snapshotDir: paths.snapshots,
    pageDir: paths.pages,
    lakeFiles,
    diskBudget: {
      snapshotBytes: sizeInBytes(config.snapshotDisk),
      reserveBytes: sizeInBytes(config.diskReserve),
      pruneAfterMs: snapshotPruneAfterMs(config),
      pruneEveryMs: jobOf("prune-snapshots").embedded.everyMs,
    },
  });
  const purger = createDuckDbPurger({
    duckdb,
    lakeDir: paths.lake,
    snapshotDir: paths.snapshots,
    lakeFiles,
  });
  return {
    streams,
    engine,
    purger,
    flush: async () => {
      await Promise.all(Object.values(streams).map((stream) => stream.flush()));
    },
    close: async () => {
      await Promise.all(Object.values(streams).map((stream) => stream.close()));
      deliveryDuckdb.closeSync();
      duckdb.closeSync();
      snapshotDuckdb.closeSync();
    },
  };
};

/** Imported rates when there are some, else the table shipped with the service. */
const loadRates = async (imported: string) =>
  existsSync(imported) ? loadEcbRates(imported) : loadEcbRates();

export const startEmbeddedRuntime = async (config: EmbeddedConfig): Promise<EmbeddedRuntime> => {
  const paths = dataPaths(config.dataDir);
  await mkdir(config.dataDir, { recursive: true });
  const dynamodb = await startLocalDynamoDb(paths.dynamodb);
  const stored = createDynamoStores(dynamodb.doc, LOCAL_TABLE_NAMES);
  // Every request reads a key, an app, and for an export its snapshot and the app's tombstones.
  // Installs, customer-user mappings, snapshots and deletion requests change only through this
  // process, so they stay in memory; keys and apps are changed by the CLI, which marks the data folder when it does.
  const revision = adminRevision(config.dataDir);
  const stores = {
    ...stored,
    keys: cachedKeyStore(stored.keys, revision.current),
    installs: cachedInstallStore(stored.installs, 100_000),
    customerUsers: cachedCustomerUserMap(stored.customerUsers),
    snapshots: cachedSnapshotCatalog(stored.snapshots, 10_000),
    deletions: cachedDeletionStore(stored.deletions),
  };
  const lake = await openLake(config);

  // Revenue in USD: the data folder's table (imported, or refreshed from the ECB's feed), else
  // the shipped one. A refresh replaces it under ingestion.
  let rates = await loadRates(paths.fxRates);
  const fx = ratesFrom(() => rates);
  const ratesRefresh =
    config.fxFeedUrl === null
      ? undefined
      : startRatesRefresh({
          feedUrl: config.fxFeedUrl,
          table: fileRatesTable(paths.fxRates),
          current: () => rates,
          replace: (next) => {
            rates = next;
          },
        });

  // Ingestion and the authorizer read apps through a short cache; the configuration, fresh.
  const apps = cachedAppStore(stores.apps, config.appCacheMs, { revision: revision.current });
  const countries = await createCountryResolver(config.geoipDatabase, {
    trustViewerCountry: config.trustViewerCountry,
  });
  const attribution = await startAttribution({
    queuesDir: paths.queues,
    stores,
    apps,
    lake: { attributions: lake.streams.attributions, events: lake.streams.events },
    appleAdsUrl: config.appleAdsUrl,
  });
  const ingest = createIngestHandlers({
    ...stores,
    apps,
    events: lake.streams.events,
    countries,
    fx,
    keyrings: createAppKeyrings(createKeyFileWrapper(paths.masterKey)),
    attribution: { store: stores.attributions, queue: attribution.queue },
  });
  let linkBaseUrl = config.linkBaseUrl;
  const touches = startTouches({
    stores,
    apps,
    stream: lake.streams.touches,
    countries,
    cacheMs: config.appCacheMs,
    revision: revision.current,
    linkBaseUrl: () => linkBaseUrl ?? "",
  });
  // Deletions: requested through the API, purged in the background (minutes at most).
  const purge = startJob(
    jobOf("purge"),
    () => purgeOpenRequests({ ...stores, lake: lake.purger, flush: lake.flush }),
    config.purgeIntervalMs,
  );
  const deletions = createDeletionHandlers({
    deletions: stores.deletions,
    onRequested: () => void purge.trigger(),
  });
  const handlers: Record<RouteId, RouteHandler> = {
    config: createConfigHandler(stores),
    "delete-install": deletions.deleteInstall,
    "deletion-status": deletions.deletionStatus,
    installs: ingest.installs,
    events: ingest.events,
    "s2s-events": ingest.s2sEvents,
    export: createExportHandler({
      engine: lake.engine,
      catalog: stores.snapshots,
      deletions: stores.deletions,
      snapshotTtlSeconds: config.snapshotTtlSeconds,
    }),
    attribution: createAttributionHandler({
      apps,
      attributions: stores.attributions,
      deletions: stores.deletions,
    }),
    ...touches.routes,
    openapi: createOpenApiHandler(),
  };
  const authorizer = cacheAuthorizerAnswers(createAuthorizerHandler({ keys: stores.keys, apps }), {
    revision: revision.current,
  });
  // One gateway per row, each on its own port with its own route table.
  const listeners = await listenAll([
    {
      name: "api",
      host: config.host,
      port: config.port,
      gateway: {
        routes: ROUTES.map((route) => ({ route, handler: handlers[route.id] })),
        authorizer,
        // The CLI's changes to keys and apps, seen by every request that arrives after them.
        onRequest: revision.check,
        trustForwardedFor: config.trustProxy,
      },
    },
    {
      name: "links",
      host: config.host,
      port: config.linkPort,
      gateway: {
        routes: LINK_HOST_ROUTES.map((route) => ({ route, handler: touches.linkHost[route.id] })),
        authorizer,
        onRequest: revision.check,
        trustForwardedFor: config.trustProxy,
        notFound: linkNotFound,
      },
    },
  ]);
  const [api, linkListener] = listeners;
  if (!api || !linkListener) throw new Error("the listeners did not start");
  const url = api.url;
  linkBaseUrl ??= linkListener.url;
  await writeRuntimeInfo(config.dataDir, {
    pid: process.pid,
    url,
    linkUrl: linkListener.url,
    dynamodbEndpoint: dynamodb.endpoint,
    trustProxy: config.trustProxy,
  });

  const pruner = startJob(jobOf("prune-snapshots"), () =>
    lake.engine.prune(new Date(Date.now() - snapshotPruneAfterMs(config))),
  );
  const snapshotEntries = startJob(jobOf("reap-snapshot-entries"), () =>
    reapSnapshotEntries({ apps: stores.apps, snapshots: stores.snapshots }),
  );

  return {
    url,
    linkUrl: linkListener.url,
    config,
    dynamodb,
    stores,
    streams: lake.streams,
    engine: lake.engine,
    workers: attribution.workers,
    fx,
    flush: lake.flush,
    async stop() {
      await pruner.stop();
      await snapshotEntries.stop();
      // No new request first, so none can start a purge while the stores close.
      await Promise.all(listeners.map((listening) => listening.close()));
      await purge.stop();
      await touches.stop();
      await ratesRefresh?.stop();
      await attribution.stop();
      await lake.close();
      await dynamodb.close();
      await removeRuntimeInfo(config.dataDir);
    },
  };
};
