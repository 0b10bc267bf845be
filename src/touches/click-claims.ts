/**
 * What a click's claim says, and how a claim or a deleted install changes it: the one rule that
 * both touch stores apply, each with its own way of writing it safely (a turn, a condition).
 *
 * A claim names the install credited with the click and its device. When a click id or an
 * advertising id finds a click a twin took first (a probabilistic match of a phone at the same
 * address), the click's own device is credited all the same and noted beside the twin's
 * claim: the twin keeps its credit, and the own device's later install from that click is a
 * reinstall, with no second price, as it would have been had it come first.
 */
import type { ClickHolder } from "../ports/touches.ts";

/** A claim as stored; tags as `lookup-keys.ts` makes them. */
export interface StoredClaim {
  /** The install credited first. */
  readonly holder: string;
  /** Its device, when it named one. */
  readonly device: string | null;
  /** The click's own device's first install, when a twin held the click before it. */
  readonly ownHolder?: string;
  readonly ownDevice?: string;
}

/** An install's claim, as the rule reads it. */
export interface ClaimRequest {
  readonly holder: string;
  readonly device: string | null;
  /** Whether the install's own device made the click (a click id or advertising id says so). */
  readonly own: boolean;
}

/** Who holds the click for this claim, and the claim to store, when it changes. */
export interface ClaimStep {
  readonly holder: ClickHolder;
  readonly next?: StoredClaim;
}

export const claimStep = (stored: StoredClaim | undefined, claim: ClaimRequest): ClaimStep => {
  if (stored === undefined) {
    return { holder: "this_install", next: { holder: claim.holder, device: claim.device } };
  }
  // A job run again for an install already credited, first or as the click's own device.
  if (stored.holder === claim.holder || stored.ownHolder === claim.holder) {
    return { holder: "this_install" };
  }
  if (
    claim.device !== null &&
    (stored.device === claim.device || stored.ownDevice === claim.device)
  )
    return { holder: "same_device" };
  if (claim.own && claim.device !== null && stored.ownHolder === undefined) {
    return {
      holder: "another_install",
      next: { ...stored, ownHolder: claim.holder, ownDevice: claim.device },
    };
  }
  return { holder: "another_install" };
};

/**
 * The claim once `holder`'s install is deleted: null when nothing is left of it; the same claim
 * when the install was not in it. The own device's install, noted beside a deleted twin's claim,
 * holds the click then.
 */
export const releasedClaim = (stored: StoredClaim, holder: string): StoredClaim | null => {
  if (stored.holder === holder) {
    return stored.ownHolder !== undefined && stored.ownDevice !== undefined
      ? { holder: stored.ownHolder, device: stored.ownDevice }
      : null;
  }
  if (stored.ownHolder === holder) return { holder: stored.holder, device: stored.device };
  return stored;
};
