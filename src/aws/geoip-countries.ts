/**
 * The IP-to-country database shipped in the function's asset, loaded at start-up so no
 * request pays for it. A viewer-country header is trusted only where the row's settings say so
 * (behind a CloudFront distribution); the link host's API passes the caller's address.
 */
import { createCountryResolver } from "../adapters/geoip/country-resolver.ts";
import { type Provider, variable } from "./provider.ts";

export const geoipCountries: Provider = async (env, uses) => ({
  countries: await createCountryResolver(variable(env, "GEOIP_DB_FILE"), {
    trustViewerCountry:
      (uses.settings ?? []).includes("trustViewerCountry") && env.TRUST_VIEWER_COUNTRY === "true",
  }),
});
