/** The service's refusal of an upload's page as the Cost page says it beside the file's rows. */
import { describe, expect, it } from "vitest";
import {
  type CostFileRow,
  costPages,
  costProblems,
  costRowsProblem,
  readCostCsv,
} from "../../dashboard/src/cost-csv.ts";
import { costRowsOfCsv } from "../../src/cli/commands/costs.ts";
import { INGEST_LIMITS } from "../../src/ingest/limits.ts";

const fileRow = (number: number): CostFileRow => ({
  number,
  line: number + 1,
  cells: {},
  row: { day: "2026-11-27", media_source: "net", campaign_id: "c1", amount: 1, currency: "USD" },
});

describe("costProblems", () => {
  it("names the other row of two of one day and keys by its number in the file", () => {
    // The second page of a file: its rows 1,001 to 1,003.
    const page = [fileRow(1001), fileRow(1002), fileRow(1003)];
    const { problems } = costProblems(
      "body.rows[2]: has the day, media source, campaign, ad set, ad and country of body.rows[0]: one row for them, in one currency",
      page,
    );
    expect(problems).toEqual([
      {
        row: 1003,
        column: null,
        message:
          "has the day, media source, campaign, ad set, ad and country of row 1,001: one row for them, in one currency",
      },
    ]);
  });
});

describe("readCostCsv", () => {
  const header = "day,media_source,campaign_id,country,amount,currency";
  const filler = (count: number) =>
    Array.from({ length: count }, (_, index) => `2026-11-26,net,c${index},,1,USD`);

  it("refuses a file with two rows of one day and keys, even a request apart", () => {
    // Rows 1 and 1,201: the page would send them in two requests, the later replacing.
    const text = [
      header,
      "2026-11-27,net,c1,DE,10,EUR",
      ...filler(1199),
      "2026-11-27, net ,c1,DE,11,USD",
    ];
    const reading = readCostCsv(text.join("\n"));
    expect(reading).toEqual({
      ok: false,
      problem:
        "Line 1,202 has the day, media source, campaign, ad set, ad and country of line 2: one row for them, in one currency.",
    });
  });

  it("reads rows that differ in any key", () => {
    const text = [header, "2026-11-27,net,c1,DE,10,EUR", "2026-11-27,net,c1,FR,10,EUR"];
    const reading = readCostCsv(text.join("\n"));
    expect(reading.ok && reading.file.rows.length).toBe(2);
  });

  it("refuses a file with two rows of one ad set whose names differ only in case or Unicode form", () => {
    const text = [
      "day,media_source,campaign_id,adset_name,amount,currency",
      `2026-11-27,net,c1,${"Café".normalize("NFC")},10,EUR`,
      "2026-11-27,net,c1,Set A,10,EUR",
      `2026-11-27,net,c1,${"CAFÉ".normalize("NFD")},11,USD`,
    ];
    expect(readCostCsv(text.join("\n"))).toEqual({
      ok: false,
      problem:
        "Line 4 has the day, media source, campaign, ad set, ad and country of line 2: one row for them, in one currency.",
    });
  });
});

describe("costPages", () => {
  it("sends each request within the route's body limit, as the command line does", () => {
    const long = "広告キャンペーン".repeat(15);
    const header = "day,media_source,campaign_id,campaign_name,adset_name,ad_name,amount,currency";
    const lines = Array.from(
      { length: 1_000 },
      (_, n) => `2026-11-27,net,c${n},${long}${n},${long}${n},${long}${n},1.5,USD`,
    );
    const reading = readCostCsv([header, ...lines].join("\n"));
    if (!reading.ok) throw new Error(reading.problem);
    const pages = costPages(reading.file.rows);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) {
      const body = JSON.stringify({ rows: page.map((row) => row.row) });
      expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(INGEST_LIMITS.maxBodyBytes);
    }
    expect(pages.flat()).toEqual(reading.file.rows);
  });
});

