import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { embeddedConfig } from "./embedded.ts";

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
});
