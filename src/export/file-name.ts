/**
 * The download's file name: app, window and rows of the page, e.g.
 * `com.example.game_events_20261101T000000Z-20261121T180000Z_rows-1-500.csv`. The last row
 * is the window's last when the page runs past it (`total`, when the engine knows it).
 */
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
  total?: number;
  extension: string;
}): string => {
  // Without the window's size nor the page's, its end is not known: a short last page must not
  // be named as a full one.
  const last = page.total === undefined ? null : Math.min(page.offset + page.limit, page.total);
  const rows =
    last === null
      ? `rows-from-${page.offset + 1}`
      : last > page.offset
        ? `rows-${page.offset + 1}-${last}`
        : `rows-none-after-${page.offset}`;
  return `${page.appId}_events_${compact(page.since * 1000)}-${compact(page.until)}_${rows}.${page.extension}`;
};
