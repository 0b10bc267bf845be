/**
 * USD conversion from the ECB euro foreign exchange reference rates (docs/cli.md#revenue-in-usd).
 * The ECB publishes units of each currency per 1 EUR on business days only, so a day without a
 * rate (weekend, TARGET holiday, or an `N/A` cell) carries the last earlier known rate — but only
 * a bounded number of days back: past that the rate is unknown and the answer is null, never a
 * guessed rate. Currencies their central bank holds at a fixed rate to the US dollar, which the
 * ECB does not publish, convert at that rate (USD_PEGS); those held at a fixed rate to the euro
 * convert to euros at it, then at the day's USD rate as a euro does (EUR_PEGS).
 */
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import { DAY_MS } from "../domain/time.ts";

export interface ToUsdOptions {
  /**
   * How many days back a missing day may carry the last known rate. Default 7: wide enough for
   * the longest ECB closure (Christmas to New Year, Easter) with room to spare, short enough that
   * a stale table is noticed (null) instead of silently converting at months-old rates.
   */
  readonly maxCarryDays?: number;
  /**
   * Decimal places of the result: 6 unless asked (`roundUsd`). A price a report adds up over
   * many touches (a CPM impression's share of it) takes more: each rounded alike to a
   * micro-dollar, the sum would drift one way. The report rounds the sum.
   */
  readonly decimals?: number;
}

export interface FxRates {
  /** Oldest and newest dates (yyyy-mm-dd) in the table. */
  readonly firstDate: string;
  readonly lastDate: string;
  /** ISO 4217 codes that can be converted (EUR, the base, included), sorted. */
  readonly currencies: readonly string[];
  /**
   * `amount` of `currency` in USD at the rate of `date` (yyyy-mm-dd, the event's UTC date).
   * Null when no rate is known for that currency within `maxCarryDays` of the date, for an
   * unknown currency, or for a non-finite amount. USD is returned unchanged (no rate involved); a
   * currency of USD_PEGS converts at its peg, whatever the date, and one of EUR_PEGS at its peg
   * to the euro and the date's euro rate. Other results are rounded to 6
   * decimal places (see `roundUsd`), or to `decimals`.
   */
  toUsd(amount: number, currency: string, date: string, options?: ToUsdOptions): number | null;
}

export const DEFAULT_MAX_CARRY_DAYS = 7;

/**
 * Units per US dollar of the currencies pegged to it by law at one fixed rate, which the ECB
 * publishes no rate of: without them, revenue and spend in the Gulf's currencies (a large share
 * of app store revenue in the region) would have no USD amount at all. Only hard pegs, each held
 * since before the ECB's table begins (1999) or, for XCG, since the currency began: a peg to a
 * basket (KWD) or a band (HKD, which the ECB publishes anyway) moves, and is left to the table.
 *
 * - AED 3.6725 (UAE, since 1997), SAR 3.75 (Saudi Arabia, 1986), QAR 3.64 (Qatar, law of 2001,
 *   the rate held since 1980), BHD 0.376 (Bahrain, 1980), OMR 0.3845 (Oman, 1986), JOD 0.709
 *   (Jordan, 1995);
 * - BMD 1 (Bermuda, 1972), BSD 1 (Bahamas, 1966), PAB 1 (Panama: the balboa is at par, and US
 *   notes circulate as its own), BBD 2 (Barbados, 1975), BZD 2 (Belize, 1976), XCD 2.7 (the
 *   Eastern Caribbean Central Bank's currency board, 1976), KYD 1/1.2 (Cayman Islands, 1974),
 *   AWG 1.79 (Aruba, 1986), ANG and its successor XCG 1.79 (Curaçao and Sint Maarten, 1971 and
 *   2025), DJF 177.721 (Djibouti's currency board, 1973).
 */
export const USD_PEGS: ReadonlyMap<string, number> = new Map([
  ["AED", 3.6725],
  ["SAR", 3.75],
  ["QAR", 3.64],
  ["BHD", 0.376],
  ["OMR", 0.3845],
  ["JOD", 0.709],
  ["BMD", 1],
  ["BSD", 1],
  ["PAB", 1],
  ["BBD", 2],
  ["BZD", 2],
  ["XCD", 2.7],
  ["KYD", 1 / 1.2],
  ["AWG", 1.79],
  ["ANG", 1.79],
  ["XCG", 1.79],
  ["DJF", 177.721],
]);

