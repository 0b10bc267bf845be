/**
 * The whole service on one machine: the embedded gateway, DynamoDB-compatible store, delivery
 * streams, lake folder and DuckDB, wired to the same handlers that run on AWS.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { DuckDBInstance } from "@duckdb/node-api";
import { createAdServicesClient } from "../adapters/apple/ad-services.ts";
import { cachedAppStore } from "../adapters/cache/cached-apps.ts";
import { cachedCustomerUserMap } from "../adapters/cache/cached-customer-users.ts";
import { cachedDeletionStore } from "../adapters/cache/cached-deletions.ts";
import { cachedInstallStore } from "../adapters/cache/cached-installs.ts";
import { cachedKeyStore } from "../adapters/cache/cached-keys.ts";
import { cachedLinkStore } from "../adapters/cache/cached-links.ts";
import { cachedPostbackConfigs } from "../adapters/cache/cached-postback-configs.ts";
import { cachedReportEngine } from "../adapters/cache/cached-reports.ts";
import { cachedSnapshotCatalog } from "../adapters/cache/cached-snapshots.ts";
import { cachedValue } from "../adapters/cache/cached-value.ts";
import { createTxtRecords } from "../adapters/dns/txt-records.ts";
import { createDuckDbCompactor } from "../adapters/duckdb/compact.ts";
import { createDuckDbPurger } from "../adapters/duckdb/purge.ts";
import {
  createDuckDbQueryEngine,
  type DuckDbQueryEngine,
} from "../adapters/duckdb/query-engine.ts";
import { createReadWriteLock } from "../adapters/duckdb/read-write-lock.ts";
import { createDuckDbReportEngine } from "../adapters/duckdb/reports.ts";
import { createPasswordCredentials } from "../adapters/dynamodb/password-credentials.ts";
import { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import { fetchEcbFeed } from "../adapters/ecb/feed.ts";
import { createCountryResolver } from "../adapters/geoip/country-resolver.ts";
import { createKeyFileWrapper } from "../adapters/key-file/key-file-wrapper.ts";
import { openLocalAttributionStore } from "../adapters/local-attributions/attribution-store.ts";
import { createLocalClickLog, touchReadsAfter } from "../adapters/local-click-log/click-log.ts";
import { openLocalDeliveryLog } from "../adapters/local-delivery-log/delivery-log.ts";
import { openLocalInstallStore } from "../adapters/local-installs/install-store.ts";
import { openLocalOutboxStore } from "../adapters/local-outbox/outbox-store.ts";
import {
  createLocalDeliveryStream,
  type LocalDeliveryStream,
} from "../adapters/local-stream/delivery-stream.ts";
import { openLocalTouchStore } from "../adapters/local-touches/touch-store.ts";
import { fileRatesTable } from "../adapters/rates-file/rates-file.ts";
import { createAppKeyrings } from "../apps/app-keyrings.ts";
import { type EmbeddedConfig, GEOIP_SETTING, sizeInBytes } from "../config/embedded.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { ensureOwner } from "../dashboard/accounts.ts";
import type { AllAdapters, Runtime } from "../functions/adapters.ts";
import { type HttpHandler, loadComposition } from "../functions/compositions.ts";
import { writesForLiveInstalls } from "../functions/uses.ts";
import { type FxRates, loadEcbRates, SHIPPED_ECB_RATES } from "../fx/ecb-rates.ts";
import { ratesFrom } from "../fx/reloading-rates.ts";
import { linkHostRefusal, linkNotFound } from "../http/handlers/link-host.ts";
import { AUTHORIZER, LINK_HOST_ROUTES, ROUTES, type ServiceRoute } from "../http/routes.ts";
import { jobOf } from "../jobs/jobs.ts";
import { type LakeTableName, perLakeTableAsync } from "../lake/lake-tables.ts";
import { logger } from "../logging/logger.ts";
import type { WorkHandler, WorkMessage, WorkQueue } from "../ports/work-queue.ts";
import { touchRow } from "../touches/touch.ts";
import { WORKERS } from "../workers/workers.ts";
import { adminRevision, markAdminChange } from "./admin-changes.ts";
import { cacheAuthorizerAnswers } from "./authorizer-cache.ts";
import { bodyLimitOf } from "./body-limits.ts";
import { dashboardFiles } from "./dashboard.ts";
import {
  clearStarting,
  dataPaths,
  makePrivateDataDir,
  markStarting,
  readRuntimeInfo,
  removeRuntimeInfo,
  startingService,
  writeRuntimeInfo,
} from "./data-dir.ts";
import type { Authorizer } from "./gateway.ts";
import { serveHeldStores } from "./held-stores.ts";
import { createInFlight, type InFlight } from "./in-flight.ts";
import { type EmbeddedJobs, startEmbeddedJobs } from "./jobs.ts";
import { listenAll } from "./listeners.ts";
import {
  type DynamoConnection,
  LOCAL_TABLE_NAMES,
  startLocalDynamoDb,
  TablesHeldError,
} from "./local-dynamodb.ts";
import type { QueueWorkers, WorkerHandlers } from "./queue-workers.ts";
import { startQueueWorkers } from "./queue-workers.ts";
import { ratesRefresh } from "./rates-refresh.ts";

/** One delivery stream per lake table. */
export type LakeStreams = Readonly<Record<LakeTableName, LocalDeliveryStream>>;

