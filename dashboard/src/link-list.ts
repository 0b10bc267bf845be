/**
 * The Links page's list as it is read: its first page (at the start and at each *Refresh*), the
 * pages *Load more links* adds by following the cursor, and the links' clicks. Each read belongs
 * to a listing, and a *Refresh* starts the next: a page or a count read for an earlier listing
 * that comes in after it is dropped, so a page of an old cursor is never added under a fresh
 * first page (whose links it may repeat or skip). A link's clicks are not known, "—", until
 * `GET /v1/reports/link-clicks` answers, and again when it fails: never a 0 that was not counted.
 */
import type { Link, LinkClicks, LinkPage } from "./api.ts";
import { formatCount, UNKNOWN } from "./format.ts";

/** The page after those shown: its cursor, and the listing it continues. */
export interface NextPage {
  readonly cursor: string;
  readonly listing: number;
}

export interface LinkList {
  /** The listing being read: every read that lands is of it, or dropped. */
  readonly listing: number;
  /** The links shown; null before the first page. */
  readonly links: Link[] | null;
  /** Where *Load more links* goes on; null after the last page. */
  readonly next: NextPage | null;
  /** Each link's clicks; null while they are not known. */
  readonly clicks: ReadonlyMap<string, number> | null;
}

export const NO_LINKS: LinkList = { listing: 0, links: null, next: null, clicks: null };

/**
 * A new listing begins (a *Refresh*): the links and clicks shown stay until its own come in,
 * and whatever is still on its way for an earlier listing is dropped when it lands.
 */
export const listingStarted = (list: LinkList, listing: number): LinkList => ({
  ...list,
  listing,
});

/** The listing's first page: the links shown, and its cursor. */
export const firstPageRead = (list: LinkList, listing: number, page: LinkPage): LinkList =>
  listing !== list.listing
    ? list
    : {
        ...list,
        links: page.data,
        next: page.next_cursor === null ? null : { cursor: page.next_cursor, listing },
      };

/**
 * The page that follows `asked`: added under the links shown, once each, if the list is still
 * the listing it continues and still waits for that page (not already added).
 */
export const nextPageRead = (list: LinkList, asked: NextPage, page: LinkPage): LinkList => {
  if (
    asked.listing !== list.listing ||
    list.next?.cursor !== asked.cursor ||
    list.next.listing !== asked.listing
  )
    return list;
  const shown = list.links ?? [];
  const known = new Set(shown.map((link) => link.deeplink_id));
  return {
    ...list,
    links: [...shown, ...page.data.filter((link) => !known.has(link.deeplink_id))],
    next: page.next_cursor === null ? null : { cursor: page.next_cursor, listing: asked.listing },
  };
};

/** The listing's clicks, or null when they could not be read. */
export const clicksRead = (
  list: LinkList,
  listing: number,
  rows: readonly LinkClicks[] | null,
): LinkList =>
  listing !== list.listing
    ? list
    : {
        ...list,
        clicks: rows === null ? null : new Map(rows.map((row) => [row.deeplink_id, row.clicks])),
      };

/**
 * A link's clicks as the table shows them: "—" while the counts are not known; 0 for a link the
 * counts name not (the report lists only links clicked).
 */
export const clicksText = (
  clicks: ReadonlyMap<string, number> | null,
  deeplinkId: string,
): string => (clicks === null ? UNKNOWN : formatCount(clicks.get(deeplinkId) ?? 0));
