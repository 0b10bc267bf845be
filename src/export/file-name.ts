/** The download's file name: app, window and rows of the page, e.g.
 * `com.example.game_events_20261101T000000Z-20261121T180000Z_rows-1-500.csv`. */
const compact = (epochMs: number) =>
  new Date(epochMs)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

export const exportFileName = (page: {
  appId: string;
  since: number;
  until: number;
  offset: number;
  limit: number;
  extension: string;
}): string =>
  `${page.appId}_events_${compact(page.since * 1000)}-${compact(page.until)}_rows-${page.offset + 1}-${page.offset + page.limit}.${page.extension}`;
