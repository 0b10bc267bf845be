import { describe, expect, it } from "vitest";
import { ISO_4217_CODES } from "../ingest/currencies.ts";
import {
  EUR_PEGS,
  loadEcbRates,
  noUsdRateReason,
  parseEcbRates,
  roundUsd,
  USD_PEGS,
} from "./ecb-rates.ts";

// Newest first with a trailing empty column, as the ECB ships it. 2025-01-10 is a Friday.
// XXX has a rate only on 2025-01-02, to show that an N/A cell is a missing day for that currency.
const CSV = `Date,USD,JPY,GBP,XXX,
2025-01-10,1.03,160,0.83,N/A,
2025-01-09,1.04,161,0.84,N/A,
2025-01-02,1.05,162,0.85,2,
2024-12-20,1.04,163,0.82,N/A,
`;

const fx = parseEcbRates(CSV);

describe("parseEcbRates", () => {
  it("knows the table's dates and currencies", () => {
    expect(fx.firstDate).toBe("2024-12-20");
    expect(fx.lastDate).toBe("2025-01-10");
    expect(fx.currencies).toEqual(
      ["EUR", "GBP", "JPY", "USD", "XXX", ...USD_PEGS.keys(), ...EUR_PEGS.keys()].sort(),
    );
  });

  it("gives a table parsed again the rates parsed last, and another table its own", () => {
    // A copy of the text, not the same string: what a second read of the file gives.
    expect(parseEcbRates(CSV.split("\n").join("\n"))).toBe(parseEcbRates(CSV));
    const other = parseEcbRates(CSV.replace("2025-01-10,1.03", "2025-01-10,1.02"));
    expect(other).not.toBe(fx);
    expect(other.toUsd(1, "EUR", "2025-01-10")).toBe(1.02);
    // A table that does not parse is refused each time, and leaves the last one standing.
    expect(() => parseEcbRates("Date,USD\n")).toThrow(/no rows/);
    expect(() => parseEcbRates("Date,USD\n")).toThrow(/no rows/);
    expect(parseEcbRates(CSV).toUsd(1, "EUR", "2025-01-10")).toBe(1.03);
  });

  it("reads a table written by hand: names in any case, cells spaced, a column of no rate left out", () => {
    const written = parseEcbRates(
      ["Date, usd ,gbp,YYY", " 2025-01-10 , 1.03 , N/A ,", "2025-01-09,1.04, 0.84 , N/A "].join(
        "\n",
      ),
    );
    expect(written.toUsd(1, "EUR", "2025-01-10")).toBe(1.03);
    expect(written.toUsd(0.84, "GBP", "2025-01-09")).toBe(1.04);
    // The GBP cell of the 10th is N/A: the 9th's rate, carried.
    expect(written.toUsd(0.84, "GBP", "2025-01-10")).toBe(1.03);
    expect(written.currencies).not.toContain("YYY");
    expect(written.toUsd(1, "YYY", "2025-01-10")).toBeNull();
  });

  it("rejects a table it cannot trust", () => {
    expect(() => parseEcbRates("Day,USD\n2025-01-10,1.03\n")).toThrow(/header/);
    expect(() => parseEcbRates("Date,USD\n")).toThrow(/no rows/);
    expect(() => parseEcbRates("Date,GBP\n2025-01-10,0.83\n")).toThrow(/USD/);
    expect(() => parseEcbRates("Date,USD\n2025-01-10,abc\n")).toThrow(/bad rate/);
    for (const rate of ["0", "-1", "Infinity"]) {
      expect(() => parseEcbRates(`Date,USD\n2025-01-10,${rate}\n`), rate).toThrow(
        `ECB rates: bad rate "${rate}" for USD on 2025-01-10`,
      );
    }
    expect(() => parseEcbRates("Date,USD\nyesterday,1.03\n")).toThrow('bad date "yesterday"');
    expect(() => parseEcbRates("Date,USD\n2025-13-10,1.03\n")).toThrow(/bad date/);
    expect(() => parseEcbRates("Date,USD\n2025-01-10,1.03\n2025-01-10,1.04\n")).toThrow(
      /duplicate/,
    );
  });
});

