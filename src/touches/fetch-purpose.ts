/**
 * Why a browser requests a link, from the headers it says so in: a tap is a navigation to it. A
 * fetch ahead of any tap (a feed's or a search page's prefetch) is refused, so that the tap, if
 * it comes, is a request of its own; a page that embeds the link (an `<img>`, a script, a
 * `fetch()`, an `<iframe>` loaded with no one's tap) is sent on uncounted, or any page could
 * make a click of each of its visitors, from their own address and agent.
 *
 * Behind the CDN these headers reach the link host folded into one, by the distribution's
 * viewer-request function (lib/link-host.ts): its origin request policy forwards few headers.
 */

/** The headers read, lower case. */
export const FETCH_HEADERS = [
  "sec-purpose",
  "purpose",
  "x-purpose",
  "x-moz",
  "sec-fetch-dest",
  "sec-fetch-mode",
  "sec-fetch-user",
] as const;

/** The one header the CDN folds them into: `name=value&…`, URL-encoded. */
export const FOLDED_FETCH_HEADER = "x-tap-fetch";

type Headers = Readonly<Record<string, string | undefined>>;

/** A header of the request as sent, else as the CDN folded it. */
const readerOf = (headers: Headers) => {
  const folded = new URLSearchParams(headers[FOLDED_FETCH_HEADER] ?? "");
  return (name: (typeof FETCH_HEADERS)[number]): string =>
    (headers[name] ?? folded.get(name) ?? "").trim().toLowerCase();
};

/**
 * Whether a request fetches ahead of a tap: `Sec-Purpose: prefetch` (Chromium's and Firefox's
 * navigational prefetch, `prefetch;prerender` too), the older `Purpose: prefetch` and Firefox's
 * `X-Moz: prefetch`, and `X-Purpose: preview` (Facebook's and Instagram's in-app browsers,
 * preloading a feed's ads).
 */
export const isPrefetch = (headers: Headers): boolean => {
  const header = readerOf(headers);
  return (
    /\bprefetch\b/.test(header("sec-purpose")) ||
    header("purpose") === "prefetch" ||
    header("x-moz") === "prefetch" ||
    ["preview", "prefetch"].includes(header("x-purpose"))
  );
};

/** Where a navigation opens inside another page. */
const FRAMES = new Set(["iframe", "frame", "embed", "object", "fencedframe"]);

/**
 * Whether a page embeds the link rather than a person opening it: a request that is no
 * navigation (`Sec-Fetch-Mode` other than `navigate`: an image's, a script's, a `fetch()`'s),
 * or a frame's navigation no one's tap made (`Sec-Fetch-User` is `?1` only for one a person
 * made). Read only with `Sec-Fetch-Dest`, which browsers send with the others: a request
 * without it (an older browser, an app's or a server's own client, whose `fetch` may send a
 * mode alone) is taken at its word, as before these headers existed.
 */
export const isEmbedded = (headers: Headers): boolean => {
  const header = readerOf(headers);
  const dest = header("sec-fetch-dest");
  if (dest === "") return false;
  const mode = header("sec-fetch-mode");
  if (mode !== "" && mode !== "navigate") return true;
  return FRAMES.has(dest) && header("sec-fetch-user") !== "?1";
};
