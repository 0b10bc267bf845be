import { describe, expect, it } from "vitest";
import { parseEcbRates } from "../fx/ecb-rates.ts";
import { ISO_4217_CODES } from "./currencies.ts";
import { readRevenue } from "./revenue.ts";

/** A stand-in for the crypto module: `sealed:<json>` opens to the JSON value. */
const open = (value: string): unknown =>
  value.startsWith("sealed:") ? JSON.parse(value.slice("sealed:".length)) : undefined;

const revenueOf = (parameters: Record<string, string | number | boolean>) => {
  const result = readRevenue(parameters, open);
  return result.ok ? result : { problems: result.problems };
};

/** The revenue recorded for accepted parameters; throws on refused ones. */
const recorded = (parameters: Record<string, string | number | boolean>) => {
  const result = readRevenue(parameters, open);
  if (!result.ok) throw new Error(result.problems.join("; "));
  return result.revenue;
};

describe("readRevenue", () => {
  it("is null without a revenue parameter, whatever `currency` holds", () => {
    expect(revenueOf({})).toEqual({ ok: true, revenue: null, warnings: [] });
    expect(revenueOf({ currency: "gems" })).toEqual({ ok: true, revenue: null, warnings: [] });
  });

  it("reads a finite number with its ISO 4217 currency", () => {
    expect(revenueOf({ revenue: 9.99, currency: "EUR" })).toEqual({
      ok: true,
      revenue: { amount: 9.99, currency: "EUR" },
      warnings: [],
    });
  });

  it("reads a decimal string, and keeps a negative amount (a refund)", () => {
    expect(recorded({ revenue: "9.99", currency: "USD" })).toEqual({
      amount: 9.99,
      currency: "USD",
    });
    expect(recorded({ revenue: " -1.5 ", currency: "USD" })?.amount).toBe(-1.5);
    expect(recorded({ revenue: "10", currency: "JPY" })?.amount).toBe(10);
    expect(recorded({ revenue: ".5", currency: "JPY" })?.amount).toBe(0.5);
    // A sign either way, and a point with no digits after it, as JSON numbers are written loosely.
    expect(recorded({ revenue: "+2", currency: "JPY" })?.amount).toBe(2);
    expect(recorded({ revenue: "9.", currency: "JPY" })?.amount).toBe(9);
    expect(Object.is(recorded({ revenue: "-0", currency: "JPY" })?.amount, 0)).toBe(true);
  });

  it("refuses what is not a plain decimal", () => {
    const problem = {
      problems: ['parameters.revenue: must be a finite number or a decimal string such as "9.99"'],
    };
    for (const revenue of ["1e3", "9,99", "1,000", "", "abc", "0x10", "Infinity", true]) {
      expect(revenueOf({ revenue, currency: "USD" })).toEqual(problem);
    }
    expect(revenueOf({ revenue: `1${"0".repeat(400)}`, currency: "USD" })).toEqual(problem);
    // A JSON number past a double's range parses as Infinity: no finite number either.
    expect(revenueOf({ revenue: JSON.parse("1e400"), currency: "USD" })).toEqual(problem);
  });

  it("refuses an amount beyond a trillion either way, whose sums a report could not add", () => {
    const problem = {
      problems: ["parameters.revenue: must be from -1000000000000 to 1000000000000"],
    };
    expect(recorded({ revenue: 1e12, currency: "IRR" })?.amount).toBe(1e12);
    expect(recorded({ revenue: "-1000000000000", currency: "IRR" })?.amount).toBe(-1e12);
    expect(revenueOf({ revenue: 1e308, currency: "USD" })).toEqual(problem);
    expect(revenueOf({ revenue: "-1000000000000.01", currency: "USD" })).toEqual(problem);
  });

  it("does not record revenue without a currency: no guessed USD", () => {
    expect(revenueOf({ revenue: 1000 })).toEqual({
      ok: true,
      revenue: null,
      warnings: [
        "parameters.revenue was not recorded as revenue: parameters.currency (ISO 4217, e.g. USD) is missing",
      ],
    });
  });

  it("takes a code in any case, and keeps an event whose currency is no code without revenue", () => {
    expect(recorded({ revenue: 1, currency: "usd" })).toEqual({ amount: 1, currency: "USD" });
    expect(recorded({ revenue: 1, currency: " Eur " })).toEqual({ amount: 1, currency: "EUR" });
    for (const [currency, shown] of [
      [840, "840"],
      ["ABC", "ABC"],
      ["XXX", "XXX"],
      ["US Dollar", "US Dollar"],
    ] as const) {
      expect(revenueOf({ revenue: 1, currency })).toEqual({
        ok: true,
        revenue: null,
        warnings: [
          `parameters.revenue was not recorded as revenue: parameters.currency "${shown}" is not an ISO 4217 code (e.g. USD)`,
        ],
      });
    }
  });

  it("accepts an ISO currency the ECB has no rate for", () => {
    expect(recorded({ revenue: 5, currency: "AED" })).toEqual({
      amount: 5,
      currency: "AED",
    });
  });

  it("opens a sealed revenue and currency through the injected open", () => {
    expect(recorded({ revenue: "sealed:12.5", currency: 'sealed:"GBP"' })).toEqual({
      amount: 12.5,
      currency: "GBP",
    });
    expect(recorded({ revenue: 'sealed:"7.25"', currency: "EUR" })?.amount).toBe(7.25);
    expect(revenueOf({ revenue: "sealed:true", currency: "EUR" })).toEqual({
      problems: ['parameters.revenue: must be a finite number or a decimal string such as "9.99"'],
    });
  });

  it("refuses a sealed value that cannot be opened", () => {
    expect(revenueOf({ revenue: "sealed:{broken", currency: "EUR" })).toEqual({
      problems: ["parameters.revenue: is sealed but could not be opened"],
    });
    expect(revenueOf({ revenue: 1, currency: "sealed:{broken" })).toEqual({
      problems: ["parameters.currency: is sealed but could not be opened"],
    });
  });
});

describe("ISO_4217_CODES", () => {
  it("holds every currency the ECB publishes today", () => {
    // Today's ECB reference currencies (2025); the historical ones (CYP, DEM…) predate any event.
    const ecb =
      "USD JPY BGN CZK DKK GBP HUF PLN RON SEK CHF ISK NOK TRY AUD BRL CAD CNY HKD IDR ILS INR KRW MXN MYR NZD PHP SGD THB ZAR EUR";
    const fx = parseEcbRates(`Date,${ecb.replace(/ /g, ",")}\n2025-01-10,${"1,".repeat(31)}\n`);
    for (const code of fx.currencies) expect(ISO_4217_CODES.has(code), code).toBe(true);
  });

  it("holds only three-letter uppercase codes", () => {
    for (const code of ISO_4217_CODES) expect(code).toMatch(/^[A-Z]{3}$/);
  });
});
