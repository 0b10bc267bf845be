/**
 * What a function is given, as a typed map from its manifest row's `uses` (./uses.ts) to the
 * adapters each runtime builds for it: a row that uses the apps table gets `tables.apps`, one
 * that uses the events stream `streams.events`, one that unwraps the sealing key `keyrings`.
 * A function's composition (its handler factory called with these) sits beside its handler
 * and is written once for both runtimes; the AWS side builds the adapters of one row from its
 * environment (src/aws/), the embedded runtime builds them all once (src/embedded/runtime.ts),
 * and both call the same composition.
 */
import type { createDynamoStores } from "../adapters/dynamodb/stores.ts";
import type { AppKeyrings } from "../apps/app-keyrings.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import type { FxRates } from "../fx/ecb-rates.ts";
import type { LakeTableName } from "../lake/lake-tables.ts";
import type { App, AppStore } from "../ports/apps.ts";
import type { ClickSink } from "../ports/clicks.ts";
import type { TxtRecords } from "../ports/dns.ts";
import type { CountryResolver } from "../ports/geo.ts";
import type { LakePurger, LakeQueryEngine, RecordStream } from "../ports/lake.ts";
import type { LinkStore } from "../ports/links.ts";
import type { PostbackConfigStore } from "../ports/postbacks.ts";
import type { RatesTable } from "../ports/rates.ts";
import type { ReportEngine } from "../ports/reports.ts";
import type { SearchAds } from "../ports/search-ads.ts";
import type { TouchStore } from "../ports/touches.ts";
import type { Credentials } from "../ports/users.ts";
import type { WorkQueue } from "../ports/work-queue.ts";
import type { WorkerId, WorkerMessage } from "../workers/workers.ts";
import type { Uses } from "./uses.ts";

/** The store behind each DynamoDB table, as both runtimes build it. */
export type TableAdapters = ReturnType<typeof createDynamoStores>;

/** The settings a function reads (./uses.ts, `settings`), parsed. */
export interface FunctionSettings {
  readonly snapshotTtlSeconds: number;
  readonly trustViewerCountry: boolean;
  /** The link host's tap takes the caller's address from CloudFront's viewer-address header. */
  readonly trustViewerAddress: boolean;
  readonly minRequestAgeMs: number;
  /** Postbacks and webhooks may go to loopback addresses: tests' mock partners only. */
  readonly postbacksAllowLoopback: boolean;
}

/** Every adapter a function may be given, by the `uses` key that asks for it. */
export interface AllAdapters {
  readonly tables: TableAdapters;
  readonly streams: Readonly<Record<LakeTableName, RecordStream>>;
  readonly queues: { readonly [W in WorkerId]: WorkQueue<WorkerMessage<W>> };
  /** sealingKey: apps' keyrings, their private keys unwrapped once per app key. */
  readonly keyrings: AppKeyrings;
  /**
   * sealingKey `wrap`: wraps a new app key pair's private key; postbackSecrets: seals and opens
   * configurations' secret values.
   */
  readonly keyWrapper: KeyWrapper;
  /** credentials: dashboard people's passwords. */
  readonly credentials: Credentials;
  /** rates `read`: revenue's exchange rates. */
  readonly fx: FxRates;
  /** rates `write`: the stored rate table, and the one shipped with the service. */
  readonly ratesTable: RatesTable;
  readonly shippedRates: () => Promise<string>;
  /** The ECB's feed of the last 90 days' reference rates. */
  readonly ratesFeed: () => Promise<string>;
  readonly countries: CountryResolver;
  /** queries `export`: the export's query engine over the lake. */
  readonly engine: LakeQueryEngine;
  /** queries `reports`: the dashboard's reports over the lake, briefly cached. */
  readonly reports: ReportEngine;
  /** lake `purge`: the lake's files of deleted installs, and what delivers pending rows first. */
  readonly lakePurger: LakePurger;
  readonly flushLake: () => Promise<void>;
  /** linkHost: the base URL new links name. */
  readonly linkBaseUrl: () => string;
  /**
   * linkHost: the apps' own link hosts the deployment serves (on AWS, the stack's
   * `linkAppHosts`); null where it serves any host it is asked for (the embedded runtime).
   */
  readonly servedLinkHosts: () => readonly string[] | null;
  /** linkHost: the DNS, whose TXT records prove a link host an app's. */
  readonly dns: TxtRecords;
  /** appleAds: Apple's AdServices API. */
  readonly searchAds: SearchAds;
  readonly settings: FunctionSettings;
}

type Has<U, K extends keyof Uses> = U extends { readonly [P in K]: infer A }
  ? [A] extends [undefined]
    ? false
    : true
  : false;
type When<Cond, Shape> = Cond extends true ? Shape : unknown;
type KeysIn<U, K extends "tables" | "streams" | "queues"> = U extends {
  readonly [P in K]: infer A;
}
  ? keyof A
  : never;