describe("toUsd", () => {
  it("converts EUR through the USD column", () => {
    expect(fx.toUsd(10, "EUR", "2025-01-10")).toBe(10.3);
  });

  it("returns USD amounts unchanged, whatever the date", () => {
    expect(fx.toUsd(12.345_678_9, "USD", "2025-01-10")).toBe(12.345_678_9);
    expect(fx.toUsd(5, "USD", "1990-01-01")).toBe(5);
  });

  it("crosses other currencies through the euro", () => {
    expect(fx.toUsd(10, "GBP", "2025-01-10")).toBe(roundUsd((10 / 0.83) * 1.03));
    expect(fx.toUsd(10, "GBP", "2025-01-10")).toBe(12.409_639);
    expect(fx.toUsd(1000, "JPY", "2025-01-10")).toBe(6.4375);
    expect(fx.toUsd(1, "JPY", "2025-01-09")).toBe(0.00646); // 0.006459627… to 6 decimals
    expect(fx.toUsd(-10, "GBP", "2025-01-10")).toBe(-12.409_639);
  });

  it("rounds to the decimal places asked, for a price a report adds up over many touches", () => {
    expect(fx.toUsd(1, "JPY", "2025-01-09", { decimals: 12 })).toBe(0.006459627329);
    expect(fx.toUsd(1, "JPY", "2025-01-09")).toBe(0.00646);
    expect(fx.toUsd(0.2, "EUR", "2025-01-10", { decimals: 12 })).toBe(0.206);
    expect(fx.toUsd(1, "USD", "2025-01-10", { decimals: 12 })).toBe(1);
  });

  it("treats currency codes case-insensitively", () => {
    expect(fx.toUsd(10, "gbp", "2025-01-10")).toBe(12.409_639);
    expect(fx.toUsd(10, " eur ", "2025-01-10")).toBe(10.3);
  });

  it("carries Friday's rate over the weekend", () => {
    expect(fx.toUsd(10, "GBP", "2025-01-11")).toBe(12.409_639);
    expect(fx.toUsd(10, "GBP", "2025-01-12")).toBe(12.409_639);
  });

  it("carries at most maxCarryDays (default 7) back", () => {
    expect(fx.toUsd(10, "EUR", "2025-01-17")).toBe(10.3);
    expect(fx.toUsd(10, "EUR", "2025-01-18")).toBeNull();
    // 2024-12-20 to 2025-01-02 is a 13-day hole in this table.
    expect(fx.toUsd(10, "EUR", "2024-12-27")).toBe(10.4);
    expect(fx.toUsd(10, "EUR", "2024-12-28")).toBeNull();
    expect(fx.toUsd(10, "EUR", "2024-12-28", { maxCarryDays: 14 })).toBe(10.4);
    expect(fx.toUsd(10, "EUR", "2025-01-11", { maxCarryDays: 0 })).toBeNull();
    expect(fx.toUsd(10, "EUR", "2030-06-01", { maxCarryDays: Number.POSITIVE_INFINITY })).toBe(
      10.3,
    );
  });

  it("treats an N/A cell as a missing day for that currency only", () => {
    expect(fx.toUsd(2, "XXX", "2025-01-02")).toBe(1.05);
    expect(fx.toUsd(2, "XXX", "2025-01-09")).toBe(1.04); // XXX carried 7 days, USD of the day
    expect(fx.toUsd(2, "XXX", "2025-01-10")).toBeNull();
  });

  it("converts a currency pegged to the US dollar at its peg, on any day the table has or not", () => {
    expect(fx.toUsd(3.75, "SAR", "2025-01-10")).toBe(1);
    expect(fx.toUsd(100, "sar", "2025-01-10")).toBe(26.666_667);
    expect(fx.toUsd(36.725, "AED", "2025-01-10")).toBe(10);
    expect(fx.toUsd(36.4, "QAR", "2025-01-10")).toBe(10);
    expect(fx.toUsd(0.376, "BHD", "2025-01-10")).toBe(1);
    expect(fx.toUsd(0.3845, "OMR", "2025-01-10")).toBe(1);
    expect(fx.toUsd(0.709, "JOD", "2025-01-10")).toBe(1);
    expect(fx.toUsd(10, "KYD", "2025-01-10")).toBe(12);
    expect(fx.toUsd(27, "XCD", "2025-01-10")).toBe(10);
    // A peg needs no table: a day after its last row, or before its first, converts too.
    expect(fx.toUsd(-7.5, "SAR", "2026-11-30")).toBe(-2);
    expect(fx.toUsd(7.5, "SAR", "2024-01-01")).toBe(2);
    // A basket peg is not one: the Kuwaiti dinar moves.
    expect(fx.toUsd(1, "KWD", "2025-01-10")).toBeNull();
    for (const code of USD_PEGS.keys()) expect(ISO_4217_CODES.has(code), code).toBe(true);
  });

  it("converts a currency fixed to the euro at its peg, then at the day's euro rate", () => {
    // 655.957 XOF is 1 EUR, and a euro was 1.03 USD on 2025-01-10, 1.04 on 2025-01-09.
    expect(fx.toUsd(655.957, "XOF", "2025-01-10")).toBe(1.03);
    expect(fx.toUsd(6_559.57, "xaf", "2025-01-09")).toBe(10.4);
    expect(fx.toUsd(1_193.317_422, "XPF", "2025-01-10")).toBe(10.3);
    expect(fx.toUsd(-110.265, "CVE", "2025-01-10")).toBe(-1.03);
    expect(fx.toUsd(1.955_83, "BGN", "2025-01-10")).toBe(1.03);
    // A weekend carries Friday's euro rate, as a euro amount does.
    expect(fx.toUsd(655.957, "XOF", "2025-01-12")).toBe(1.03);
    // No euro rate of the day, no dollar amount: the peg alone does not give one.
    expect(fx.toUsd(655.957, "XOF", "2024-12-19")).toBeNull();
    expect(fx.toUsd(655.957, "XOF", "2025-01-30")).toBeNull();
    for (const code of EUR_PEGS.keys()) expect(ISO_4217_CODES.has(code), code).toBe(true);
  });

  it("returns null for an unknown currency", () => {
    expect(fx.toUsd(10, "ABC", "2025-01-10")).toBeNull();
    expect(fx.toUsd(10, "", "2025-01-10")).toBeNull();
  });

  it("returns null before the first row, however far it may carry", () => {
    expect(fx.toUsd(10, "EUR", "2024-12-19")).toBeNull();
    expect(
      fx.toUsd(10, "GBP", "2024-12-19", { maxCarryDays: Number.POSITIVE_INFINITY }),
    ).toBeNull();
  });

  it("returns null for an amount that is not a number", () => {
    expect(fx.toUsd(Number.NaN, "EUR", "2025-01-10")).toBeNull();
    expect(fx.toUsd(Number.POSITIVE_INFINITY, "USD", "2025-01-10")).toBeNull();
  });

  it("rejects a date that is not yyyy-mm-dd", () => {
    expect(() => fx.toUsd(10, "EUR", "2025-01-10T12:00:00Z")).toThrow(RangeError);
    expect(() => fx.toUsd(10, "EUR", "2025-02-30")).toThrow(RangeError);
  });
});

