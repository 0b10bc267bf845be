/**
 * A downloaded table's file name says what it holds: the app, the table, the range, and the
 * filters it was shown with, so that a filtered table saved beside the whole one keeps its own.
 */
import { describe, expect, it } from "vitest";
import { csvFileName } from "../../dashboard/src/csv-file-name.ts";

describe("a CSV file's name", () => {
  it("names the app, the table and the range, and the filters when there are any", () => {
    expect(csvFileName("com.example.game", "campaigns", "2026-11-01", "2026-11-07")).toBe(
      "com.example.game_campaigns_2026-11-01_2026-11-07.csv",
    );
    expect(
      csvFileName("com.example.game", "cohorts-by-country", "2026-11-24", "2026-12-07", {
        media_source: "googleadwords_int",
        campaign: "Winter Sale/2",
        country: undefined,
      }),
    ).toBe(
      "com.example.game_cohorts-by-country_2026-11-24_2026-12-07_media_source-googleadwords_int_campaign-Winter_Sale_2.csv",
    );
  });
});
