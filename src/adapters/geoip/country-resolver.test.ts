import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createCountryResolver } from "./country-resolver.ts";

describe("country resolver", async () => {
  const resolver = await createCountryResolver(undefined, { trustViewerCountry: true });
  const of = (sourceIp: string | null, headers: Record<string, string> = {}) =>
    resolver.countryOf({ sourceIp, headers });

  it("finds the country of IPv4 and IPv6 addresses in the shipped database", () => {
    expect(of("8.8.8.8")).toBe("US");
    expect(of("81.2.69.160")).toBe("GB");
    expect(of("::ffff:81.2.69.160")).toBe("GB");
    expect(of("2a00:1450:4001:80b::200e")).toMatch(/^[A-Z]{2}$/);
  });

  it("trusts the edge's viewer-country header first, only when told it sits behind the edge", async () => {
    expect(of("8.8.8.8", { "cloudfront-viewer-country": "de" })).toBe("DE");
    const direct = await createCountryResolver();
    expect(
      direct.countryOf({ sourceIp: "8.8.8.8", headers: { "cloudfront-viewer-country": "de" } }),
    ).toBe("US");
  });

  it("answers null for private, unknown or malformed addresses and non-country codes", () => {
    expect(of("127.0.0.1")).toBeNull();
    expect(of("10.1.2.3")).toBeNull();
    expect(of("not an ip")).toBeNull();
    expect(of(null)).toBeNull();
    expect(of(null, { "cloudfront-viewer-country": "XX" })).toBeNull();
    // A header that names no country in two letters is passed over for the address's.
    expect(of("8.8.8.8", { "cloudfront-viewer-country": "D1" })).toBe("US");
    expect(of("8.8.8.8", { "cloudfront-viewer-country": "DEU" })).toBe("US");
  });

  it("names the setting of a database it cannot read: a missing file, or one that is no MMDB", async () => {
    const setting = { setting: "ATTRIBUTION_GEOIP_DB" };
    await expect(createCountryResolver("/nonexistent.mmdb", setting)).rejects.toThrow(
      /^ATTRIBUTION_GEOIP_DB: \/nonexistent\.mmdb cannot be read as an IP-to-country database \(MMDB\): ENOENT/,
    );
    const notMmdb = fileURLToPath(import.meta.url);
    await expect(createCountryResolver(notMmdb, setting)).rejects.toThrow(
      /^ATTRIBUTION_GEOIP_DB: .* cannot be read as an IP-to-country database \(MMDB\)/,
    );
  });
});