/**
 * Units per euro of the currencies fixed to it by law (by treaty with the euro area, or a
 * currency board), which the ECB publishes no rate of: without them, revenue in West and
 * Central Africa's CFA francs, among the larger mobile markets of the continent, would have no
 * USD amount at all. Each amount is a euro amount at the peg, converted at the day's USD rate.
 *
 * - XOF and XAF 655.957 (the West and Central African CFA francs, since the euro began in 1999,
 *   the French franc's parity before), KMF 491.96775 (Comoros, 1999), XPF 1000/8.38 (the CFP
 *   franc of French Polynesia, New Caledonia and Wallis and Futuna, 1999), CVE 110.265 (Cape
 *   Verde, 1999), BAM 1.95583 (Bosnia and Herzegovina's currency board, 1999), STN 24.5 (São
 *   Tomé and Príncipe, since the dobra was redenominated in 2018, at the peg of 2010);
 * - BGN 1.95583, the lev's irrevocable rate since Bulgaria took the euro on 2026-01-01: the ECB
 *   published it until then at the same figure, and no longer does.
 */
export const EUR_PEGS: ReadonlyMap<string, number> = new Map([
  ["XOF", 655.957],
  ["XAF", 655.957],
  ["KMF", 491.96775],
  ["XPF", 1000 / 8.38],
  ["CVE", 110.265],
  ["BAM", 1.95583],
  ["STN", 24.5],
  ["BGN", 1.95583],
]);

/** One currency's known rates, ascending by day; days without a rate are simply absent. */
interface RateSeries {
  readonly days: Int32Array;
  readonly perEur: Float64Array;
}

/** Days since 1970-01-01 of a yyyy-mm-dd date, or null unless it is a real calendar date. */
const epochDay = (date: string): number | null => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const ms = Date.UTC(
    Number(date.slice(0, 4)),
    Number(date.slice(5, 7)) - 1,
    Number(date.slice(8, 10)),
  );
  // Date.UTC rolls 2025-02-30 over to March; a round trip rejects it.
  return new Date(ms).toISOString().slice(0, 10) === date ? ms / DAY_MS : null;
};

const dateOfDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * Six decimals: the ECB publishes 4–6 significant digits, so more would be noise, while a
 * micro-dollar still keeps sub-cent amounts (1 JPY ≈ 0.0069 USD) distinct and sums of many
 * small events unbiased, which rounding to cents would not. It also makes the value identical
 * in every export format. `toFixed` rounds half away from zero, symmetric for refunds.
 */
export const roundUsd = (value: number, decimals = 6): number => {
  const rounded = Number(value.toFixed(decimals));
  return rounded === 0 ? 0 : rounded; // no "-0" in exports
};

/** Index of the last element <= day, or -1. */
const lastAtOrBefore = (days: Int32Array, day: number): number => {
  let lo = 0;
  let hi = days.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((days[mid] ?? 0) <= day) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
};

const perEurOn = (series: RateSeries, day: number, maxCarryDays: number): number | null => {
  const index = lastAtOrBefore(series.days, day);
  if (index < 0) return null;
  const rateDay = series.days[index] ?? Number.NEGATIVE_INFINITY;
  if (day - rateDay > maxCarryDays) return null;
  return series.perEur[index] ?? null;
};

/** A cell's rate, or null for none; the caller names the cell only when it is bad. */
const parseRate = (cell: string): number | null | "bad" => {
  const text = cell.trim();
  if (text === "" || text === "N/A") return null;
  const value = Number(text);
  return Number.isFinite(value) && value > 0 ? value : "bad";
};

/**
 * The table parsed last, with its text: a process that parses the same table again (a runtime
 * started again, a function's cold start beside another's in one process) gets it at once, as a
 * table is the same rates whoever reads it, and parsing the shipped one is most of a runtime's
 * start.
 */
let lastParsed: { readonly text: string; readonly rates: FxRates } | undefined;

/** Parses the ECB history CSV (`Date,USD,JPY,…`, any row order). Throws on a malformed table. */
export const parseEcbRates = (csvText: string): FxRates => {
  if (lastParsed?.text === csvText) return lastParsed.rates;
  const rates = parseTable(csvText);
  lastParsed = { text: csvText, rates };
  return rates;
};

