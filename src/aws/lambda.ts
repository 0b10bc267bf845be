/**
 * A function on AWS: its environment parsed at start-up (so a bad deployment fails on its first
 * cold start, naming the variable), the adapters its row names built by the providers its entry
 * passes (one module per kind of dependency, beside this file), then its composition called
 * once per execution environment. Each function's entry (written by lambdas/entries.ts) is one
 * call of this, or of the wrapper of its kind beside it (a route group's, a worker's, a job's).
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { MiddyfiedHandler } from "@middy/core";
import { cachedAppStore } from "../adapters/cache/cached-apps.ts";
import { cachedLinkStore } from "../adapters/cache/cached-links.ts";
import { cachedPostbackConfigs } from "../adapters/cache/cached-postback-configs.ts";
import { cachedValue } from "../adapters/cache/cached-value.ts";
import { createTxtRecords } from "../adapters/dns/txt-records.ts";
import { DEFAULT_APP_CACHE_MS, DEFAULT_SNAPSHOT_TTL_SECONDS } from "../config/defaults.ts";
import type {
  Adapters,
  ComposedRow,
  Composition,
  FunctionSettings,
  Runtime,
  TableAdapters,
} from "../functions/adapters.ts";
import { functionEnv, tableVariable } from "../functions/env.ts";
import { servedLinkHostsOf } from "../links/app-settings.ts";
import { dynamoDocument } from "./clients.ts";
import { logged } from "./logged.ts";
import { type ParsedEnv, type ProvidedKind, type Provider, variable } from "./provider.ts";

/**
 * A short cache per execution environment on the hot paths (a warm function serves an ad's
 * burst of taps, or an app's burst of events, from memory); fresh reads elsewhere.
 */
export const AWS_RUNTIME: Runtime = {
  kind: "aws",
  hotApps: (apps) => cachedAppStore(apps, DEFAULT_APP_CACHE_MS),
  apps: (apps) => apps,
  hotLinks: (links) => cachedLinkStore(links, DEFAULT_APP_CACHE_MS),
  hotPostbackConfigs: (configs) => cachedPostbackConfigs(configs, DEFAULT_APP_CACHE_MS),
  links: (links) => links,
  // The link host reads every app's link hosts on each tap (whose host a tap came on), so an
  // app taking or giving up a host reaches taps as soon as a link change does; Apple's and
  // Google's fetchers of the `.well-known` files cache them themselves.
  allApps: (apps) => cachedValue(() => apps.list(), DEFAULT_APP_CACHE_MS),
  // The touch store's item is the tap's one write: the touches table's stream feeds the lake
  // (src/touches/tap-lake.ts).
  clicks: (touches) => ({ record: (click) => touches.put([click]) }),
  secureCookies: true,
};

/** A DynamoDB store's factory (the adapter's own `create…`), given the table's name. */
export type StoreFactory<T extends keyof TableAdapters> = (
  doc: DynamoDBDocumentClient,
  table: string,
) => TableAdapters[T];

type TablesOf<R extends ComposedRow> = R["uses"] extends { readonly tables: infer T }
  ? keyof T & keyof TableAdapters
  : never;

/**
 * The providers an entry passes: one for each kind of dependency its row uses, and for its
 * tables the factory of each table's store (so a bundle holds only the stores it reads).
 */
export type Providers<R extends ComposedRow> = {
  readonly [K in Exclude<ProvidedKind, "tables"> as K extends keyof R["uses"]
    ? K
    : never]: Provider;
} & ([TablesOf<R>] extends [never]
  ? unknown
  : { readonly tables: { readonly [T in TablesOf<R>]: StoreFactory<T> } });

const settingsOf = (env: ParsedEnv): FunctionSettings => ({
  snapshotTtlSeconds: Number(env.SNAPSHOT_TTL_SECONDS ?? DEFAULT_SNAPSHOT_TTL_SECONDS),
  trustViewerCountry: env.TRUST_VIEWER_COUNTRY === "true",
  trustViewerAddress: env.TRUST_VIEWER_ADDRESS === "true",
  minRequestAgeMs: Number(env.MIN_REQUEST_AGE_SECONDS ?? 0) * 1000,
  postbacksAllowLoopback: env.POSTBACKS_ALLOW_LOOPBACK === "true",
});

/** The adapters of a row, from its environment and its entry's providers. */
export const awsAdapters = async <R extends ComposedRow>(
  row: R,
  providers: Providers<R>,
): Promise<Adapters<R["uses"]>> => {
  const env: ParsedEnv = functionEnv(row);
  const { tables: factories = {}, ...others } = providers as {
    tables?: Record<string, StoreFactory<keyof TableAdapters>>;
  } & Record<string, Provider>;
  const tables = Object.fromEntries(
    Object.entries(factories).map(([table, create]) => [
      table,
      create(dynamoDocument, variable(env, tableVariable(table))),
    ]),
  );
  const parts = await Promise.all(
    Object.values<Provider>(others).map((provide) => provide(env, row.uses)),
  );
  const linkBaseUrl = env.LINK_BASE_URL;
  const appHosts = servedLinkHostsOf(String(env.LINK_APP_HOSTS ?? ""));
  return Object.assign(
    {
      tables,
      streams: {},
      queues: {},
      settings: settingsOf(env),
      ...(typeof linkBaseUrl === "string"
        ? { linkBaseUrl: () => linkBaseUrl, servedLinkHosts: () => appHosts }
        : {}),
      ...(row.uses.linkHost ? { dns: createTxtRecords() } : {}),
    },
    ...parts,
  ) as unknown as Adapters<R["uses"]>;
};

/** A route's (or the authorizer's) handler on AWS. */
export const lambda = async <R extends ComposedRow, E, T>(
  fn: Composition<R, MiddyfiedHandler<E, T>>,
  providers: Providers<R>,
): Promise<MiddyfiedHandler<E, T>> =>
  logged(fn.compose(await awsAdapters(fn.row, providers), AWS_RUNTIME));
