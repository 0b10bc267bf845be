/**
 * Where demo devices connect from: public IPv4 addresses that the service's own country
 * database places in each market, so an install's export row names its country the way a real
 * one does. Homes get an address of their own; a carrier's NAT puts many phones of a country
 * behind a few public addresses, which a probabilistic match must not trust.
 */
import type { CountryResolver } from "../ports/geo.ts";
import type { Random } from "./prng.ts";

export interface Addresses {
  /** A home's address in the country. */
  home(country: string): string;
  /** The public side of one of the country's carrier NATs. */
  carrier(country: string): string;
}

/** /24 blocks per country to draw homes from: enough that two homes rarely share an address. */
const BLOCKS_PER_COUNTRY = 48;
const CARRIERS_PER_COUNTRY = 3;
/** Draws before giving up on a country the database barely knows (then it has no address). */
const MAX_DRAWS = 2_000_000;

/**
 * Finds /24 blocks of each country by drawing addresses and asking the country database, so
 * the blocks are the database's, whatever release of it is installed. A country still short of
 * blocks after `maxDraws` draws has what was found, or no address.
 */
export const findAddresses = (
  countries: readonly string[],
  resolver: CountryResolver,
  random: Random,
  maxDraws = MAX_DRAWS,
): Addresses => {
  const wanted = new Set(countries);
  const blocks = new Map<string, string[]>(countries.map((c) => [c, []]));
  const full = () => [...blocks.values()].every((list) => list.length >= BLOCKS_PER_COUNTRY);
  for (let draw = 0; draw < maxDraws && !full(); draw++) {
    const block = `${random.int(1, 223)}.${random.int(0, 255)}.${random.int(0, 255)}`;
    const countryOf = (host: number) =>
      resolver.countryOf({ sourceIp: `${block}.${host}`, headers: {} });
    const country = countryOf(1);
    const list = country && wanted.has(country) ? blocks.get(country) : undefined;
    if (!list || list.length >= BLOCKS_PER_COUNTRY || list.includes(block)) continue;
    // The database splits some blocks between countries: take only whole ones.
    let whole = true;
    for (let host = 2; host <= 254 && whole; host++) whole = countryOf(host) === country;
    if (whole) list.push(block);
  }
  const blockOf = (country: string, index: number): string => {
    const list = blocks.get(country) ?? [];
    const block = list[index % Math.max(1, list.length)];
    if (!block) throw new Error(`the country database has no address in ${country}`);
    return block;
  };
  return {
    home: (country) => `${blockOf(country, random.int(0, 1_000))}.${random.int(2, 254)}`,
    // The first blocks of a country, one address each: the same few for every phone behind them.
    carrier: (country) => `${blockOf(country, random.int(0, CARRIERS_PER_COUNTRY - 1))}.1`,
  };
};