describe("costRowsProblem", () => {
  const now = new Date("2026-11-29T12:00:00Z");
  const rowsOf = (lines: string[]) => {
    const reading = readCostCsv(
      ["day,media_source,campaign_id,amount,currency", ...lines].join("\n"),
    );
    if (!reading.ok) throw new Error(reading.problem);
    return reading.file.rows;
  };

  it("refuses a file whose last row, a request after the first, is after tomorrow, before any is sent", () => {
    const rows = rowsOf([
      ...Array.from({ length: 1_000 }, (_, n) => `2026-11-28,net,c${n},1,USD`),
      "2026-12-01,net,late,1,USD",
    ]);
    expect(costPages(rows).length).toBe(2);
    expect(costRowsProblem(rows, now)).toBe(
      "Line 1,002, day: must not be after tomorrow (2026-11-30, UTC). Nothing was sent: correct the file and choose it again.",
    );
  });

  it("refuses rows the service's schema refuses, an empty required cell in the page's words", () => {
    const rows = rowsOf([
      "2026-11-28,net,c1,lots,USD",
      "2026-11-28,net,c2,1,",
      "2026-08-01,net,c3,1,XXX",
    ]);
    expect(costRowsProblem(rows, now)).toBe(
      "Line 2, amount: must be a number; line 3, currency: is empty: every row needs one; line 4, currency: must be an ISO 4217 currency code. Nothing was sent: correct the file and choose it again.",
    );
  });

  it("counts the problems past the first five", () => {
    const rows = rowsOf(Array.from({ length: 7 }, (_, n) => `2026-12-0${n + 1},net,c${n},1,USD`));
    expect(costRowsProblem(rows, now)).toMatch(
      /^Line 2, day: .*; line 6, day: [^;]*; and 2 more\. /,
    );
  });

  it("takes a file of days from 90 days back to today", () => {
    expect(
      costRowsProblem(rowsOf(["2026-08-31,net,c1,1,USD", "2026-11-29,net,c2,1,USD"]), now),
    ).toBe(null);
  });
});

describe("a file's numbers, read alike by the Cost page and the CLI", () => {
  const header = "day,media_source,campaign_id,amount,currency,impressions,clicks";
  /** Cells of the number columns, each in a row of its own, and what both make of them. */
  const CASES: [cell: string, read: string | number][] = [
    ["12", 12],
    ["12.5", 12.5],
    [".5", 0.5],
    ["+3", 3],
    ["0", 0],
    ["0x10", "0x10"],
    ["0b101", "0b101"],
    ["0o17", "0o17"],
    ["1e3", "1e3"],
    ["1.8E+05", "1.8E+05"],
    ["12.", "12."],
    ["Infinity", "Infinity"],
    ["1,000", "1,000"],
    ["12 USD", "12 USD"],
  ];
  const text = [
    header,
    // Quoted: "1,000" is one cell.
    ...CASES.map(([cell], index) => `2026-11-27,net,c${index},"${cell}",USD,"${cell}","${cell}"`),
  ].join("\n");

  it("reads a plain decimal as a number and keeps any other cell as text, as the CLI does", () => {
    const reading = readCostCsv(text);
    if (!reading.ok) throw new Error(reading.problem);
    const page = reading.file.rows.map(({ row }) => row);
    expect(page.map((row) => [row.amount, row.impressions, row.clicks])).toEqual(
      CASES.map(([, read]) => [read, read, read]),
    );
    expect(page).toEqual(costRowsOfCsv(text).rows);
  });

  it("refuses the rows the CLI refuses: a hexadecimal or exponent amount is no spend", () => {
    const reading = readCostCsv(
      [header, "2026-11-27,net,c1,0x10,USD,1.8E+05,1e3", "2026-11-26,net,c1,1e3,EUR,,"].join("\n"),
    );
    if (!reading.ok) throw new Error(reading.problem);
    expect(costRowsProblem(reading.file.rows, new Date("2026-11-29T12:00:00Z"))).toMatch(
      /^Line 2, amount: must be a number; line 2, impressions: must be a whole number; line 2, clicks: must be a whole number; line 3, amount: must be a number\./,
    );
  });
});
