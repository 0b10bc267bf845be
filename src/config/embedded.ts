/** Configuration of the embedded runtime, from the environment, parsed once at start-up. */

import { existsSync } from "node:fs";
import { isIP, isIPv4, isIPv6 } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import { ECB_90_DAY_FEED } from "../fx/ecb-feed.ts";
import { parseTrustProxy, type TrustProxy } from "../http/trust-proxy.ts";
import { jobOf } from "../jobs/jobs.ts";
import {
  APPLE_ADSERVICES_URL,
  DEFAULT_APP_CACHE_MS,
  DEFAULT_SNAPSHOT_TTL_SECONDS,
} from "./defaults.ts";
import { parseEnv, setSettingsOnly } from "./parse-env.ts";

const SIZE = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB|KiB|MiB|GiB)$/i;
const UNITS: Record<string, number> = {
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
};

/** A size as DuckDB writes one ("256MB": MB is 10^6 bytes, MiB 2^20). */
const size = z.string().regex(SIZE, { error: "must be a size such as 256MB" });

/** The bytes of a size the schema accepted. */
export const sizeInBytes = (value: string): number => {
  const [, amount = "0", unit = "b"] = SIZE.exec(value) ?? [];
  return Math.floor(Number(amount) * (UNITS[unit.toLowerCase()] ?? 1));
};

/**
 * The least a DuckDB instance of the service's may hold: with a few megabytes the service
 * starts, and then answers exports or reports, however small, with DuckDB's "Out of Memory".
 */
const MIN_QUERY_MEMORY = "64MB";
const queryMemory = size.refine((value) => sizeInBytes(value) >= sizeInBytes(MIN_QUERY_MEMORY), {
  error: `must be at least ${MIN_QUERY_MEMORY}: with less, DuckDB runs out of memory on exports and reports`,
});

/**
 * A whole number as a setting writes it: plain decimal digits, as the CLI's numbers are, not
 * `5e3` or `0x1388`, which a number's own reading would take.
 */
const whole = (bounds: { readonly min: number; readonly max: number }) =>
  z
    .string()
    .regex(/^\d+$/, { error: "must be a whole number in plain decimal digits" })
    .transform(Number)
    .pipe(z.number().int().min(bounds.min).max(bounds.max));

/**
 * The folder holding the service's package.json, found from this module's own place (a source
 * file, or a chunk of the CLI's bundle): the default data folder is there, whatever folder a
 * command runs in, so that `npm start` and a command run from a subfolder share one.
 */
const packageRoot = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
};

/**
 * One DNS server as Node's resolver takes it: an IPv4 or IPv6 address, with a port as
 * `10.0.0.2:5353` or `[::1]:5353`. Checked at start-up, since the resolver checks it only at the
 * first proof of a link host: it refuses a name (`localhost`) there, which the proof reads as a
 * DNS that did not answer, and it ends the whole process on a port 0.
 */
const dnsServer = (server: string): boolean => {
  if (isIP(server) !== 0) return true;
  const match = /^(?:\[(?<v6>[^\]]*)\]|(?<v4>[^:[\]]*))(?::(?<port>\d{1,5}))?$/.exec(server);
  const { v6, v4, port } = match?.groups ?? {};
  const address = v6 !== undefined ? isIPv6(v6) : v4 !== undefined && isIPv4(v4);
  return address && (port === undefined || (Number(port) >= 1 && Number(port) <= 65_535));
};

/**
 * An address the service fetches from or names to others: http or https alone. `z.url()` takes
 * any scheme (`file:`, `mailto:`), which the fetch then fails on at each use, and the failure
 * read as a feed out of reach or Apple's API not answering.
 */
const webUrl = (error: string) => z.url({ protocol: /^https?$/, error });

/** The setting of a fresher IP-to-country database, named by the error of one not read. */
export const GEOIP_SETTING = "ATTRIBUTION_GEOIP_DB";

