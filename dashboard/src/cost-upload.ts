/**
 * What the Cost page says when a request of an upload fails with no refusal of its rows (a 422
 * is said beside the rows it names): the network lost, the service's own failure (5xx), a
 * gateway's time-out. The service may then have stored the request's rows before its answer was
 * lost (it stores them, then answers), so the page does not say nothing was stored: it says they
 * may have been, and that uploading the same file again replaces them (a row of the same day and
 * keys replaces the one stored: docs/api.md#costs), so nothing is counted twice. A refusal of
 * the request itself (a 4xx: signed out, not allowed, too large, too many requests) stored
 * nothing of it.
 */
import { ApiError, errorMessage } from "./api.ts";
import { rowsWord } from "./cost-table.ts";
import { formatCount } from "./format.ts";

/**
 * Whether a request that failed this way may have stored its rows: anything but the service's
 * or a proxy's refusal of the request, which is a 4xx.
 */
export const mayHaveStored = (caught: unknown): boolean =>
  !(caught instanceof ApiError) || caught.status >= 500;

/** The upload when a request failed: rows stored by the requests before, and its rows. */
export interface FailedUpload {
  /** Rows the requests before it stored. */
  readonly accepted: number;
  /** The failed request's rows, by their numbers in the file (1 the first under the header). */
  readonly from: number;
  readonly to: number;
  /** The file's rows. */
  readonly of: number;
}

/** The failure in words: what was stored, what may have been, and the service's message. */
export const failedUploadWords = (upload: FailedUpload, caught: unknown): string => {
  const { accepted, from, to, of } = upload;
  const message = errorMessage(caught);
  const rest = to < of ? " Nothing after them was sent." : "";
  if (!mayHaveStored(caught)) {
    const stored =
      accepted > 0
        ? `${rowsWord(accepted)} were stored, then the upload stopped.`
        : "Nothing was stored.";
    return `${stored} ${message}`;
  }
  const rows = `rows ${formatCount(from)} to ${formatCount(to)}`;
  const stored =
    accepted > 0
      ? `Rows 1 to ${formatCount(from - 1)} were stored; ${rows} may have been stored too: the upload stopped without the service saying whether they were.`
      : `Rows ${formatCount(from)} to ${formatCount(to)} may have been stored: the upload stopped without the service saying whether they were.`;
  return `${stored}${rest} ${message} Uploading the same file again replaces any row stored rather than adding it a second time.`;
};
