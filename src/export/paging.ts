/**
 * The export's paging on the wire: the bounds of its numbers and the headers a page carries. Apart
 * from the parameters' schema (params.ts) so that a client such as `attribution export` reads
 * them without loading it.
 */

export const MAX_LIMIT = 10_000;

/** The response header naming a page's snapshot, which the `snapshot` parameter pins. */
export const SNAPSHOT_HEADER = "X-Export-Snapshot";

/**
 * The response header giving the number of events in the page's snapshot, i.e. the whole
 * window, when the engine knows it: a client can then request the pages ahead.
 */
export const SNAPSHOT_ROWS_HEADER = "X-Export-Snapshot-Rows";

/**
 * The response header giving the number of events in the page, when the service knows it
 * before sending the page: a client paging ahead knows the last page (the first holding fewer
 * than `limit`) without reading it, while the window's size is not known yet.
 */
export const PAGE_ROWS_HEADER = "X-Export-Page-Rows";

/** 9999-12-31T23:59:59Z: the last second a timestamp can name as an ISO 8601 date. */
export const MAX_TIMESTAMP = 253_402_300_799;
