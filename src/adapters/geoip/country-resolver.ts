/**
 * Country of a caller. When the API sits behind CloudFront, its viewer-country header is
 * trusted first (only then: without the edge, any client could set it); otherwise the
 * caller's IP is looked up in a country database shipped inside a registry package (IPv4
 * and IPv6).
 */

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Reader, type Response } from "maxmind";
import * as z from "zod";
import type { CountryResolver } from "../../ports/geo.ts";

const VIEWER_COUNTRY = "cloudfront-viewer-country";
const ISO_ALPHA2 = /^[A-Z]{2}$/;
// Not countries: unknown (XX), anonymous proxies (A1, A2) and the EU/AP region codes.
const NOT_A_COUNTRY = new Set(["XX", "ZZ", "A1", "A2", "O1", "EU", "AP"]);

// The database's records are `{ country_code }`, a shape MaxMind's reader types do not name.
const countryRecord = z.object({ country_code: z.string() });

/** The database that ships with the service: NRO whois, ASN and geofeed data (CC BY 4.0). */
export const defaultCountryDatabase = (): string =>
  createRequire(import.meta.url).resolve(
    "@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb",
  );

const asCountry = (value: string | undefined): string | null => {
  const code = value?.trim().toUpperCase();
  return code && ISO_ALPHA2.test(code) && !NOT_A_COUNTRY.has(code) ? code : null;
};

export const createCountryResolver = async (
  databasePath: string = defaultCountryDatabase(),
  options: {
    trustViewerCountry?: boolean;
    /** The setting that named the database, for an error that says what to change. */
    setting?: string;
  } = {},
): Promise<CountryResolver> => {
  let reader: Reader<Response>;
  try {
    reader = new Reader<Response>(await readFile(databasePath));
  } catch (error) {
    if (!options.setting) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${options.setting}: ${databasePath} cannot be read as an IP-to-country database (MMDB): ${reason}`,
    );
  }
  return {
    countryOf({ sourceIp, headers }) {
      const fromEdge = options.trustViewerCountry ? asCountry(headers[VIEWER_COUNTRY]) : null;
      if (fromEdge) return fromEdge;
      if (!sourceIp) return null;
      // IPv4 callers may appear as IPv4-mapped IPv6 on a dual-stack socket.
      const ip = sourceIp.startsWith("::ffff:") ? sourceIp.slice(7) : sourceIp;
      try {
        const record: unknown = reader.get(ip);
        return asCountry(countryRecord.safeParse(record).data?.country_code);
      } catch {
        return null; // not an IP address
      }
    },
  };
};
