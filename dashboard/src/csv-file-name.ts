/** The names the dashboard gives the tables it saves as CSV files. */

/** A name's characters a file name keeps everywhere. */
const fileSafe = (text: string): string => text.replace(/[^A-Za-z0-9._-]/g, "_");

/**
 * A CSV file's name, by the app, the table, the range and the filters it was shown with
 * (`com.example.game_campaigns_2026-11-01_2026-11-07.csv`,
 * `…_2026-11-07_media_source-meta_ads.csv`): it says what it holds, so that a filtered table
 * saved beside the whole one does not take its name.
 */
export const csvFileName = (
  appId: string,
  what: string,
  from: string,
  to: string,
  filters: Readonly<Record<string, string | undefined>> = {},
): string => {
  const filtered = Object.entries(filters)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `_${name}-${fileSafe(value)}`)
    .join("");
  return `${fileSafe(appId)}_${what}_${from}_${to}${filtered}.csv`;
};
