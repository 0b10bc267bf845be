import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import {
  COST_COLUMNS,
  COST_CSV_OPTIONS,
  type CostCsvRecord,
  costCsvRows,
  REQUIRED_COLUMNS,
} from "./cost-csv.ts";

const read = (text: string) =>
  costCsvRows(parse(text, COST_CSV_OPTIONS) as unknown as CostCsvRecord[]);

describe("a cost file", () => {
  it("has the body's fields as its columns, those the schema requires required", () => {
    expect(COST_COLUMNS).toEqual([
      "day",
      "media_source",
      "campaign_id",
      "campaign_name",
      "adset_id",
      "adset_name",
      "ad_id",
      "ad_name",
      "country",
      "amount",
      "currency",
      "impressions",
      "clicks",
    ]);
    expect(REQUIRED_COLUMNS).toEqual(["day", "media_source", "campaign_id", "amount", "currency"]);
  });

  it("reads each row from the line it starts on, a quoted cell over two lines too", () => {
    const reading = read(
      'day,media_source,campaign_id,campaign_name,amount,currency\n2026-11-27,net,c1,"Two\nlines",1,EUR\n2026-11-27,net,c2,,2,EUR\n',
    );
    expect(
      reading.ok && reading.rows.map(({ line, row }) => [line, row.campaign_name ?? null]),
    ).toEqual([
      [2, "Two\nlines"],
      [4, null],
    ]);
    expect(reading.ok && reading.columns).toEqual([
      "day",
      "media_source",
      "campaign_id",
      "campaign_name",
      "amount",
      "currency",
    ]);
  });

  it("takes a column the first line leaves unnamed (a trailing comma) while no row fills it", () => {
    const reading = read(
      "day,media_source,campaign_id,amount,currency,\n2026-11-27,net,c1,1,EUR,\n",
    );
    expect(reading.ok && reading.rows.map(({ row }) => row)).toEqual([
      { day: "2026-11-27", media_source: "net", campaign_id: "c1", amount: 1, currency: "EUR" },
    ]);
    expect(
      read("day,media_source,campaign_id,amount,currency,\n2026-11-27,net,c1,1,EUR,5\n"),
    ).toEqual({
      ok: false,
      problem: "Line 2 has “5” in column 6, which the first line does not name.",
    });
  });
});
