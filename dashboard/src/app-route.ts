/**
 * The routes of an app's pages (`/apps/<app id>/<page>`), which the router matches and the
 * header's app picker moves between.
 */

/** The hash route of one of an app's pages. */
export const appPath = (appId: string, page: string): string =>
  `/apps/${encodeURIComponent(appId)}/${page}`;

/**
 * The route of `appId`'s page of the same name as the app page `route` is (`/apps/a/cohorts`),
 * with the range of its query (`from`, `to`) and no filter (they name the other app's sources
 * and campaigns); its overview for any other route.
 */
export const samePageOf = (route: string, appId: string): string => {
  const match = /^\/apps\/[^/?]+\/([a-z-]+)(?:\?(.*))?$/.exec(route);
  if (!match?.[1]) return appPath(appId, "overview");
  const query = new URLSearchParams(match[2] ?? "");
  const kept = new URLSearchParams();
  for (const name of ["from", "to"]) {
    const value = query.get(name);
    if (value) kept.set(name, value);
  }
  const range = kept.toString();
  return `${appPath(appId, match[1])}${range ? `?${range}` : ""}`;
};