describe("noUsdRateReason", () => {
  it("says why each kind of amount has no USD figure, as toUsd gives none", () => {
    const cases = [
      ["VND", "2025-01-10", "the ECB publishes no rate of VND"],
      ["gbp", "2025-01-20", "the rates known here end on 2025-01-10"],
      ["GBP", "2024-12-01", "the rates known here begin on 2024-12-20"],
      ["XXX", "2025-01-10", "no rate of XXX is known on 2025-01-10 or the 7 days before it"],
    ] as const;
    for (const [currency, day, reason] of cases) {
      expect(fx.toUsd(10, currency, day), currency).toBeNull();
      expect(noUsdRateReason(fx, currency, day)).toBe(reason);
    }
  });
});

describe("toUsd at the edge of the double range", () => {
  it("answers null rather than an infinity when the conversion overflows", async () => {
    const shipped = await loadEcbRates();
    expect(shipped.toUsd(1.7e308, "EUR", "2025-05-09")).toBeNull();
    expect(shipped.toUsd(1e308, "JPY", "2025-05-09")).not.toBeNull();
  });
});

describe("roundUsd", () => {
  it("keeps 6 decimals, half away from zero, without negative zero", () => {
    expect(roundUsd(1.234_567_49)).toBe(1.234_567);
    expect(roundUsd(1.234_567_51)).toBe(1.234_568);
    expect(roundUsd(-1.234_567_51)).toBe(-1.234_568);
    expect(Object.is(roundUsd(-0.000_000_1), 0)).toBe(true);
  });
});

describe("the shipped ECB table", () => {
  it("converts at the rate of a known date", async () => {
    const shipped = await loadEcbRates();
    expect(shipped.firstDate).toBe("1999-01-04");
    expect(shipped.currencies).toEqual(
      expect.arrayContaining(["EUR", "USD", "GBP", "JPY", "BRL", "INR"]),
    );
    // 2025-05-09: USD 1.1252 and GBP 0.8477 per EUR.
    expect(shipped.toUsd(10, "GBP", "2025-05-09")).toBe(roundUsd((10 / 0.8477) * 1.1252));
    expect(shipped.toUsd(10, "GBP", "2025-05-09")).toBeCloseTo(13.273_564, 6);
    expect(shipped.toUsd(100, "EUR", "2025-05-09")).toBe(112.52);
    expect(shipped.toUsd(1000, "JPY", "2025-05-09")).toBe(roundUsd((1000 / 163.36) * 1.1252));
  });
});
