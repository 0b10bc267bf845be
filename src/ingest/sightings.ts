/**
 * Which installs send from which address (src/ports/address-crowds.ts): ingestion records the
 * address of each install report and each SDK event or session request with the installs it
 * names (a phone that only opens its app is a phone at the address too), so
 * that matching sees the crowd behind an address that few of whom tapped an ad. A
 * server-to-server request comes from the app's servers, not a phone, and is not a sighting.
 *
 * The store keeps one sighting per install, address and clock hour, and an SDK sends many
 * requests an hour: each process remembers what it recorded lately and writes only what is
 * new to it, so a session's requests cost one write, not one each.
 */
import { HOUR_MS } from "../domain/time.ts";
import { logger } from "../logging/logger.ts";
import type { AddressCrowds, AddressSighting } from "../ports/address-crowds.ts";
import { ipMatchKey, isPublicIp } from "../touches/ip.ts";

/** Sightings remembered per process: a few hours of a busy app's installs. */
const REMEMBERED = 50_000;

export type SightingRecorder = (
  appId: string,
  ip: string | null,
  serviceIds: Iterable<string>,
  at: Date,
) => Promise<void>;

/**
 * Records that installs of an app sent from an address at a time. Matching reads public
 * addresses only, so no other is recorded.
 */
export const createSightingRecorder = (
  store: Pick<AddressCrowds, "recordSightings">,
  remembered = REMEMBERED,
): SightingRecorder => {
  // Insertion order is age: the oldest key goes first when the memory is full.
  const recent = new Set<string>();
  return async (appId, ip, serviceIds, at) => {
    const address = ipMatchKey(ip);
    if (!ip || !address || !isPublicIp(ip)) return;
    const hour = Math.floor(at.getTime() / HOUR_MS);
    const fresh: AddressSighting[] = [];
    const keys: string[] = [];
    for (const serviceId of new Set(serviceIds)) {
      const key = `${appId}\n${address}\n${hour}\n${serviceId}`;
      if (recent.has(key)) continue;
      keys.push(key);
      fresh.push({ appId, serviceId, ip, at: at.toISOString() });
    }
    if (fresh.length === 0) return;
    await store.recordSightings(fresh);
    // Remembered once stored: a failed write is tried again by the next request.
    for (const key of keys) {
      recent.add(key);
      if (recent.size > remembered) {
        const oldest = recent.values().next();
        if (!oldest.done) recent.delete(oldest.value);
      }
    }
  };
};

/**
 * The recorder as requests use it: a sighting is a hint to matching's confidence, and one lost
 * to a failed write costs a count at most, never the request, which the SDK would send again
 * whole. Never rejects.
 */
export const createSightingHints = (
  store: Pick<AddressCrowds, "recordSightings">,
): SightingRecorder => {
  const record = createSightingRecorder(store);
  return (appId, ip, serviceIds, at) =>
    record(appId, ip, serviceIds, at).catch((error: unknown) => {
      logger.warn("address sighting not recorded", { appId, error });
    });
};
