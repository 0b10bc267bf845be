/**
 * The install's times on the service's clock, which touches are timed by
 * (docs/attribution.md#clocks): the first open, when the install began, and so the latest
 * moment a touch may have to be credited with the install.
 *
 * The device's offset comes from the request's `sent_at`; without it, from the tap of the
 * service's own that the Play referrer brings back, whose time the service recorded and whose
 * click time Play gave the phone by its own clock. Without either the device is taken at its
 * word: right for all but the few phones whose clock is minutes off.
 */
import { DEVICE_CLOCK_ROUNDING_MS, referrerClickOffsetMs } from "../domain/device-clock.ts";
import type { InstallFacts } from "../domain/install-facts.ts";
import type { Touch } from "../ports/touches.ts";

export interface InstallClock {
  /** The service's clock minus the device's, and what gave it; null when nothing did. */
  readonly offset: { readonly ms: number; readonly from: "sent_at" | "referrer_click" } | null;
  /** The first open, never after the service heard of the install. */
  readonly firstOpen: number;
  /** When the install began: by Play's server clock, else by the device's moved by its offset. */
  readonly installBegan: number | null;
  /** The latest moment a touch may have and still have caused the install. */
  readonly latestTouch: number;
  /**
   * The same for the click the install names itself (its referrer's, its opening link's): a
   * second later when only the first open bounds it, which a device may write to the whole
   * second. Another method's touch has no such claim on the install.
   */
  readonly latestOwnClick: number;
  /**
   * Play's own times, both on the phone's one clock, put the referrer's click after the install
   * began (a later whole second): a click injected during the download, which no offset makes
   * the install's cause, whatever is known of the phone's clock.
   */
  readonly referrerClickAfterBegin: boolean;
}

const timeOf = (iso: string) => Date.parse(iso);

/**
 * Whether a touch is the service's own tap, the click that gives the device's offset: its time
 * is on the service's clock (a network's reported time is on the network's).
 */
const isOwnTap = (touch: Touch, facts: InstallFacts) =>
  touch.appId === facts.appId && touch.source === "link" && touch.touchType === "click";

/**
 * The device's offset: its `sent_at`'s, else the referrer's tap's, else none. Play's click time
 * counts only where the phone's own clock puts it before the first open (to the second): one
 * after it was not written by that phone's clock at that click (a client that filled it in
 * later, a value from elsewhere), and would move every time the phone gave.
 */
const offsetOf = (facts: InstallFacts, referrerTap: Touch | undefined): InstallClock["offset"] => {
  if (facts.clockOffsetMs !== null) return { ms: facts.clockOffsetMs, from: "sent_at" };
  if (
    referrerTap &&
    facts.deviceReferrerClickAt &&
    isOwnTap(referrerTap, facts) &&
    timeOf(facts.deviceReferrerClickAt) <= timeOf(facts.firstOpenTime) + DEVICE_CLOCK_ROUNDING_MS
  ) {
    const ms = referrerClickOffsetMs(
      timeOf(referrerTap.touchTime),
      timeOf(facts.deviceReferrerClickAt) / 1000,
    );
    return { ms, from: "referrer_click" };
  }
  return null;
};

/**
 * The install's clock. `referrerTap` is the touch the Play referrer's click id names, if the
 * store has it.
 *
 * A touch may be as late as the install's begin, when one is known: by Play's server clock,
 * else the device's begin moved by a known offset (a device's times with no offset at all say
 * nothing about the service's clock that its first open does not). Else as late as the first
 * open, and the install's own click a second more, for a first open written to the whole
 * second; never after the service heard of the install.
 */
export const installClock = (facts: InstallFacts, referrerTap?: Touch): InstallClock => {
  const offset = offsetOf(facts, referrerTap);
  const received = timeOf(facts.receivedAt);
  const firstOpen = Math.min(timeOf(facts.firstOpenTime) + (offset?.ms ?? 0), received);
  // The device's begin is no later than its first open, whatever its offset makes of it.
  const installBegan = facts.installBeganAt
    ? timeOf(facts.installBeganAt)
    : offset && facts.deviceInstallBeganAt
      ? Math.min(timeOf(facts.deviceInstallBeganAt) + offset.ms, firstOpen)
      : null;
  return {
    offset,
    firstOpen,
    installBegan,
    latestTouch: installBegan ?? firstOpen,
    latestOwnClick: installBegan ?? Math.min(firstOpen + DEVICE_CLOCK_ROUNDING_MS, received),
    referrerClickAfterBegin:
      facts.deviceReferrerClickAt !== null &&
      facts.deviceInstallBeganAt !== null &&
      timeOf(facts.deviceReferrerClickAt) > timeOf(facts.deviceInstallBeganAt),
  };
};
