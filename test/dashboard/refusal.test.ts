/** A report's 422 in words: only a problem of the dates is said as one. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../dashboard/src/api.ts";
import { refusalOf } from "../../dashboard/src/refusal.ts";

const refused = (detail: string) => new ApiError(422, "Unprocessable Entity", detail);

describe("refusalOf", () => {
  it("says a problem of the range's dates as the dates'", () => {
    expect(refusalOf(refused("from: must not be after tomorrow (2026-11-30, UTC)"))).toBe(
      "These dates cannot be shown. The start date must not be after tomorrow (2026-11-30, UTC).",
    );
    expect(refusalOf(refused("to: must be on or after `from`"))).toBe(
      "These dates cannot be shown. The end date must be on or after the start date.",
    );
  });

  it("names the filter of a filter's problem, not the dates", () => {
    expect(refusalOf(refused("media_source: must be at most 200 characters"))).toBe(
      "The media source filter must be at most 200 characters.",
    );
    expect(
      refusalOf(refused("country: must be a two-letter country code (ISO 3166-1 alpha-2)")),
    ).toBe("The country filter must be a two-letter country code (ISO 3166-1 alpha-2).");
    expect(refusalOf(refused("platform: must be android or ios"))).toBe(
      "The platform filter must be android or ios.",
    );
  });

  it("says the dates' problems first, then the filters'", () => {
    expect(
      refusalOf(refused("from: must be a UTC day, YYYY-MM-DD; campaign: must not be empty")),
    ).toBe(
      "These dates cannot be shown. The start date must be a UTC day, YYYY-MM-DD. The campaign filter must not be empty.",
    );
  });

  it("says the cost rows' limit plainly", () => {
    expect(
      refusalOf(
        refused(
          "to: the window holds 12034 cost rows, more than the 10000 one answer lists; ask for fewer days",
        ),
      ),
    ).toBe(
      "This range holds 12,034 cost rows, more than the 10,000 the page can list at once. Choose fewer days.",
    );
  });

  it("says another failure as the page says any", () => {
    expect(refusalOf(new ApiError(500, "Internal Server Error", "the lake did not answer"))).toBe(
      "the lake did not answer",
    );
  });
});