export interface EmbeddedRuntime {
  readonly url: string;
  /** The link host: links are tapped here. */
  readonly linkUrl: string;
  /** The owner account made by this start (the first), with its one-time password. */
  readonly owner: { readonly email: string; readonly password: string } | undefined;
  readonly config: EmbeddedConfig;
  readonly dynamodb: DynamoConnection;
  readonly stores: ReturnType<typeof createDynamoStores>;
  readonly streams: LakeStreams;
  readonly engine: DuckDbQueryEngine;
  readonly workers: QueueWorkers<(typeof WORKERS)[number]>;
  /** The exchange rates ingestion converts revenue with now. */
  readonly fx: FxRates;
  /** The key file's wrapper: what seals configurations' secrets (src/postbacks/secrets.ts). */
  readonly keyWrapper: KeyWrapper;
  /** Delivers everything taken so far (the click log's taps, the streams' records) to the lake. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** What the instance serving pages and purges may hold in memory. */
const PAGE_QUERY_MEMORY = "128MB";
/** What a merge of the lake's files may hold: it streams rows from files into one. */
const COMPACTION_MEMORY = "128MB";

/**
 * About the size of a file the lake's compaction writes: a day of a mid-size app (a million
 * or two events) is one file, and a query opens a few files a day at most.
 */
const COMPACTED_FILE_BYTES = 64 * 1024 * 1024;

/** Snapshots outlive their catalog entry by a grace period, for pages being streamed. */
const snapshotPruneAfterMs = (config: EmbeddedConfig) => 2 * config.snapshotTtlSeconds * 1000;

/**
 * Each page reads a snapshot part's footer, which describes every row group of a day: kept
 * once read, so a page parses none. DuckDB reads a file's footer again once the file changes
 * (a purge's rewrite), and snapshot parts never change.
 */
const keepParquetMetadata = async (instance: DuckDBInstance) => {
  const connection = await instance.connect();
  try {
    await connection.run("SET GLOBAL parquet_metadata_cache = true");
  } finally {
    connection.closeSync();
  }
};

/** The lake side alone (streams and DuckDB), for the service and for offline CLI commands. */
export const openLake = async (config: EmbeddedConfig) => {
  const paths = dataPaths(config.dataDir);
  await mkdir(paths.lake, { recursive: true });
  // Pages and purges: small slices and streamed rewrites, one at a time, on one thread: a page
  // is too small for a second thread to pay for the work of sharing it, and the other core
  // meanwhile sends the page before and serves the client that asks for the next.
  const duckdb = await DuckDBInstance.create(":memory:", {
    threads: "1",
    // Each page reads row groups no other page reads (but for one it may share): DuckDB's
    // cache of file blocks would only fill the instance's memory with them.
    enable_external_file_cache: "false",
    memory_limit: PAGE_QUERY_MEMORY,
    temp_directory: paths.duckdbTemp,
    max_temp_directory_size: config.snapshotDisk,
  });
  await keepParquetMetadata(duckdb);
  // Snapshots, on an instance of their own: bounded, so the memory an export takes does not
  // grow with its window (it is made a slice of a day at a time, and a day out of time order,
  // sorted whole, spills to the data folder), and on one thread, with which DuckDB's join and sort stay within the bound
  // where two threads' buffers do not; pages meanwhile go on on the instance above.
  const snapshotDuckdb = await DuckDBInstance.create(":memory:", {
    threads: "1",
    memory_limit: config.queryMemory,
    temp_directory: paths.duckdbTemp,
    max_temp_directory_size: config.snapshotDisk,
  });
  // Delivery turns write-ahead files into Parquet in the background: on one thread of its own
  // it leaves the other cores to the requests (and to export queries on the first instance).
  // Unbounded: a write-ahead file of many days is written to as many partitions at once.
  const deliveryDuckdb = await DuckDBInstance.create(":memory:", { threads: "1" });
  // A purge or a compaction never replaces a lake file while a snapshot is being made from it.
  const lakeFiles = createReadWriteLock();
  // Compaction on an instance of its own, bounded, on one thread, keeping neither footers nor
  // file blocks: those of the thousands of files merged would stay in memory.
  const compactionDuckdb = await DuckDBInstance.create(":memory:", {
    threads: "1",
    memory_limit: COMPACTION_MEMORY,
    enable_external_file_cache: "false",
  });
  const compactor = createDuckDbCompactor({
    duckdb: compactionDuckdb,
    lakeDir: paths.lake,
    lakeFiles,
    targetBytes: COMPACTED_FILE_BYTES,
  });
  // A merge a stop left halfway is finished before anything reads the lake.
  await compactor.recover();
  const streamOptions = {
    duckdb: deliveryDuckdb,
    lakeDir: paths.lake,
    walDir: paths.wal,
    bufferIntervalMs: config.flushIntervalMs,
  };
  const streams: LakeStreams = await perLakeTableAsync((table) =>
    createLocalDeliveryStream({ ...streamOptions, table }),
  );
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
    wholeBelowBytes: sizeInBytes(config.snapshotWholeBelow),
  });
  const purger = createDuckDbPurger({
    duckdb,
    lakeDir: paths.lake,
    snapshotDir: paths.snapshots,
    lakeFiles,
  });
  // Reports on an instance of their own, on every core: a report reads each event of its window
  // once a question (its answer is kept a while), where a snapshot goes a day at a time, and a
  // person waits on it; bounded, above what a 90-day window's grouping holds, and spilling past it.
  const reportsDuckdb = await DuckDBInstance.create(":memory:", {
    threads: String(availableParallelism()),
    memory_limit: config.reportMemory,
    temp_directory: paths.duckdbTemp,
    max_temp_directory_size: config.snapshotDisk,
  });
  const reports = cachedReportEngine(
    createDuckDbReportEngine({ duckdb: reportsDuckdb, lakeDir: paths.lake, lakeFiles }),
  );
  return {
    streams,
    engine,
    reports,
    purger,
    compactor,
    flush: async () => {
      await Promise.all(Object.values(streams).map((stream) => stream.flush()));
    },
    close: async () => {
      await engine.stop();
      await Promise.all(Object.values(streams).map((stream) => stream.close()));
      deliveryDuckdb.closeSync();
      compactionDuckdb.closeSync();
      duckdb.closeSync();
      snapshotDuckdb.closeSync();
      reportsDuckdb.closeSync();
    },
  };
};