const parseTable = (csvText: string): FxRates => {
  const rows: string[][] = parse(csvText, { skip_empty_lines: true, relax_column_count: true });
  const [header, ...body] = rows;
  if (header?.[0]?.trim() !== "Date") throw new Error("ECB rates: header must start with Date");
  if (body.length === 0) throw new Error("ECB rates: no rows");

  // The ECB file ends every line with a comma, so the last header cell is empty: skip it.
  const columns = header
    .map((name, index) => ({ code: name.trim().toUpperCase(), index }))
    .filter((c) => c.index > 0 && c.code !== "");

  const byDay = new Map<number, string[]>();
  for (const row of body) {
    const date = row[0]?.trim() ?? "";
    const day = epochDay(date);
    if (day === null) throw new Error(`ECB rates: bad date "${date}"`);
    if (byDay.has(day)) throw new Error(`ECB rates: duplicate date ${date}`);
    byDay.set(day, row);
  }
  // The file is newest first; sort once so every lookup is a binary search.
  const days = [...byDay.keys()].sort((a, b) => a - b);

  const series = new Map<string, RateSeries>();
  for (const { code, index } of columns) {
    const known: { day: number; rate: number }[] = [];
    for (const day of days) {
      const cell = byDay.get(day)?.[index] ?? "";
      const rate = parseRate(cell);
      if (rate === "bad") {
        throw new Error(`ECB rates: bad rate "${cell}" for ${code} on ${dateOfDay(day)}`);
      }
      if (rate !== null) known.push({ day, rate });
    }
    if (known.length === 0) continue; // a column with no rate at all converts nothing
    series.set(code, {
      days: Int32Array.from(known, (k) => k.day),
      perEur: Float64Array.from(known, (k) => k.rate),
    });
  }

  const usd = series.get("USD");
  if (!usd) throw new Error("ECB rates: no USD column");
  const firstDay = days[0] ?? 0;
  const lastDay = days[days.length - 1] ?? 0;

  // Export pages are sorted by time, so consecutive calls nearly always ask for the same date.
  let memoDate = "";
  let memoDay: number | null = null;
  const dayOfEvent = (date: string): number => {
    if (date !== memoDate) {
      memoDay = epochDay(date);
      memoDate = date;
    }
    if (memoDay === null) throw new RangeError(`toUsd: date must be yyyy-mm-dd, got "${date}"`);
    return memoDay;
  };

  return {
    firstDate: dateOfDay(firstDay),
    lastDate: dateOfDay(lastDay),
    currencies: [
      ...new Set(["EUR", ...series.keys(), ...USD_PEGS.keys(), ...EUR_PEGS.keys()]),
    ].sort(),
    toUsd(amount, currency, date, options) {
      const day = dayOfEvent(date);
      if (!Number.isFinite(amount)) return null;
      const code = currency.trim().toUpperCase();
      if (code === "USD") return amount;
      // An amount near the largest double can overflow: no number is then the honest answer.
      const usdOf = (value: number) =>
        Number.isFinite(value) ? roundUsd(value, options?.decimals) : null;
      // A peg is the rate of every day, whatever the table holds or how old it is.
      const pegged = USD_PEGS.get(code);
      if (pegged !== undefined) return usdOf(amount / pegged);
      const maxCarryDays = options?.maxCarryDays ?? DEFAULT_MAX_CARRY_DAYS;
      const usdPerEur = perEurOn(usd, day, maxCarryDays);
      if (usdPerEur === null) return null;
      if (code === "EUR") return usdOf(amount * usdPerEur);
      const perEurPegged = EUR_PEGS.get(code);
      if (perEurPegged !== undefined) return usdOf((amount / perEurPegged) * usdPerEur);
      const other = series.get(code);
      const perEur = other ? perEurOn(other, day, maxCarryDays) : null;
      if (perEur === null) return null;
      // Cross rate through the euro: amount / (units per EUR) * (USD per EUR).
      return usdOf((amount / perEur) * usdPerEur);
    },
  };
};

/**
 * Why `toUsd` gave no amount of `currency` on `day` (yyyy-mm-dd), for a warning to say, and what
 * the sender can do about it: a currency the ECB does not publish never converts, and a day past
 * the table's last rate converts only once newer rates are in.
 */
export const noUsdRateReason = (
  fx: Pick<FxRates, "currencies" | "firstDate" | "lastDate">,
  currency: string,
  day: string,
): string => {
  const code = currency.trim().toUpperCase();
  if (!fx.currencies.includes(code)) return `the ECB publishes no rate of ${code}`;
  if (day > fx.lastDate) return `the rates known here end on ${fx.lastDate}`;
  if (day < fx.firstDate) return `the rates known here begin on ${fx.firstDate}`;
  return `no rate of ${code} is known on ${day} or the ${DEFAULT_MAX_CARRY_DAYS} days before it`;
};

export const SHIPPED_ECB_RATES = new URL("../../data/ecb-eurofxref-hist.csv", import.meta.url);

/** Reads and parses the ECB table; by default the snapshot shipped with the service. */
export const loadEcbRates = async (path: string | URL = SHIPPED_ECB_RATES): Promise<FxRates> =>
  parseEcbRates(await readFile(path, "utf8"));
