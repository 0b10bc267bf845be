/**
 * Which installs send from an address: the crowd behind it that its touches alone may not
 * show (a carrier NAT, an office, a café where few tapped an ad but many use the app).
 * Ingestion records the address and the install of each install report and SDK event request;
 * probabilistic matching counts the distinct installs of the app an address saw over the day
 * before the first open (docs/attribution.md#probabilistic-matching).
 */

/** A request from an install, as ingestion saw it. */
export interface AddressSighting {
  readonly appId: string;
  readonly serviceId: string;
  /** The request's address: IPv4 whole, IPv6 by its /64, as touches are looked up. */
  readonly ip: string;
  /** When the service received it (ISO 8601 UTC), by its own clock. */
  readonly at: string;
}

/** Sightings of one app in [from, to], by the service's clock. */
export interface SightingWindow {
  readonly appId: string;
  readonly from: Date;
  readonly to: Date;
}

export interface AddressCrowds {
  /**
   * Records sightings. Kept by the hour: the same install at the same address within one
   * clock hour is one sighting, at the hour's start.
   */
  recordSightings(sightings: readonly AddressSighting[]): Promise<void>;
  /**
   * How many distinct installs of the app sent from the address in the window (a sighting
   * counts when its hour overlaps it), counted up to `cap`: a count of `cap` means at least
   * that many. Matching asks only whether the address is a crowd, so no read goes further.
   */
  installsAt(ip: string, window: SightingWindow, cap: number): Promise<number>;
}
