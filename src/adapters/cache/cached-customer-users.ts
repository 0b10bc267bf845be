/**
 * The customer-user mapping kept in memory, for the embedded runtime, where this process is its
 * only writer. An SDK sends the customer user id with every event, so every batch of a
 * signed-in user is a use of it, and a store write per batch would cost more than the rest of
 * the batch. So:
 *
 * - a use earlier than the latest known is not written (it cannot stand), but for the first of
 *   another install, which the store keeps among the id's other installs;
 * - a use by another install is written at once, and what the store says stands is kept;
 * - a later use by the same install only moves the time on in memory, and is written once it is
 *   `refreshMs` of event time past the time stored.
 *
 * Lookups are answered from memory while the process lives. After a restart (or once an id is
 * evicted) the stored latest use may be up to `refreshMs` early, which matters only when
 * another install's use falls in that window. Deleting an install's mappings (the purge) drops
 * them here too, and nothing read or written while it runs is kept.
 */
import type { CustomerUserMap } from "../../ports/installs.ts";
import { RecentMap } from "./recent-map.ts";

interface Known {
  readonly serviceId: string;
  /** The event time of the latest use known; null for a mapping only read (no time given). */
  readonly seenAt: string | null;
  /** The time the store holds for this mapping; null when not known. */
  readonly stored: string | null;
}

export const cachedCustomerUserMap = (
  store: CustomerUserMap,
  options: { maxEntries?: number; refreshMs?: number } = {},
): CustomerUserMap => {
  const { maxEntries = 100_000, refreshMs = 60_000 } = options;
  const entries = new RecentMap<string, Known>(maxEntries);
  /** The installs' uses of ids the store was told of: an id's other installs, once each. */
  const told = new RecentMap<string, string>(maxEntries);
  const keyOf = (appId: string, customerUserId: string) => `${appId}#${customerUserId}`;
  // Moved on before and after each deletion: a store answer from across one is not kept.
  let generation = 0;
  /** The use written to the store, and what the store says stands, kept. */
  const write = async (
    appId: string,
    customerUserId: string,
    serviceId: string,
    seenAt: string,
  ) => {
    const key = keyOf(appId, customerUserId);
    const before = generation;
    const stands = await store.put(appId, customerUserId, serviceId, seenAt);
    if (generation === before) told.set(`${key}#${serviceId}`, serviceId);
    // Concurrent writes may come back in any order: a later use known meanwhile stays.
    const meanwhile = entries.get(key)?.seenAt;
    if (generation === before && (!meanwhile || meanwhile <= stands.seenAt)) {
      entries.set(key, {
        serviceId: stands.serviceId,
        seenAt: stands.seenAt,
        stored: stands.seenAt,
      });
    }
    return stands;
  };
  return {
    async put(appId, customerUserId, serviceId, seenAt) {
      const key = keyOf(appId, customerUserId);
      const known = entries.get(key);
      // Both ISO 8601 UTC with milliseconds: their text orders as their times do.
      if (known?.seenAt && known.seenAt > seenAt) {
        if (known.serviceId === serviceId || told.has(`${key}#${serviceId}`)) {
          return { serviceId: known.serviceId, seenAt: known.seenAt };
        }
        // Another install's first use here, earlier than the latest: the store keeps it among
        // the id's other installs once it holds the latest use known here, not an older one.
        if (known.stored !== known.seenAt) {
          await write(appId, customerUserId, known.serviceId, known.seenAt);
        }
      }
      if (
        known?.stored &&
        known.serviceId === serviceId &&
        Date.parse(seenAt) - Date.parse(known.stored) < refreshMs
      ) {
        entries.set(key, { ...known, seenAt });
        return { serviceId, seenAt };
      }
      return write(appId, customerUserId, serviceId, seenAt);
    },
    async get(appId, customerUserId, options) {
      // A purged mapping's mark is read only for an id no install uses, a server's rare miss.
      if (options?.purged) return store.get(appId, customerUserId, options);
      const key = keyOf(appId, customerUserId);
      const known = entries.get(key);
      if (known) return known.serviceId;
      const before = generation;
      const serviceId = await store.get(appId, customerUserId);
      // Only a mapping that exists is kept: one may be made at any moment.
      if (serviceId !== undefined && generation === before && !entries.has(key)) {
        entries.set(key, { serviceId, seenAt: null, stored: null });
      }
      return serviceId;
    },
    async deleteInstall(appId, serviceId) {
      const gone = (key: string, known: Known) =>
        key.startsWith(`${appId}#`) && known.serviceId === serviceId;
      const goneUse = (use: string, teller: string) =>
        use.startsWith(`${appId}#`) && teller === serviceId;
      generation += 1;
      entries.deleteWhere(gone);
      told.deleteWhere(goneUse);
      try {
        await store.deleteInstall(appId, serviceId);
      } finally {
        generation += 1;
        entries.deleteWhere(gone);
        told.deleteWhere(goneUse);
      }
    },
    // Read only when a server's user's latest install was deleted: rare, and read as stored.
    otherInstalls: (appId, customerUserId) => store.otherInstalls(appId, customerUserId),
  };
};
