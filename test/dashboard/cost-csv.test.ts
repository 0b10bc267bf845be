/** The service's refusal of an upload's page as the Cost page says it beside the file's rows. */
import { describe, expect, it } from "vitest";
import { type CostFileRow, costProblems } from "../../dashboard/src/cost-csv.ts";

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
