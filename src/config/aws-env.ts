/**
 * Environment contract between the CDK app and the Lambda functions. The stack sets exactly
 * these names; each function parses its own schema once at start-up and fails fast on a bad one.
 */
import * as z from "zod";
import { formatIssues } from "../validation/issues.ts";
import { APPLE_ADSERVICES_URL, DEFAULT_SNAPSHOT_TTL_SECONDS } from "./defaults.ts";

const name = z.string().min(1);
const absolutePath = z.string().startsWith("/", { error: "must be an absolute path" });

export const authorizerEnv = z.object({
  APPS_TABLE: name,
  KEYS_TABLE: name,
});

export const exportEnv = z.object({
  SNAPSHOTS_TABLE: name,
  /** Deletion requests: the export leaves out the installs they name. */
  DELETIONS_TABLE: name,
  ATHENA_WORKGROUP: name,
  GLUE_DATABASE: name,
  /** The Athena results bucket, which also holds the lists of installs an export leaves out. */
  RESULTS_BUCKET: name,
  SNAPSHOT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(86_400)
    .default(DEFAULT_SNAPSHOT_TTL_SECONDS),
});

export const configEnv = z.object({
  APPS_TABLE: name,
});

/**
 * The ingestion functions (`installs`, `events`, `s2s-events`). The two files ship inside the
 * function's own asset (read at start-up), so they are absolute paths under /var/task on AWS.
 */
export const ingestEnv = z.object({
  APPS_TABLE: name,
  INSTALLS_TABLE: name,
  CUSTOMER_USERS_TABLE: name,
  /** Firehose delivery stream of the events lake table. */
  EVENTS_STREAM: name,
  /** The KMS key that wraps apps' sealing private keys; Decrypt is pinned to it. */
  SEALING_KEY_ARN: name,
  /** The ECB reference-rate CSV (eurofxref-hist) shipped in the asset: the table until one is stored. */
  FX_RATES_FILE: absolutePath,
  /**
   * Where the daily rates job stores the table (`fx-rates`), read at start-up and every few
   * hours after. Unset: the shipped table only.
   */
  FX_RATES_BUCKET: name.optional(),
  FX_RATES_KEY: name.optional(),
  /** The MaxMind-format IP-to-country database. */
  GEOIP_DB_FILE: absolutePath,
  DELETIONS_TABLE: name,
  /** "true" only behind a CloudFront distribution, whose viewer-country header can be trusted. */
  TRUST_VIEWER_COUNTRY: z.enum(["true", "false"]).default("false"),
  /** Each new install's attribution is recorded pending there, and its job queued here. */
  ATTRIBUTIONS_TABLE: name,
  ATTRIBUTION_QUEUE_URL: z.url(),
});

/** The attribution worker (`attribute`, fed by its queue): match, store once, write the lake. */
export const attributeEnv = z.object({
  APPS_TABLE: name,
  INSTALLS_TABLE: name,
  ATTRIBUTIONS_TABLE: name,
  TOUCHES_TABLE: name,
  /** Firehose delivery streams of the attributions and events lake tables. */
  ATTRIBUTIONS_STREAM: name,
  EVENTS_STREAM: name,
  DELETIONS_TABLE: name,
  /** Apple's AdServices attribution API (the default is Apple's own). */
  APPLE_ADS_URL: z.url().default(APPLE_ADSERVICES_URL),
});

/** The SDKs' read of an install's attribution (`attribution`). */
export const attributionEnv = z.object({
  APPS_TABLE: name,
  ATTRIBUTIONS_TABLE: name,
  DELETIONS_TABLE: name,
});

/** The scheduled sweep (`attribution-sweep`) that queues again what a failure left open. */
export const attributionSweepEnv = z.object({
  ATTRIBUTIONS_TABLE: name,
  ATTRIBUTION_QUEUE_URL: z.url(),
});

/** The link routes of the API (`create-link`, `list-links`, `get-link`, `update-link`). */
export const linksEnv = z.object({
  APPS_TABLE: name,
  LINKS_TABLE: name,
  /** The link host as new links name it: its custom domain, else its API's URL. */
  LINK_BASE_URL: z.url({ protocol: /^https?$/ }),
});

/**
 * What records touches: the link host's tap route (`click`) and `touches` (an ad network's
 * reports). The country database ships in the function's asset, as for ingestion.
 */
export const touchesEnv = z.object({
  APPS_TABLE: name,
  LINKS_TABLE: name,
  TOUCHES_TABLE: name,
  /** Firehose delivery stream of the touches lake table. */
  TOUCHES_STREAM: name,
  GEOIP_DB_FILE: absolutePath,
});

/** The link host's `.well-known` files: every app's link settings. */
export const wellKnownEnv = z.object({
  APPS_TABLE: name,
});

export const deletionsEnv = z.object({
  DELETIONS_TABLE: name,
});

/**
 * The scheduled purge of deleted installs (`purge`, not an API route): it completes deletion
 * requests by deleting the install, its customer-user mapping, its rows in the lake bucket and
 * its app's export snapshots in the results bucket.
 */
export const purgeEnv = z.object({
  DELETIONS_TABLE: name,
  INSTALLS_TABLE: name,
  CUSTOMER_USERS_TABLE: name,
  ATTRIBUTIONS_TABLE: name,
  SNAPSHOTS_TABLE: name,
  LAKE_BUCKET: name,
  RESULTS_BUCKET: name,
  /**
   * A request younger than this waits for a later run: Firehose may still buffer rows of the
   * install sent before the request (its buffering interval, up to 900 s, plus delivery).
   */
  MIN_REQUEST_AGE_SECONDS: z.coerce.number().int().min(60).max(3_600).default(360),
});

/**
 * The daily rates job (`fx-rates`, not an API route): merges the ECB's 90-day feed into the
 * stored rate table, starting from the shipped one.
 */
export const fxRatesEnv = z.object({
  FX_RATES_BUCKET: name,
  FX_RATES_KEY: name,
  FX_RATES_FILE: absolutePath,
});

/** The public OpenAPI document (`openapi`): built from the code, it reads nothing. */
export const openapiEnv = z.object({});

export type PurgeEnv = z.infer<typeof purgeEnv>;

/** Parses an environment, naming every bad variable in the error. */
export const parseEnv = <T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.infer<T> => {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new Error(`Invalid environment: ${formatIssues(result.error.issues, "environment")}`);
  }
  return result.data;
};