/** Imported (or refreshed) rates when there are some, else the table shipped with the service. */
export const loadRates = async (imported: string) =>
  existsSync(imported) ? loadEcbRates(imported) : loadEcbRates();

/** Whether anything answers HTTP at the address, within two seconds. */
const answers = async (url: string): Promise<boolean> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
};

export const startEmbeddedRuntime = async (config: EmbeddedConfig): Promise<EmbeddedRuntime> => {
  // Each store locks its folder to one process: a second service would fail at the first lock
  // with a message naming neither the folder nor the service that holds it. A runtime file left
  // by a service killed outright may name a process id the system has given to another
  // program since: only a service that answers at its address holds the folder.
  const running = await readRuntimeInfo(config.dataDir);
  if (running && running.pid !== process.pid && (await answers(running.url))) {
    throw new Error(
      `A service already runs on ${config.dataDir} (process ${running.pid}, ${running.url}): stop it first, or give this one another --data-dir.`,
    );
  }
  const starting = await startingService(config.dataDir);
  if (starting !== undefined) {
    throw new Error(
      `A service is starting on ${config.dataDir} (process ${starting}): stop it first, or give this one another --data-dir.`,
    );
  }
  const { openToOthers } = await makePrivateDataDir(config.dataDir);
  if (openToOthers) {
    logger.warn(
      `The data folder ${config.dataDir} may be read by other users of this machine (it holds password hashes, keys and every app's data): chmod 700 it.`,
    );
  }
  // Commands wait for this service to listen rather than meet its stores half open.
  await markStarting(config.dataDir);
  try {
    return await openEmbeddedRuntime(config);
  } finally {
    await clearStarting(config.dataDir);
  }
};

