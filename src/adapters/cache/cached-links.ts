/**
 * Links read through a short in-memory cache, for the link host: every tap reads its link, a
 * link seldom changes (disabled, its landing page or preview), and an ad sends its taps in
 * bursts. A link changed here is forgotten at once; changed elsewhere, it is seen within
 * `ttlMs`, or at once where the writer moves `revision` on (the embedded runtime's CLI). Unknown
 * ids are remembered too, so a flood of taps on a bad id costs one read per `ttlMs`.
 */
import type { Link, LinkStore } from "../../ports/links.ts";
import { RecentMap } from "./recent-map.ts";
import { followRevision } from "./revision.ts";

export const cachedLinkStore = (
  store: LinkStore,
  ttlMs: number,
  options: { maxEntries?: number; now?: () => number; revision?: () => string } = {},
): LinkStore => {
  const { maxEntries = 100_000, now = Date.now, revision = () => "" } = options;
  const entries = new RecentMap<string, { link: Promise<Link | undefined>; expiresAt: number }>(
    maxEntries,
  );
  const follow = followRevision(revision, () => entries.clear());
  return {
    ...store,
    get(deeplinkId) {
      follow();
      const cached = entries.get(deeplinkId);
      if (cached && cached.expiresAt > now()) return cached.link;
      const link = store.get(deeplinkId);
      entries.set(deeplinkId, { link, expiresAt: now() + ttlMs });
      // A failed read is not remembered.
      link.catch(() => entries.delete(deeplinkId));
      return link;
    },
    async update(appId, deeplinkId, change) {
      const link = await store.update(appId, deeplinkId, change);
      entries.delete(deeplinkId);
      return link;
    },
  };
};
