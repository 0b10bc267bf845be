/**
 * The touch store: every click and impression until the longest attribution window has passed,
 * for the three lookups matching makes (by click id, by advertising id, by IP).
 */
import type { DevicePlatform, TouchCost, TouchType } from "../domain/touch.ts";
import type { AddressCrowds } from "./address-crowds.ts";
import type { AdFields } from "./links.ts";

export interface Touch extends AdFields {
  /** The service's id: random for a tap, derived from the network's id for a report. */
  readonly clickId: string;
  readonly appId: string;
  readonly touchType: TouchType;
  /** `link`: a tap through the link host; `network`: an ad network's report. */
  readonly source: "link" | "network";
  readonly touchTime: string;
  readonly receivedAt: string;
  readonly deeplinkId: string | null;
  readonly networkClickId: string | null;
  /** The full address: personal data, kept only until the touch expires. */
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly platform: DevicePlatform;
  readonly osVersion: string | null;
  readonly deviceModel: string | null;
  /** The first language of `Accept-Language`. */
  readonly language: string | null;
  readonly country: string | null;
  /** GAID or IDFA as sent; null when the touch carried none. Looked up in any case. */
  readonly maid: string | null;
  /** The link's custom parameters and `deep_link_path`, or the network's. */
  readonly params: Readonly<Record<string, string>>;
  /** The tapped URL's own query (ad networks append their click ids and sub-parameters). */
  readonly urlParams: Readonly<Record<string, string>>;
  /** What the touch cost, as its link or the network said (src/costs/touch-cost.ts); null: none said. */
  readonly cost: TouchCost | null;
}

/** Touches of one app whose touch time is in [from, to], newest first. */
export interface TouchWindow {
  readonly appId: string;
  readonly from: Date;
  readonly to: Date;
}

/** An install's claim on a click it is credited to (`TouchStore.claimClick`). */
export interface ClickClaim {
  readonly appId: string;
  readonly clickId: string;
  /** The install's service id. */
  readonly serviceId: string;
  /** The click's time: the claim expires with the click. */
  readonly touchTime: string;
  /**
   * The install's device, as a tag of its IDFV or advertising id (lookup-keys.ts deviceTag),
   * when it has one: another install of the same device that holds the click is told apart
   * from a stranger's.
   */
  readonly device: string | null;
  /**
   * Whether the click is the install's own device's (a click id or an advertising id found it):
   * held by a twin that came first, it is noted beside the twin's claim, so that this device's
   * next install from it is told as the same device's (`../touches/click-claims.ts`).
   */
  readonly own: boolean;
}

/**
 * Who holds a click after an install's claim on it: this install (now, or from an earlier call),
 * another install of the same device (an install again from the click that brought it), or
 * another install.
 */
export type ClickHolder = "this_install" | "same_device" | "another_install";

/**
 * The touch store; it also keeps which installs send from each address (./address-crowds.ts),
 * beside the touches from it that matching reads with them, and expiring as they do.
 */
export interface TouchStore extends AddressCrowds {
  /** Stores touches; a click id already stored is written over. */
  put(touches: readonly Touch[]): Promise<void>;
  /**
   * Stores the touch unless its click id is stored already; resolves with the touch that
   * stands (the earlier one for a repeat).
   */
  putIfAbsent(touch: Touch): Promise<{ touch: Touch; created: boolean }>;
  /** Forgets touches (a batch whose lake delivery failed). */
  delete(clickIds: readonly string[]): Promise<void>;
  get(clickId: string): Promise<Touch | undefined>;
  byMaid(maid: string, window: TouchWindow): Promise<Touch[]>;
  /** By address: IPv4 whole, IPv6 by its /64. */
  byIp(ip: string, window: TouchWindow): Promise<Touch[]>;
  /**
   * Credits the click to the install unless another install holds it, and says who holds it:
   * this one (now, or from an earlier call: a job run again), or another, of the same device
   * or not. One tap is one install: a click that
   * probabilistic matching credited to one phone is not also credited to its twin at the same
   * address. The claim names the install by a hash of its id and expires with the click.
   */
  claimClick(claim: ClickClaim): Promise<ClickHolder>;
  /**
   * Lets go of the install's claim on a click, if it holds it (a deleted install): a later
   * install credited to the click is new, not this one's device installing again, and the
   * claim's tag of the device is gone with the rest of the install.
   */
  releaseClaim(
    claim: Pick<ClickClaim, "appId" | "clickId" | "serviceId" | "touchTime">,
  ): Promise<void>;
  /**
   * Deletes what expired before the cutoff (DynamoDB's TTL does it on AWS): touches, with the
   * claims and sightings that expire with them; how many items.
   */
  reap(cutoff: Date): Promise<number>;
}