const schema = z.object({
  /** Relative to the current folder when set; the package's `.data` when not. */
  ATTRIBUTION_DATA_DIR: z.string().min(1).optional(),
  ATTRIBUTION_HOST: z.string().min(1).default("127.0.0.1"),
  ATTRIBUTION_PORT: whole({ min: 0, max: 65_535 }).default(8787),
  /** The link host's port: links are tapped there. */
  ATTRIBUTION_LINK_PORT: whole({ min: 0, max: 65_535 }).default(8788),
  /** The link host as links name it, when a proxy or a domain is in front of the port. */
  ATTRIBUTION_LINK_BASE_URL: webUrl("must be an http or https URL").optional(),
  /**
   * Whose X-Forwarded-For names the caller: `loopback` when unset (a proxy on this machine),
   * CIDR ranges and `linklocal`, `uniquelocal`, `true` every peer, `false` none. The caller is
   * the address the last trusted hop appended (../http/trust-proxy.ts).
   */
  ATTRIBUTION_TRUST_PROXY: z.string().optional(),
  /** How long the pages of one export keep slicing the same snapshot. */
  ATTRIBUTION_SNAPSHOT_TTL_SECONDS: whole({ min: 1, max: 86_400 }).default(
    DEFAULT_SNAPSHOT_TTL_SECONDS,
  ),
  /** The local delivery stream's buffering interval (Firehose's is at least 60 s). */
  ATTRIBUTION_FLUSH_INTERVAL_MS: whole({ min: 50, max: 900_000 }).default(5_000),
  /** How long ingestion may use an app read before reading it again (0: every time). */
  ATTRIBUTION_APP_CACHE_MS: whole({ min: 0, max: 300_000 }).default(DEFAULT_APP_CACHE_MS),
  /** How often open deletion requests are purged from the lake (also right after each one). */
  ATTRIBUTION_PURGE_INTERVAL_MS: whole({ min: 100, max: 3_600_000 }).default(
    jobOf("purge").embedded.everyMs,
  ),
  /** How often the lake's small files, as delivery leaves them, are merged. */
  ATTRIBUTION_COMPACT_INTERVAL_MS: whole({ min: 100, max: 86_400_000 }).default(
    jobOf("compact-lake").embedded.everyMs,
  ),
  /** "true" when a CloudFront distribution in front sets a trustworthy viewer-country header. */
  ATTRIBUTION_TRUST_VIEWER_COUNTRY: z.enum(["true", "false"]).default("false"),
  /** A fresher IP-to-country database (MMDB with `country_code`) than the shipped one. */
  ATTRIBUTION_GEOIP_DB: z.string().min(1).optional(),
  /** The ECB's 90-day rate feed the runtime refreshes its rates from; `off` for none. */
  ATTRIBUTION_FX_FEED_URL: z
    .union([z.literal("off"), webUrl("must be an http or https URL, or off")])
    .default(ECB_90_DAY_FEED),
  /** Apple's AdServices attribution API, which resolves iOS installs' Apple Ads tokens. */
  ATTRIBUTION_APPLE_ADS_URL: webUrl("must be an http or https URL").default(APPLE_ADSERVICES_URL),
  /**
   * The DNS servers asked for the TXT records that prove a link host an app's, comma-separated
   * (`10.0.0.2`, `127.0.0.1:5353`); the system's when unset.
   */
  ATTRIBUTION_DNS_SERVERS: z
    .string()
    .transform((list) =>
      list
        .split(",")
        .map((server) => server.trim())
        .filter((server) => server.length > 0),
    )
    .superRefine((servers, context) => {
      for (const server of servers.filter((candidate) => !dnsServer(candidate))) {
        context.addIssue({
          code: "custom",
          message: `${server} is no DNS server: give IP addresses, each with a port or not (10.0.0.2, 127.0.0.1:5353, [::1]:5353), comma-separated`,
        });
      }
    })
    .optional(),
  /**
   * What the export's DuckDB may hold in memory; past it, a large window's sort spills to the
   * data folder. DuckDB's own default is 80% of the machine.
   */
  ATTRIBUTION_QUERY_MEMORY: queryMemory.default("256MB"),
  /** What the reports' DuckDB may hold in memory; past it, a report's grouping spills. */
  ATTRIBUTION_REPORT_MEMORY: queryMemory.default("1GB"),
  /**
   * What the export snapshots may take on disk together, and DuckDB's spill files each: past
   * it, a new snapshot is refused with a 503 until expired ones are pruned.
   */
  ATTRIBUTION_SNAPSHOT_DISK: size.default("8GB"),
  /** Free space a new snapshot must leave on the data folder's disk, for ingestion's files. */
  ATTRIBUTION_DISK_RESERVE: size.default("1GB"),
  /**
   * A window whose lake files take less is made whole before its first page is answered;
   * a larger one is answered once its first slice of a day is written, the others meanwhile.
   */
  ATTRIBUTION_SNAPSHOT_WHOLE_BELOW: size.default("16MB"),
  /**
   * "admins": an admin signs in to the dashboard with a TOTP code too, set up at their next
   * sign-in (as on AWS); "off": only those who set one up are asked for it.
   */
  ATTRIBUTION_DASHBOARD_TOTP: z.enum(["off", "admins"]).default("off"),
  /**
   * "true" lets postbacks and webhooks go to loopback addresses (127.0.0.0/8, ::1, localhost,
   * over http too), for tests whose mock partners listen on this machine; nothing else private.
   */
  ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK: z.enum(["true", "false"]).default("false"),
});

/** Every variable the embedded runtime reads, for a warning about one misspelled. */
export const EMBEDDED_SETTINGS: readonly string[] = Object.keys(schema.shape);

