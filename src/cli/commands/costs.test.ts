import { describe, expect, it } from "vitest";
import { costRequestSchema } from "../../costs/cost-rows.ts";
import { costRowsOfCsv } from "./costs.ts";

describe("costs import's CSV", () => {
  it("reads numbers as numbers, leaves empty cells out, and keeps a number column's text that is none", () => {
    const rows = costRowsOfCsv(
      "day,media_source,campaign_id,amount,currency,clicks,impressions\n" +
        "2026-11-27,net,c1,12.5,EUR,30,\n" +
        "2026-11-27,net,c2,3,USD,many,1000\n",
    );
    expect(rows[0]).toEqual({
      day: "2026-11-27",
      media_source: "net",
      campaign_id: "c1",
      amount: 12.5,
      currency: "EUR",
      clicks: 30,
    });
    expect(rows[1]).toMatchObject({ clicks: "many", impressions: 1000 });
    // The API's rules then name the cell, rather than taking it as no value.
    const checked = costRequestSchema.safeParse({ rows });
    expect(checked.error?.issues.map((issue) => issue.path.join("."))).toEqual(["rows.1.clicks"]);
  });
});
