/**
 * The reports' choices as the hash's query holds them (`#/apps/a/overview?from=…&to=…&media_source=…`):
 * the range of UTC days and the filters, which the Overview, Cohorts and Cost pages share. A
 * reload, a bookmark or a shared address shows the same figures, and the navigation's links
 * carry them from one of these pages to another (docs/dashboard.md#the-overviews-filters).
 */
import type { ReportFilters } from "./api.ts";
import { defaultRange, type Range } from "./range.ts";
import { platformWord } from "./words.ts";

export const FILTER_NAMES = ["media_source", "campaign", "country", "platform"] as const;
export type FilterName = (typeof FILTER_NAMES)[number];

/** The platforms installs have. */
export const PLATFORMS = ["android", "ios"] as const;

/**
 * A filter's value as chosen: the service matches it exactly, so a campaign named with a space
 * at either end is asked for with it. A blank one is no filter; the service takes at most 200
 * characters, so an address typed longer is cut rather than refused.
 */
const filterValue = (value: string | null): string | undefined =>
  value === null || value.trim() === "" ? undefined : value.slice(0, 200);

/** The query's range; the last 7 days to `last` (today, UTC unless given) for a date it lacks. */
export const rangeOf = (query: URLSearchParams, last?: string): Range => {
  const fallback = defaultRange(last);
  return { from: query.get("from") ?? fallback.from, to: query.get("to") ?? fallback.to };
};

/** The query's filters: those given, a platform only if it is Android or iOS. */
export const filtersOf = (query: URLSearchParams): ReportFilters => {
  const filters: ReportFilters = {};
  for (const name of FILTER_NAMES) {
    const value = filterValue(query.get(name));
    if (value !== undefined) filters[name] = value;
  }
  if (!(PLATFORMS as readonly (string | undefined)[]).includes(filters.platform))
    delete filters.platform;
  return filters;
};

/** Sets the filters given on the query, in the order of FILTER_NAMES. */
export const putFilters = (query: URLSearchParams, filters: ReportFilters): URLSearchParams => {
  for (const name of FILTER_NAMES) {
    const value = filters[name];
    if (value !== undefined) query.set(name, value);
  }
  return query;
};

/** The filters as the report's parameters: those given, in one order (a cache's key). */
export const filterParams = (filters: ReportFilters): ReportFilters => {
  const params: ReportFilters = {};
  for (const name of FILTER_NAMES) {
    const value = filters[name];
    if (value !== undefined) params[name] = value;
  }
  return params;
};

export const hasFilters = (filters: ReportFilters): boolean =>
  FILTER_NAMES.some((name) => filters[name] !== undefined);

const FILTER_WORDS: Record<FilterName, string> = {
  media_source: "media source",
  campaign: "campaign",
  country: "country",
  platform: "platform",
};

/** The filters in words: "media source examplenet, platform iOS"; "" without any. */
export const filtersInWords = (filters: ReportFilters): string =>
  FILTER_NAMES.flatMap((name) => {
    const value = filters[name];
    if (value === undefined) return [];
    return [`${FILTER_WORDS[name]} ${name === "platform" ? platformWord(value) : value}`];
  }).join(", ");

/** What each report page takes of another's query: the range, and the filters it has. */
const CARRIED: Readonly<Record<string, readonly string[]>> = {
  overview: ["from", "to", ...FILTER_NAMES],
  cohorts: ["from", "to", ...FILTER_NAMES],
  cost: ["from", "to"],
};

/** Whether an app's page is one of the report pages, which share a range. */
export const isReportPage = (page: string): boolean => Object.hasOwn(CARRIED, page);

/**
 * The query a link to one of the report pages carries from the report page shown (its range,
 * and its filters when the other page has them too): "" for any other page.
 */
export const carriedQuery = (query: string, page: string): string => {
  const names = isReportPage(page) ? CARRIED[page] : undefined;
  if (!names) return "";
  const from = new URLSearchParams(query);
  const carried = new URLSearchParams();
  for (const name of names) {
    const value = from.get(name);
    if (value !== null) carried.set(name, value);
  }
  return carried.toString();
};