export interface EmbeddedConfig {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  readonly linkPort: number;
  /** Undefined: `http://<host>:<link port>`. */
  readonly linkBaseUrl?: string;
  /** Whose X-Forwarded-For names the caller (src/http/trust-proxy.ts): loopback peers by default. */
  readonly trustProxy: TrustProxy;
  readonly snapshotTtlSeconds: number;
  readonly flushIntervalMs: number;
  readonly compactIntervalMs: number;
  readonly purgeIntervalMs: number;
  readonly appCacheMs: number;
  readonly geoipDatabase?: string;
  readonly trustViewerCountry: boolean;
  /** Where the rates are refreshed from; null: never (offline, tests). */
  readonly fxFeedUrl: string | null;
  readonly appleAdsUrl: string;
  /** The DNS servers asked for link hosts' proofs; the system's when none. */
  readonly dnsServers: readonly string[];
  /** DuckDB's memory_limit for export queries, such as "256MB". */
  readonly queryMemory: string;
  /** DuckDB's memory_limit for report queries, such as "1GB". */
  readonly reportMemory: string;
  /** The snapshots' disk budget together, and DuckDB's spill files' each, such as "8GB". */
  readonly snapshotDisk: string;
  /** Free space on the data folder's disk that a new snapshot leaves, such as "1GB". */
  readonly diskReserve: string;
  /** Windows whose lake files take less are made whole before their first page: "16MB". */
  readonly snapshotWholeBelow: string;
  /** Who must sign in to the dashboard with a TOTP code: admins, or only who set one up. */
  readonly dashboardTotp: "off" | "admins";
  /** Whether postbacks and webhooks may go to loopback addresses (tests' mock partners). */
  readonly postbacksAllowLoopback: boolean;
}

export const embeddedConfig = (
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<EmbeddedConfig> = {},
): EmbeddedConfig => {
  const parsed = parseEnv(schema, setSettingsOnly(env));
  return {
    dataDir: resolve(
      overrides.dataDir ?? parsed.ATTRIBUTION_DATA_DIR ?? join(packageRoot(), ".data"),
    ),
    host: overrides.host ?? parsed.ATTRIBUTION_HOST,
    port: overrides.port ?? parsed.ATTRIBUTION_PORT,
    linkPort: overrides.linkPort ?? parsed.ATTRIBUTION_LINK_PORT,
    linkBaseUrl: overrides.linkBaseUrl ?? parsed.ATTRIBUTION_LINK_BASE_URL,
    trustProxy: overrides.trustProxy ?? parseTrustProxy(parsed.ATTRIBUTION_TRUST_PROXY),
    snapshotTtlSeconds: overrides.snapshotTtlSeconds ?? parsed.ATTRIBUTION_SNAPSHOT_TTL_SECONDS,
    flushIntervalMs: overrides.flushIntervalMs ?? parsed.ATTRIBUTION_FLUSH_INTERVAL_MS,
    purgeIntervalMs: overrides.purgeIntervalMs ?? parsed.ATTRIBUTION_PURGE_INTERVAL_MS,
    compactIntervalMs: overrides.compactIntervalMs ?? parsed.ATTRIBUTION_COMPACT_INTERVAL_MS,
    appCacheMs: overrides.appCacheMs ?? parsed.ATTRIBUTION_APP_CACHE_MS,
    geoipDatabase: overrides.geoipDatabase ?? parsed.ATTRIBUTION_GEOIP_DB,
    trustViewerCountry:
      overrides.trustViewerCountry ?? parsed.ATTRIBUTION_TRUST_VIEWER_COUNTRY === "true",
    appleAdsUrl: overrides.appleAdsUrl ?? parsed.ATTRIBUTION_APPLE_ADS_URL,
    dnsServers: overrides.dnsServers ?? parsed.ATTRIBUTION_DNS_SERVERS ?? [],
    queryMemory: overrides.queryMemory ?? parsed.ATTRIBUTION_QUERY_MEMORY,
    reportMemory: overrides.reportMemory ?? parsed.ATTRIBUTION_REPORT_MEMORY,
    snapshotDisk: overrides.snapshotDisk ?? parsed.ATTRIBUTION_SNAPSHOT_DISK,
    diskReserve: overrides.diskReserve ?? parsed.ATTRIBUTION_DISK_RESERVE,
    snapshotWholeBelow: overrides.snapshotWholeBelow ?? parsed.ATTRIBUTION_SNAPSHOT_WHOLE_BELOW,
    dashboardTotp: overrides.dashboardTotp ?? parsed.ATTRIBUTION_DASHBOARD_TOTP,
    postbacksAllowLoopback:
      overrides.postbacksAllowLoopback ?? parsed.ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK === "true",
    fxFeedUrl:
      overrides.fxFeedUrl !== undefined
        ? overrides.fxFeedUrl
        : parsed.ATTRIBUTION_FX_FEED_URL === "off"
          ? null
          : parsed.ATTRIBUTION_FX_FEED_URL,
  };
};
