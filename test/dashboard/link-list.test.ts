/**
 * The Links page's list: a page of an old cursor that lands after a Refresh is not added under
 * the fresh first page, and a link's clicks are "—" until the link clicks report answers, and
 * when it fails, never a 0 that was not counted.
 */
import { describe, expect, it } from "vitest";
import type { Link, LinkPage } from "../../dashboard/src/api.ts";
import {
  clicksRead,
  clicksText,
  firstPageRead,
  listingStarted,
  NO_LINKS,
  nextPageRead,
} from "../../dashboard/src/link-list.ts";

const link = (id: string): Link => ({ deeplink_id: id }) as Link;
const page = (ids: string[], next: string | null): LinkPage => ({
  data: ids.map(link),
  next_cursor: next,
});
const idsOf = (links: Link[] | null) => links?.map((one) => one.deeplink_id) ?? null;

describe("the Links page's list", () => {
  it("drops a page of the old listing's cursor that lands after a Refresh's first page", () => {
    // The first listing: its first page, and Load more asked with its cursor.
    let list = firstPageRead(listingStarted(NO_LINKS, 1), 1, page(["l9", "l8"], "c1"));
    const asked = list.next;
    expect(asked).toEqual({ cursor: "c1", listing: 1 });
    if (!asked) throw new Error("no next page");
    // Refresh: a link was made since, so the fresh first page starts one link later.
    list = listingStarted(list, 2);
    list = firstPageRead(list, 2, page(["l10", "l9"], "c2"));
    // The old cursor's page lands now: not added under the fresh first page.
    list = nextPageRead(list, asked, page(["l7", "l6"], null));
    expect(idsOf(list.links)).toEqual(["l10", "l9"]);
    expect(list.next).toEqual({ cursor: "c2", listing: 2 });
  });

  it("drops a page of the old listing's cursor that lands while a Refresh is on its way", () => {
    let list = firstPageRead(listingStarted(NO_LINKS, 1), 1, page(["l2"], "c1"));
    const asked = list.next;
    if (!asked) throw new Error("no next page");
    list = listingStarted(list, 2);
    list = nextPageRead(list, asked, page(["l1"], null));
    expect(idsOf(list.links)).toEqual(["l2"]);
    // The old listing's first page, come late, is dropped too.
    list = firstPageRead(list, 1, page(["old"], null));
    expect(idsOf(list.links)).toEqual(["l2"]);
  });

  it("adds the next page of the listing shown, once, and follows its cursor", () => {
    let list = firstPageRead(listingStarted(NO_LINKS, 1), 1, page(["l3", "l2"], "c1"));
    const asked = list.next;
    if (!asked) throw new Error("no next page");
    list = nextPageRead(list, asked, page(["l2", "l1"], "c2"));
    expect(idsOf(list.links)).toEqual(["l3", "l2", "l1"]);
    expect(list.next).toEqual({ cursor: "c2", listing: 1 });
    // The same page again (asked twice): added once.
    list = nextPageRead(list, asked, page(["l2", "l1"], "c2"));
    expect(idsOf(list.links)).toEqual(["l3", "l2", "l1"]);
  });

  it("shows — for clicks until the report answers, and when it fails", () => {
    let list = listingStarted(NO_LINKS, 1);
    expect(clicksText(list.clicks, "l1")).toBe("—");
    list = clicksRead(list, 1, [{ deeplink_id: "l1", clicks: 1234 }]);
    expect(clicksText(list.clicks, "l1")).toBe("1,234");
    // A link the report does not name was not clicked.
    expect(clicksText(list.clicks, "l2")).toBe("0");
    // A Refresh whose report fails: not known.
    list = clicksRead(listingStarted(list, 2), 2, null);
    expect(clicksText(list.clicks, "l1")).toBe("—");
    // An old listing's clicks that come late are dropped.
    list = clicksRead(list, 1, [{ deeplink_id: "l1", clicks: 5 }]);
    expect(clicksText(list.clicks, "l1")).toBe("—");
  });
});
