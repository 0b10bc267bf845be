/**
 * Links read through a short in-memory cache, for the link host: every tap reads its link, a
 * link seldom changes (disabled, its landing page or preview), and an ad sends its taps in
 * bursts. A link changed here is forgotten at once; changed elsewhere, it is seen within
 * `ttlMs`, or at once where the writer moves `revision` on (the embedded runtime's CLI). Unknown
 * ids are remembered too, so a flood of taps on a bad id costs one read per `ttlMs`.
 */
import type { LinkStore } from "../../ports/links.ts";
import { type ReadThroughOptions, readThrough } from "./read-through.ts";

export const cachedLinkStore = (
  store: LinkStore,
  ttlMs: number,
  options: ReadThroughOptions = {},
): LinkStore => {
  const links = readThrough((deeplinkId: string) => store.get(deeplinkId), ttlMs, options);
  return {
    ...store,
    get: (deeplinkId) => links.get(deeplinkId),
    async update(appId, deeplinkId, change) {
      const link = await store.update(appId, deeplinkId, change);
      links.forget(deeplinkId);
      return link;
    },
  };
};
