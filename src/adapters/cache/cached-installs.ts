/**
 * Installs kept in memory once read, for the embedded runtime's ingestion path: an install
 * changes after its first open only through this same store (its consent, its purge), which
 * keeps the entry current. Only installs that exist are kept: one not found yet may arrive at
 * any moment. The least recently used go first when the cache is full. A read that a deletion
 * or a consent change overlapped is not kept: it may have found the install just before it
 * went, or its consent just before it changed, and kept, it would answer a withdrawn consent as
 * given to every later read (a postback attempt's, say) until evicted.
 */
import type { Consent } from "../../domain/consent.ts";
import type { DeviceTracking, Install, InstallStore } from "../../ports/installs.ts";
import { RecentMap } from "./recent-map.ts";

export const cachedInstallStore = <S extends InstallStore>(store: S, maxEntries: number): S => {
  const entries = new RecentMap<string, Install>(maxEntries);
  const keyOf = (appId: string, serviceId: string) => `${appId}#${serviceId}`;
  const remember = (install: Install) =>
    entries.set(keyOf(install.appId, install.serviceId), install);
  // Moved on before and after each deletion and consent change: a read from across one is not
  // kept.
  let generation = 0;
  return {
    // What this cache does not answer (another lookup of the store) goes to the store.
    ...store,
    async putIfAbsent(install: Install) {
      const before = generation;
      const stored = await store.putIfAbsent(install);
      // An install already there is a read of it.
      if (generation === before) remember(stored.install);
      return stored;
    },
    async get(appId: string, serviceId: string) {
      const cached = entries.get(keyOf(appId, serviceId));
      if (cached) return cached;
      const before = generation;
      const found = await store.get(appId, serviceId);
      if (found && generation === before) remember(found);
      return found;
    },
    async setConsent(
      appId: string,
      serviceId: string,
      consent: Consent,
      tracking?: DeviceTracking,
    ) {
      generation += 1;
      const own = generation;
      entries.delete(keyOf(appId, serviceId));
      try {
        const updated = await store.setConsent(appId, serviceId, consent, tracking);
        // Kept unless another change overlapped: which of the two the store has last is not
        // known here, so the next read asks it.
        if (updated && generation === own) remember(updated);
        return updated;
      } finally {
        generation += 1;
      }
    },
    async delete(appId: string, serviceId: string) {
      generation += 1;
      entries.delete(keyOf(appId, serviceId));
      try {
        await store.delete(appId, serviceId);
      } finally {
        generation += 1;
      }
    },
  };
};
