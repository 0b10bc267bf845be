/** The store buttons of a link host's landing page, in order, and their targets. */
export const storeButtons = (html: string) =>
  [...html.matchAll(/<a class="button" data-store="([a-z-]+)" href="([^"]+)"/g)].map((m) => ({
    store: m[1],
    url: (m[2] ?? "").replaceAll("&amp;", "&"),
  }));
