import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { embeddedConfig, sizeInBytes } from "./embedded.ts";

/** The service's own folder, whose `.data` is the default data folder. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("the embedded runtime's configuration", () => {
  it("takes a setting set but empty as unset: its default, never a refusal or a zero", () => {
    const defaults = embeddedConfig({});
    const empty = embeddedConfig({
      ATTRIBUTION_PORT: "",
      ATTRIBUTION_LINK_BASE_URL: "",
      ATTRIBUTION_APP_CACHE_MS: "",
      ATTRIBUTION_PURGE_INTERVAL_MS: "",
      ATTRIBUTION_FX_FEED_URL: "",
    });
    expect(empty).toEqual(defaults);
    expect(empty.appCacheMs).toBeGreaterThan(0);
  });

  it("keeps its data in the package's .data by default, whatever folder a command runs in", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), "attribution-cwd-"));
    const before = process.cwd();
    try {
      process.chdir(elsewhere);
      expect(embeddedConfig({}).dataDir).toBe(join(ROOT, ".data"));
      // A folder named by the setting is the caller's: relative to where it runs.
      expect(embeddedConfig({ ATTRIBUTION_DATA_DIR: "mine" }).dataDir).toBe(
        join(process.cwd(), "mine"),
      );
    } finally {
      process.chdir(before);
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it("takes a number as plain decimal digits, refusing an exponent or hex, and names the setting", () => {
    expect(embeddedConfig({ ATTRIBUTION_FLUSH_INTERVAL_MS: "5000" }).flushIntervalMs).toBe(5_000);
    for (const value of ["5e3", "0x1388", " 5000", "5000.0", "-1"]) {
      expect(() => embeddedConfig({ ATTRIBUTION_FLUSH_INTERVAL_MS: value }), value).toThrow(
        /ATTRIBUTION_FLUSH_INTERVAL_MS: must be a whole number in plain decimal digits/,
      );
    }
    expect(() => embeddedConfig({ ATTRIBUTION_PORT: "70000" })).toThrow(/ATTRIBUTION_PORT/);
  });

  it("reads each setting it documents, and a value given by its caller over the setting", () => {
    const settings = {
      ATTRIBUTION_DATA_DIR: "/srv/attribution",
      ATTRIBUTION_HOST: "0.0.0.0",
      ATTRIBUTION_PORT: "9000",
      ATTRIBUTION_LINK_PORT: "9001",
      ATTRIBUTION_LINK_BASE_URL: "https://go.example.com",
      ATTRIBUTION_TRUST_PROXY: "10.0.0.0/8, loopback",
      ATTRIBUTION_SNAPSHOT_TTL_SECONDS: "600",
      ATTRIBUTION_FLUSH_INTERVAL_MS: "1000",
      ATTRIBUTION_APP_CACHE_MS: "0",
      ATTRIBUTION_PURGE_INTERVAL_MS: "2000",
      ATTRIBUTION_COMPACT_INTERVAL_MS: "3000",
      ATTRIBUTION_TRUST_VIEWER_COUNTRY: "true",
      ATTRIBUTION_GEOIP_DB: "/srv/country.mmdb",
      ATTRIBUTION_FX_FEED_URL: "off",
      ATTRIBUTION_APPLE_ADS_URL: "http://127.0.0.1:9/attribution",
      ATTRIBUTION_DNS_SERVERS: " 10.0.0.2, ,127.0.0.1:5353 ",
      ATTRIBUTION_QUERY_MEMORY: "512MiB",
      ATTRIBUTION_REPORT_MEMORY: "2GB",
      ATTRIBUTION_SNAPSHOT_DISK: "20GB",
      ATTRIBUTION_DISK_RESERVE: "500MB",
      ATTRIBUTION_SNAPSHOT_WHOLE_BELOW: "32MB",
      ATTRIBUTION_DASHBOARD_TOTP: "admins",
      ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK: "true",
    };
    expect(embeddedConfig(settings)).toEqual({
      dataDir: "/srv/attribution",
      host: "0.0.0.0",
      port: 9000,
      linkPort: 9001,
      linkBaseUrl: "https://go.example.com",
      trustProxy: ["10.0.0.0/8", "loopback"],
      snapshotTtlSeconds: 600,
      flushIntervalMs: 1000,
      appCacheMs: 0,
      purgeIntervalMs: 2000,
      compactIntervalMs: 3000,
      trustViewerCountry: true,
      geoipDatabase: "/srv/country.mmdb",
      fxFeedUrl: null,
      appleAdsUrl: "http://127.0.0.1:9/attribution",
      dnsServers: ["10.0.0.2", "127.0.0.1:5353"],
      queryMemory: "512MiB",
      reportMemory: "2GB",
      snapshotDisk: "20GB",
      diskReserve: "500MB",
      snapshotWholeBelow: "32MB",
      dashboardTotp: "admins",
      postbacksAllowLoopback: true,
    });
    expect(
      embeddedConfig(settings, { host: "127.0.0.2", fxFeedUrl: "http://127.0.0.1:9/feed" }),
    ).toMatchObject({ host: "127.0.0.2", fxFeedUrl: "http://127.0.0.1:9/feed" });
  });

  it("listens on this machine alone unless told otherwise, and takes no link host but a web one", () => {
    expect(embeddedConfig({})).toMatchObject({
      host: "127.0.0.1",
      trustViewerCountry: false,
      postbacksAllowLoopback: false,
      dashboardTotp: "off",
    });
    expect(() => embeddedConfig({ ATTRIBUTION_LINK_BASE_URL: "ftp://go.example.com" })).toThrow(
      /ATTRIBUTION_LINK_BASE_URL/,
    );
    // A buffering interval too short to batch anything.
    expect(() => embeddedConfig({ ATTRIBUTION_FLUSH_INTERVAL_MS: "49" })).toThrow(
      /ATTRIBUTION_FLUSH_INTERVAL_MS/,
    );
  });

  it("takes the addresses it fetches from and names over http or https alone, saying so", () => {
    for (const [setting, value] of [
      ["ATTRIBUTION_FX_FEED_URL", "file:///srv/eurofxref-hist-90d.xml"],
      ["ATTRIBUTION_FX_FEED_URL", "OFF"],
      ["ATTRIBUTION_APPLE_ADS_URL", "mailto:ads@example.com"],
      ["ATTRIBUTION_APPLE_ADS_URL", "ftp://api-adservices.apple.com/"],
      ["ATTRIBUTION_LINK_BASE_URL", "go.example.com"],
    ] as const) {
      expect(() => embeddedConfig({ [setting]: value }), value).toThrow(
        `${setting}: must be an http or https URL${setting === "ATTRIBUTION_FX_FEED_URL" ? ", or off" : ""}`,
      );
    }
    expect(
      embeddedConfig({
        ATTRIBUTION_FX_FEED_URL: "http://127.0.0.1:9/feed",
        ATTRIBUTION_APPLE_ADS_URL: "https://ads.example.com/v1/",
      }),
    ).toMatchObject({
      fxFeedUrl: "http://127.0.0.1:9/feed",
      appleAdsUrl: "https://ads.example.com/v1/",
    });
  });

  it("takes DNS servers as addresses, each with a port or not, and refuses any other at start-up", () => {
    expect(
      embeddedConfig({
        ATTRIBUTION_DNS_SERVERS: "10.0.0.2, 127.0.0.1:5353, ::1, [2001:db8::1], [::1]:53",
      }).dnsServers,
    ).toEqual(["10.0.0.2", "127.0.0.1:5353", "::1", "[2001:db8::1]", "[::1]:53"]);
    // The resolver would refuse a name only at a link host's proof, which then reads as a DNS
    // that did not answer; and a port 0 (or one it cuts to 16 bits) it takes, the first ending
    // the process there.
    for (const server of [
      "localhost",
      "dns.example.com",
      "10.0.0.2:0",
      "10.0.0.2:65536",
      "10.0.0.2:",
      "10.0.0.2:domain",
      "[::1]:0",
      "[10.0.0.2]",
      "010.0.0.2",
    ]) {
      expect(
        () => embeddedConfig({ ATTRIBUTION_DNS_SERVERS: `10.0.0.3,${server}` }),
        server,
      ).toThrow(`ATTRIBUTION_DNS_SERVERS: ${server} is no DNS server`);
    }
  });

  it("reads a size as DuckDB does, MB in powers of ten and MiB in powers of two, and refuses any other", () => {
    expect(sizeInBytes("256MB")).toBe(256_000_000);
    expect(sizeInBytes("256mb")).toBe(256_000_000);
    expect(sizeInBytes("1.5 GiB")).toBe(1.5 * 2 ** 30);
    expect(sizeInBytes("2KiB")).toBe(2048);
    expect(sizeInBytes("3MiB")).toBe(3 * 2 ** 20);
    expect(sizeInBytes("1GB")).toBe(1e9);
    expect(sizeInBytes("1.0005KB")).toBe(1000);
    for (const value of ["256", "256 M", "x256MB", "256MBs", "-1MB"]) {
      expect(() => embeddedConfig({ ATTRIBUTION_QUERY_MEMORY: value }), value).toThrow(
        /ATTRIBUTION_QUERY_MEMORY: must be a size such as 256MB/,
      );
    }
  });

  it("refuses a query memory DuckDB answers nothing with", () => {
    for (const name of ["ATTRIBUTION_QUERY_MEMORY", "ATTRIBUTION_REPORT_MEMORY"]) {
      expect(() => embeddedConfig({ [name]: "8MB" }), name).toThrow(
        new RegExp(`${name}: must be at least 64MB`),
      );
      expect(() => embeddedConfig({ [name]: "64MB" }), name).not.toThrow();
    }
  });
});
