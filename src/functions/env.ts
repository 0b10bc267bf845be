/**
 * A function's environment, derived from what its manifest row uses (./uses.ts): the contract
 * between the CDK app, which sets exactly these names (lib/bindings.ts), and the Lambda entry,
 * which parses them once at start-up and fails fast on a bad one. A table is `<TABLE>_TABLE`,
 * a stream `<TABLE>_STREAM`, a worker's queue `<WORKER>_QUEUE_URL`; the rest are listed below.
 */
import * as z from "zod";
import { APPLE_ADSERVICES_URL, DEFAULT_SNAPSHOT_TTL_SECONDS } from "../config/defaults.ts";
import { parseEnv } from "../config/parse-env.ts";
import type { FunctionSetting, Uses } from "./uses.ts";

const name = z.string().min(1);
const absolutePath = z.string().startsWith("/", { error: "must be an absolute path" });

/** `customerUsers` → `CUSTOMER_USERS`. */
type Constant<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends "-" ? "_" : H extends Lowercase<H> ? Uppercase<H> : `_${H}`}${Constant<T>}`
  : "";

export const constantCase = (id: string): string =>
  id
    .replaceAll("-", "_")
    .replace(/[A-Z]/g, (letter) => `_${letter}`)
    .toUpperCase();

/**
 * The queue URL variable of a worker. The attribution worker's predates the rule and keeps its
 * name, which deployed functions and their tests read.
 */
const QUEUE_URL_NAMES: Readonly<Record<string, string>> = { attribute: "ATTRIBUTION_QUEUE_URL" };
type QueueUrlName<W extends string> = W extends "attribute"
  ? "ATTRIBUTION_QUEUE_URL"
  : `${Constant<W>}_QUEUE_URL`;
export const queueUrlName = (worker: string): string =>
  QUEUE_URL_NAMES[worker] ?? `${constantCase(worker)}_QUEUE_URL`;

export const tableVariable = (table: string): string => `${constantCase(table)}_TABLE`;
export const streamVariable = (stream: string): string => `${constantCase(stream)}_STREAM`;

/**
 * The variables of everything but tables, streams and queues, each with its rule and why a
 * function has it. Optional ones may be left unset; defaulted ones are set by the stack anyway.
 */
const VARIABLES = {
  sealingKey: {
    /** The KMS key that wraps apps' sealing private keys; Decrypt is pinned to it. */
    SEALING_KEY_ARN: name,
  },
  ratesRead: {
    /** The ECB reference-rate CSV (eurofxref-hist) shipped in the asset: the table until one is stored. */
    FX_RATES_FILE: absolutePath,
    /**
     * Where the daily rates job stores the table (`fx-rates`), read at start-up and every few
     * hours after. Unset: the shipped table only.
     */
    FX_RATES_BUCKET: name.optional(),
    FX_RATES_KEY: name.optional(),
  },
  ratesWrite: {
    FX_RATES_BUCKET: name,
    FX_RATES_KEY: name,
    /** The shipped table, which the stored one starts from. */
    FX_RATES_FILE: absolutePath,
  },
  countries: {
    /** The MaxMind-format IP-to-country database, shipped in the asset. */
    GEOIP_DB_FILE: absolutePath,
  },
  queries: {
    ATHENA_WORKGROUP: name,
    GLUE_DATABASE: name,
    /** The Athena results bucket, which also holds the lists of installs an export leaves out. */
    RESULTS_BUCKET: name,
  },
  lake: {
    LAKE_BUCKET: name,
    /** Export snapshots of a purged install's app are deleted there. */
    RESULTS_BUCKET: name,
  },
  linkHost: {
    /** The link host as new links name it: its custom domain, else its API's URL. */
    LINK_BASE_URL: z.url({ protocol: /^https?$/ }),
    /** The apps' own link hosts the deployment serves beside it (comma-separated; may be empty). */
    LINK_APP_HOSTS: z.string(),
  },
  appleAds: {
    /** Apple's AdServices attribution API (the default is Apple's own). */
    APPLE_ADS_URL: z.url().default(APPLE_ADSERVICES_URL),
  },
  credentials: {
    /** The Cognito user pool that holds dashboard people's passwords. */
    USER_POOL_ID: name,
    /** Its app client that allows the admin password flow (no secret). */
    USER_POOL_CLIENT_ID: name,
  },
} as const;

const SETTINGS = {
  snapshotTtl: {
    SNAPSHOT_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(86_400)
      .default(DEFAULT_SNAPSHOT_TTL_SECONDS),
  },
  /** "true" only behind a CloudFront distribution, whose viewer-country header can be trusted. */
  trustViewerCountry: { TRUST_VIEWER_COUNTRY: z.enum(["true", "false"]).default("false") },
  /**
   * "true" only behind the link host's CloudFront distribution, which overwrites the viewer's
   * address header, with nothing reaching the API around it (lib/link-host.ts).
   */
  trustViewerAddress: { TRUST_VIEWER_ADDRESS: z.enum(["true", "false"]).default("false") },
  /**
   * A deletion request younger than this waits for a later purge: Firehose may still buffer rows
   * of the install sent before the request (its buffering interval, up to 900 s, plus delivery).
   */
  minRequestAge: {
    MIN_REQUEST_AGE_SECONDS: z.coerce.number().int().min(60).max(3_600).default(360),
  },
  /**
   * "true" lets postbacks and webhooks go to loopback addresses (and over http to them), for a
   * test deployment whose mock partners listen on the same machine; never in production.
   */
  postbacksAllowLoopback: {
    POSTBACKS_ALLOW_LOOPBACK: z.enum(["true", "false"]).default("false"),
  },
} as const satisfies Record<FunctionSetting, z.ZodRawShape>;

type Variables = typeof VARIABLES;

/** The access a row gives a resource, never when it does not use it. */
type Access<U, K extends string> = U extends { readonly [P in K]: infer A } ? A : never;
type KeysOf<U, K extends string> = [Access<U, K>] extends [never]
  ? never
  : keyof Access<U, K> & string;
type If<A, Shape> = [A] extends [never] ? unknown : Shape;

/** The zod shape of a row's environment, key by key. */
export type EnvShape<U extends Uses> = {
  [T in KeysOf<U, "tables"> as `${Constant<T>}_TABLE`]: typeof name;
} & { [S in KeysOf<U, "streams"> as `${Constant<S>}_STREAM`]: typeof name } & {
  [W in KeysOf<U, "queues"> as QueueUrlName<W>]: z.ZodURL;
} & If<Access<U, "sealingKey"> | Access<U, "postbackSecrets">, Variables["sealingKey"]> &
  If<Extract<Access<U, "rates">, "read">, Variables["ratesRead"]> &
  If<Extract<Access<U, "rates">, "write">, Variables["ratesWrite"]> &
  If<Access<U, "countries">, Variables["countries"]> &
  If<Access<U, "queries">, Variables["queries"]> &
  If<Access<U, "lake">, Variables["lake"]> &
  If<Access<U, "linkHost">, Variables["linkHost"]> &
  If<Access<U, "appleAds">, Variables["appleAds"]> &
  If<Access<U, "credentials">, Variables["credentials"]> &
  SettingsShape<SettingsOf<Access<U, "settings">>>;

type SettingsOf<A> = [A] extends [never]
  ? never
  : A extends readonly (infer S)[]
    ? S & FunctionSetting
    : never;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (
  i: infer I,
) => void
  ? I
  : never;
type SettingsShape<S extends FunctionSetting> = [S] extends [never]
  ? unknown
  : UnionToIntersection<S extends FunctionSetting ? (typeof SETTINGS)[S] : never>;

/** The schema of a row's environment. */
export type EnvSchema<U extends Uses> = z.ZodObject<{
  [K in keyof EnvShape<U>]: EnvShape<U>[K] extends z.ZodType ? EnvShape<U>[K] : never;
}>;

/** A row's environment, parsed. */
export type EnvOf<U extends Uses> = {
  [K in keyof EnvShape<U>]: EnvShape<U>[K] extends z.ZodType ? z.output<EnvShape<U>[K]> : never;
};

/** The environment schema of what a function uses. */
export const envSchemaOf = <const U extends Uses>(uses: U): EnvSchema<U> => {
  const shape: Record<string, z.ZodType> = {};
  for (const table of Object.keys(uses.tables ?? {})) shape[tableVariable(table)] = name;
  for (const stream of Object.keys(uses.streams ?? {})) shape[streamVariable(stream)] = name;
  for (const worker of Object.keys(uses.queues ?? {})) shape[queueUrlName(worker)] = z.url();
  if (uses.sealingKey || uses.postbackSecrets) Object.assign(shape, VARIABLES.sealingKey);
  if (uses.rates === "read") Object.assign(shape, VARIABLES.ratesRead);
  if (uses.rates === "write") Object.assign(shape, VARIABLES.ratesWrite);
  if (uses.countries) Object.assign(shape, VARIABLES.countries);
  if (uses.queries) Object.assign(shape, VARIABLES.queries);
  if (uses.lake) Object.assign(shape, VARIABLES.lake);
  if (uses.linkHost) Object.assign(shape, VARIABLES.linkHost);
  if (uses.appleAds) Object.assign(shape, VARIABLES.appleAds);
  if (uses.credentials) Object.assign(shape, VARIABLES.credentials);
  for (const setting of uses.settings ?? []) Object.assign(shape, SETTINGS[setting]);
  return z.object(shape) as unknown as EnvSchema<U>;
};

/**
 * Parses a function's environment at start-up, naming every bad variable in the error, so a
 * bad deployment fails on its first cold start.
 */
export const functionEnv = <const U extends Uses>(
  row: { readonly uses: U },
  env: NodeJS.ProcessEnv = process.env,
): EnvOf<U> => parseEnv(envSchemaOf(row.uses), env) as EnvOf<U>;