/**
 * How long a start waits for the tables a command holds. A command run while no service
 * listens, nor is marked as starting, opens the folder itself for its length: one run straight
 * after `attribution start &`, before the start could mark the folder, holds them a moment.
 */
const TABLES_HELD_WAIT_MS = 15_000;

const openTables = async (path: string): Promise<DynamoConnection> => {
  const deadline = Date.now() + TABLES_HELD_WAIT_MS;
  for (;;) {
    try {
      return await startLocalDynamoDb(path, { thread: true });
    } catch (error) {
      if (!(error instanceof TablesHeldError) || Date.now() >= deadline) throw error;
      await sleep(200);
    }
  }
};

/** The stores, workers and listeners of the service, once the folder is its own. */
const openEmbeddedRuntime = async (config: EmbeddedConfig): Promise<EmbeddedRuntime> => {
  const paths = dataPaths(config.dataDir);
  const dynamodb = await openTables(paths.dynamodb);
  const stored = createDynamoStores(dynamodb.doc, LOCAL_TABLE_NAMES);
  // Every request reads a key, an app, and for an export its snapshot and the app's tombstones.
  // Installs, customer-user mappings, snapshots and deletion requests change only through this
  // process, so they stay in memory; keys and apps are changed by the CLI, which marks the data folder when it does.
  const revision = adminRevision(config.dataDir);
  const lake = await openLake(config);
  // Touches in a store of their own rather than the embedded DynamoDB: a tap's one write.
  const touchStore = await openLocalTouchStore(paths.touches);
  // Installs, attributions, the outbox and the delivery log, each in a store of its own too:
  // every install reads and writes them on its way from its request to its postbacks.
  const installs = await openLocalInstallStore(paths.installs);
  const attributions = await openLocalAttributionStore(paths.attributions);
  const outbox = await openLocalOutboxStore(paths.outbox);
  const deliveryLog = await openLocalDeliveryLog(paths.deliveryLog);
  // Revenue and costs in USD: the data folder's table (imported, or refreshed from the ECB's
  // feed), else the shipped one. A refresh replaces it under ingestion. Read before the click
  // log, which converts the taps it finds left from the last run's.
  let rates = await loadRates(paths.fxRates);
  const fx = ratesFrom(() => rates);
  const ratesTable = fileRatesTable(paths.fxRates);

  // A tap is answered once its click is in the click log; the touch store and the lake's
  // stream are written from the log in batches after the answer, and matching reads touches
  // only once the log is applied up to its start.
  const clickLog = await createLocalClickLog({
    dir: paths.clicks,
    apply: async (clicks) => {
      await Promise.all([
        touchStore.put(clicks),
        lake.streams.touches.put(clicks.map((click) => touchRow(click, fx))),
      ]);
    },
  });

  const stores = {
    ...stored,
    keys: cachedKeyStore(stored.keys, revision.current),
    installs: cachedInstallStore(installs, 100_000),
    customerUsers: cachedCustomerUserMap(stored.customerUsers),
    snapshots: cachedSnapshotCatalog(stored.snapshots, 10_000),
    deletions: cachedDeletionStore(stored.deletions),
    touches: touchReadsAfter(touchStore, clickLog),
    attributions,
    outbox,
    deliveryLog,
    // Read on every install and event batch; changed through this process (and, next, the CLI).
    postbackConfigs: cachedPostbackConfigs(stored.postbackConfigs, config.appCacheMs, {
      revision: revision.current,
    }),
  };
  /** Everything taken so far to the lake: the click log's taps first, then the streams. */
  const flushAll = async () => {
    await clickLog.applied();
    await lake.flush();
  };
  // The requests and jobs that found an install alive and may still write for it: a purge
  // waits for those under way, so none of its rows lands after the purge.
  const installWriters = createInFlight();

  // Requests read apps through a short cache, which the CLI's changes empty; the configuration
  // and the `.well-known` files read them fresh (tables.apps).
  const apps = cachedAppStore(stores.apps, config.appCacheMs, { revision: revision.current });
  // Links change only through this process (the API) or the CLI, whose mark empties the cache.
  const links = cachedLinkStore(stores.links, config.appCacheMs, { revision: revision.current });
  let linkBaseUrl = config.linkBaseUrl;
  const queues: Record<string, WorkQueue<unknown>> = {};
  const keyWrapper = createKeyFileWrapper(paths.masterKey);
  const adapters: AllAdapters = {
    tables: stores,
    streams: lake.streams,
    queues: queues as AllAdapters["queues"],
    keyrings: createAppKeyrings(keyWrapper),
    keyWrapper,
    credentials: createPasswordCredentials(stores.users, {
      adminsNeedTotp: config.dashboardTotp === "admins",
    }),
    fx,
    ratesTable,
    shippedRates: () => readFile(SHIPPED_ECB_RATES, "utf8"),
    ratesFeed: () => fetchEcbFeed(config.fxFeedUrl ?? undefined),
    countries: await createCountryResolver(config.geoipDatabase, {
      trustViewerCountry: config.trustViewerCountry,
      setting: GEOIP_SETTING,
    }),
    engine: lake.engine,
    reports: lake.reports,
    lakePurger: lake.purger,
    flushLake: async () => {
      await installWriters.settled();
      await flushAll();
    },
    // The service's own link host, once its listener is up.
    linkBaseUrl: () => linkBaseUrl ?? "",
    // Its link listener answers whatever host a request names.
    servedLinkHosts: () => null,
    dns: createTxtRecords({ servers: config.dnsServers }),
    searchAds: createAdServicesClient({ url: config.appleAdsUrl }),
    settings: {
      snapshotTtlSeconds: config.snapshotTtlSeconds,
      trustViewerCountry: config.trustViewerCountry,
      // The embedded link host takes a proxy's X-Forwarded-For instead (ATTRIBUTION_TRUST_PROXY).
      trustViewerAddress: false,
      minRequestAgeMs: 0,
      postbacksAllowLoopback: config.postbacksAllowLoopback,
    },
  };
  let jobs: EmbeddedJobs | undefined;
  const runtime: Runtime = {
    kind: "embedded",
    hotApps: () => apps,
    apps: () => apps,
    hotLinks: () => links,
    // The stores' own, cached above.
    hotPostbackConfigs: () => stores.postbackConfigs,
    links: () => links,
    // The CLI changes link settings: its mark reads them again at the next request.
    allApps: (store) => cachedValue(() => store.list(), 60_000, { revision: revision.current }),
    // The click log, whatever store the route was given: the log applies to the one store.
    clicks: () => ({ record: (click) => clickLog.append(click) }),
    // Deletions: requested through the API, purged in the background (minutes at most).
    onDeletionRequested: () => jobs?.trigger("purge"),
    // Marked as the CLI marks its changes: every cache of keys and apps empties at once.
    onAdminChange: () => markAdminChange(config.dataDir),
    // Served over plain HTTP on this machine, where a browser would drop a Secure cookie; a
    // proxy in front that terminates TLS says so in X-Forwarded-Proto (see the handler).
    secureCookies: false,
  };

  // Each worker's queue, for its producers, workers among them (the attribution worker queues
  // postbacks, the postback worker its own later attempts): composed before the queues are
  // open, and started as each opens, they send through a queue once all are.
  let opened: (workers: QueueWorkers<(typeof WORKERS)[number]>) => void = () => {};
  const opening = new Promise<QueueWorkers<(typeof WORKERS)[number]>>((resolve) => {
    opened = resolve;
  });
  for (const worker of WORKERS) {
    queues[worker.id] = {
      send: async (messages, options) =>
        (await opening).queue(worker.id).send(messages as never, options),
    };
  }
  // Queue-driven workers: one consumer per row of the worker table, each its composition.
  const workers = await startQueueWorkers({
    dir: paths.queues,
    workers: WORKERS,
    // Each row's composition is its own worker's (loadComposition checks the row's id), so
    // its handler takes that worker's messages.
    handlers: (await mapRows(WORKERS, async (worker) => {
      const handle = (await loadComposition<WorkHandler<unknown>>(worker)).compose(
        adapters,
        runtime,
      );
      return writesForLiveInstalls(worker.uses)
        ? (message: WorkMessage<unknown>) => installWriters.track(handle(message))
        : handle;
    })) as WorkerHandlers<(typeof WORKERS)[number]>,
  });
  opened(workers);

  jobs = await startEmbeddedJobs({
    adapters,
    runtime,
    pruneSnapshots: () => lake.engine.prune(new Date(Date.now() - snapshotPruneAfterMs(config))),
    compactLake: async () => {
      const merged = await lake.compactor.compact();
      if (merged.partitions > 0) logger.info("lake files merged", { ...merged });
    },
    refreshRates:
      config.fxFeedUrl === null
        ? null
        : ratesRefresh({
            feedUrl: config.fxFeedUrl,
            table: ratesTable,
            current: () => rates,
            replace: (next) => {
              rates = next;
            },
          }),
    everyMs: { purge: config.purgeIntervalMs, "compact-lake": config.compactIntervalMs },
  });

  const authorizerComposition = await loadComposition<Authorizer>(AUTHORIZER);
  const authorizer = cacheAuthorizerAnswers(authorizerComposition.compose(adapters, runtime), {
    revision: revision.current,
  });
  // One gateway per row, each on its own port with its own route table.
  const listeners = await listenAll([
    {
      name: "api",
      host: config.host,
      port: config.port,
      gateway: {
        routes: await composedRoutes(ROUTES, adapters, runtime, installWriters),
        authorizer,
        // The CLI's changes to keys and apps, seen by every request that arrives after them.
        onRequest: revision.check,
        trustProxy: config.trustProxy,
        notFound: await dashboardFiles(),
      },
    },
    {
      name: "links",
      host: config.host,
      port: config.linkPort,
      gateway: {
        routes: await composedRoutes(LINK_HOST_ROUTES, adapters, runtime, installWriters),
        authorizer,
        onRequest: revision.check,
        trustProxy: config.trustProxy,
        notFound: linkNotFound,
        clientErrorPage: linkHostRefusal,
      },
    },
  ]);
  const [api, linkListener] = listeners;
  if (!api || !linkListener) throw new Error("the listeners did not start");
  // The CLI reads the delivery log through this process while it holds the store open.
  const held = await serveHeldStores({ deliveryLog });
  const url = api.url;
  linkBaseUrl ??= linkListener.url;
  await writeRuntimeInfo(config.dataDir, {
    pid: process.pid,
    url,
    linkUrl: linkListener.url,
    linkBaseUrl,
    dynamodbEndpoint: dynamodb.endpoint,
    dynamodbToken: dynamodb.token,
    heldStores: { url: held.url, token: held.token },
    trustProxy: typeof config.trustProxy === "boolean" ? config.trustProxy : [...config.trustProxy],
    postbacksAllowLoopback: config.postbacksAllowLoopback,
  });

  // The first start makes the owner account, whose password is shown this once.
  const owner = await ensureOwner({ users: stores.users, credentials: adapters.credentials });
  return {
    url,
    linkUrl: linkListener.url,
    owner,
    config,
    dynamodb,
    stores,
    streams: lake.streams,
    engine: lake.engine,
    workers,
    fx,
    keyWrapper,
    flush: flushAll,
    async stop() {
      // No new request first, so none can start a purge while the stores close.
      await Promise.all(listeners.map((listening) => listening.close()));
      await held.close();
      // A compaction under way drops the merge it is writing rather than hold the stop up.
      lake.compactor.stop();
      await jobs?.stop();
      await workers.stop();
      await clickLog.close();
      await touchStore.close();
      await installs.close();
      await attributions.close();
      await outbox.close();
      await deliveryLog.close();
      await lake.close();
      await dynamodb.close();
      await removeRuntimeInfo(config.dataDir);
    },
  };
};

/** One value per row of a table, keyed by the row's id. */
const mapRows = async <Row extends { readonly id: string }, V>(
  rows: readonly Row[],
  value: (row: Row) => Promise<V>,
): Promise<{ readonly [K in Row["id"]]: V }> =>
  Object.fromEntries(
    await Promise.all(rows.map(async (row) => [row.id, await value(row)] as const)),
  ) as { readonly [K in Row["id"]]: V };

/**
 * A route table's rows, each with the handler its composition makes and the body it takes
 * (what the gateway reads of a request's body at most).
 */
const composedRoutes = (
  routes: readonly ServiceRoute[],
  adapters: AllAdapters,
  runtime: Runtime,
  installWriters: InFlight,
): Promise<{ route: ServiceRoute; handler: HttpHandler; maxBodyBytes: number }[]> =>
  Promise.all(
    routes.map(async (route) => {
      const handler = (await loadComposition<HttpHandler>(route)).compose(adapters, runtime);
      return {
        route,
        maxBodyBytes: bodyLimitOf(route),
        handler: writesForLiveInstalls(route.uses)
          ? (event, context) => installWriters.track(handler(event, context))
          : handler,
      };
    }),
  );
