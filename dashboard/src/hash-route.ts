/**
 * The dashboard's routes live in the address's hash (`#/apps/a/overview`), and a page may keep
 * its choices in a query after its route (`#/apps/a/cohorts?from=…&media_source=…`), so that a
 * reload or a shared address opens the page as it was. The router matches the route alone.
 */
import { useHashLocation } from "wouter-preact/use-hash-location";

const HASH_PREFIX = /^#?\/?/;

/** The hash's route with its query, as the address holds it now. */
export const hashRoute = (): string => `/${location.hash.replace(HASH_PREFIX, "")}`;

/**
 * Goes to a route, its query kept in the hash with it (wouter's own hash navigation would move
 * the query out of the hash, into the page's address, where every other page would keep it).
 */
export const navigateHash = (
  to: string,
  options: { replace?: boolean; state?: unknown } = {},
): void => {
  const oldURL = location.href;
  const url = new URL(oldURL);
  url.hash = `/${to.replace(HASH_PREFIX, "")}`;
  if (url.href === oldURL) return;
  history[options.replace ? "replaceState" : "pushState"](options.state ?? null, "", url.href);
  dispatchEvent(new HashChangeEvent("hashchange", { oldURL, newURL: url.href }));
};

const splitRoute = (route: string): { path: string; query: string } => {
  const at = route.indexOf("?");
  return at === -1
    ? { path: route, query: "" }
    : { path: route.slice(0, at), query: route.slice(at + 1) };
};

/** The router's location hook: the hash's route without its query, and navigation. */
export const useHashPath = (): [string, typeof navigateHash] => {
  const [route] = useHashLocation();
  return [splitRoute(route).path, navigateHash];
};
useHashPath.hrefs = (href: string): string => `#${href}`;

/** The query after the hash's route (`from=…&to=…`), kept up to date; "" without one. */
export const useHashQuery = (): string => splitRoute(useHashLocation()[0]).query;
