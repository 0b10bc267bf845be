/**
 * The Cost page's words for an upload whose request failed with no refusal of its rows: the
 * network lost, a 5xx, a gateway's time-out may come after the service stored the rows, so the
 * page says they may have been stored and that the same file uploaded again replaces them; a
 * refusal of the request itself (a 4xx) stored nothing of it.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../dashboard/src/api.ts";
import { failedUploadWords, mayHaveStored } from "../../dashboard/src/cost-upload.ts";

const AGAIN =
  "Uploading the same file again replaces any row stored rather than adding it a second time.";
/** What fetch throws when the network is lost. */
const lost = new TypeError("Failed to fetch");
const gatewayTimeout = new ApiError(
  504,
  "Gateway Timeout",
  "The service answered 504 Gateway Timeout. Try again.",
);

describe("failedUploadWords", () => {
  it("says the rows of a request whose answer was lost may have been stored", () => {
    const words = failedUploadWords({ accepted: 0, from: 1, to: 3, of: 3 }, lost);
    expect(words).toBe(
      `Rows 1 to 3 may have been stored: the upload stopped without the service saying whether they were. The service could not be reached. ${AGAIN}`,
    );
    expect(words).not.toContain("Nothing was stored");
  });

  it("says so of a 5xx and a gateway's time-out after earlier requests were stored", () => {
    const words = failedUploadWords(
      { accepted: 1000, from: 1001, to: 2000, of: 2500 },
      gatewayTimeout,
    );
    expect(words).toBe(
      `Rows 1 to 1,000 were stored; rows 1,001 to 2,000 may have been stored too: the upload stopped without the service saying whether they were. Nothing after them was sent. The service answered 504 Gateway Timeout. Try again. ${AGAIN}`,
    );
    expect(
      failedUploadWords(
        { accepted: 0, from: 1, to: 2, of: 2 },
        new ApiError(500, "Internal Server Error", "internal error"),
      ),
    ).toContain("may have been stored");
  });

  it("says nothing was stored of a request the service refused as such (a 4xx)", () => {
    const tooLarge = new ApiError(413, "Payload Too Large", "body must be at most 1 MiB");
    expect(failedUploadWords({ accepted: 0, from: 1, to: 3, of: 3 }, tooLarge)).toBe(
      "Nothing was stored. body must be at most 1 MiB",
    );
    expect(failedUploadWords({ accepted: 1000, from: 1001, to: 1003, of: 1003 }, tooLarge)).toBe(
      "1,000 rows were stored, then the upload stopped. body must be at most 1 MiB",
    );
  });
});

describe("mayHaveStored", () => {
  it("is true of a lost answer and the service's or a gateway's failure, false of a 4xx", () => {
    expect(mayHaveStored(lost)).toBe(true);
    expect(mayHaveStored(gatewayTimeout)).toBe(true);
    expect(mayHaveStored(new ApiError(502, "Bad Gateway", ""))).toBe(true);
    expect(mayHaveStored(new ApiError(401, "Unauthorized", ""))).toBe(false);
    expect(mayHaveStored(new ApiError(429, "Too Many Requests", ""))).toBe(false);
  });
});