/** The adapters of a row that uses `U`: exactly what it names. */
export type Adapters<U extends Uses> = {
  readonly tables: Pick<TableAdapters, KeysIn<U, "tables"> & keyof TableAdapters>;
  readonly streams: Pick<AllAdapters["streams"], KeysIn<U, "streams"> & LakeTableName>;
  readonly queues: Pick<AllAdapters["queues"], KeysIn<U, "queues"> & WorkerId>;
  readonly settings: FunctionSettings;
} & When<Has<U, "sealingKey">, Pick<AllAdapters, "keyrings">> &
  (U extends { readonly sealingKey: "wrap" } ? Pick<AllAdapters, "keyWrapper"> : unknown) &
  When<Has<U, "postbackSecrets">, Pick<AllAdapters, "keyWrapper">> &
  When<Has<U, "credentials">, Pick<AllAdapters, "credentials">> &
  When<Has<U, "countries">, Pick<AllAdapters, "countries">> &
  (U extends { readonly queries: "export" } ? Pick<AllAdapters, "engine"> : unknown) &
  (U extends { readonly queries: "reports" } ? Pick<AllAdapters, "reports"> : unknown) &
  When<Has<U, "lake">, Pick<AllAdapters, "lakePurger" | "flushLake">> &
  When<Has<U, "linkHost">, Pick<AllAdapters, "linkBaseUrl" | "servedLinkHosts" | "dns">> &
  When<Has<U, "appleAds">, Pick<AllAdapters, "searchAds">> &
  (U extends { readonly rates: "read" } ? Pick<AllAdapters, "fx"> : unknown) &
  (U extends { readonly rates: "write" }
    ? Pick<AllAdapters, "ratesTable" | "shippedRates" | "ratesFeed">
    : unknown);

/**
 * How a runtime serves what both run differently: the caches in front of the stores, and the
 * few hooks only one of them has. AWS keeps a short cache per execution environment on the hot
 * paths only; the embedded runtime, the only writer of most tables, reads through one cache
 * per process, which the CLI's changes empty (src/embedded/admin-changes.ts).
 */
export interface Runtime {
  readonly kind: "aws" | "embedded";
  /** Apps read on a hot path (ingestion, taps). */
  hotApps(apps: AppStore): AppStore;
  /** Apps read by the other requests and workers: fresh on AWS. */
  apps(apps: AppStore): AppStore;
  /**
   * Postback and webhook configurations read on every install and event batch (the triggers)
   * and every attempt: a short cache on AWS; embedded, the process's, which changes made
   * through it and the CLI's marks empty.
   */
  hotPostbackConfigs(configs: PostbackConfigStore): PostbackConfigStore;
  /** Links read on a hot path (taps, network touches). */
  hotLinks(links: LinkStore): LinkStore;
  /** Links read and changed by the link API: fresh on AWS. */
  links(links: LinkStore): LinkStore;
  /** Every app, for the `.well-known` files: read at most once a minute. */
  allApps(apps: AppStore): () => Promise<App[]>;
  /**
   * Where a tap's click is written before the tap is answered: on AWS the touch store, whose
   * table's stream feeds the lake (src/touches/tap-lake.ts); embedded, the click log, which
   * writes the touch store and the lake's stream after the answer.
   */
  clicks(touches: TouchStore): ClickSink;
  /** Told of each new deletion request, so a purge can start at once. */
  readonly onDeletionRequested?: () => void;
  /**
   * Told of a change the dashboard made to an app or a key, so this runtime's caches of them
   * forget it (on AWS each execution environment's short caches simply expire).
   */
  readonly onAdminChange?: () => Promise<void>;
  /** Whether session cookies are marked `Secure`: always on AWS (HTTPS only). */
  readonly secureCookies: boolean;
}

/** What a composition needs of its row: its id and what it uses. */
export interface ComposedRow {
  readonly id: string;
  readonly uses: Uses;
}

/** A function's composition: its row, and its handler built from the row's adapters. */
export interface Composition<R extends ComposedRow, H> {
  readonly row: R;
  readonly compose: (adapters: Adapters<R["uses"]>, runtime: Runtime) => H;
}

export const composition = <const R extends ComposedRow, H>(
  row: R,
  compose: (adapters: Adapters<R["uses"]>, runtime: Runtime) => H,
): Composition<R, H> => ({ row, compose });

/**
 * One value shared by the functions that compose it from the same adapters (the three
 * ingestion routes, the four link routes): built once per runtime's adapters.
 */
export const sharedBy = <A extends object, H>(
  build: (adapters: A, runtime: Runtime) => H,
): ((adapters: A, runtime: Runtime) => H) => {
  const built = new WeakMap<object, H>();
  return (adapters, runtime) => {
    let value = built.get(adapters);
    if (value === undefined) {
      value = build(adapters, runtime);
      built.set(adapters, value);
    }
    return value;
  };
};
