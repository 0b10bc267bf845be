import { describe, expect, it } from "vitest";
import { createCountryResolver } from "../adapters/geoip/country-resolver.ts";
import { normalizeIp } from "../touches/ip.ts";
import { findAddresses } from "./addresses.ts";
import { MARKETS } from "./markets.ts";
import { createRandom } from "./prng.ts";

describe("findAddresses", () => {
  it("gives public addresses that the shipped country database places in each market", async () => {
    const resolver = await createCountryResolver();
    const countries = MARKETS.map((m) => m.country);
    const addresses = findAddresses(countries, resolver, createRandom(1));
    const countryOf = (ip: string) => resolver.countryOf({ sourceIp: ip, headers: {} });
    for (const country of countries) {
      const homes = Array.from({ length: 50 }, () => addresses.home(country));
      const carriers = Array.from({ length: 50 }, () => addresses.carrier(country));
      for (const ip of [...homes, ...carriers]) {
        expect(normalizeIp(ip)).not.toBeNull();
        expect(countryOf(ip)).toBe(country);
      }
      // Homes have addresses of their own; a carrier puts everyone behind a few.
      expect(new Set(homes).size).toBeGreaterThan(45);
      expect(new Set(carriers).size).toBeLessThanOrEqual(3);
      expect(carriers.some((ip) => homes.includes(ip))).toBe(false);
    }
  });

  it("says so when the database has no address in a country", async () => {
    // Fewer draws than the demo's: the answer is the same for a country with none.
    const addresses = findAddresses(["XK"], await createCountryResolver(), createRandom(1), 20_000);
    expect(() => addresses.home("XK")).toThrow(/no address in XK/);
  });
});
