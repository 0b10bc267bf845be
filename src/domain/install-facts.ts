/**
 * What the service knows of an install that matching reads, shared by the install and
 * attribution stores (src/ports) and the matcher (src/attribution/matcher.ts).
 */

export const OS_VALUES = ["android", "ios"] as const;
export type Os = (typeof OS_VALUES)[number];

/** iOS App Tracking Transparency statuses, as the SDKs report them. */
export const ATT_STATUSES = ["authorized", "denied", "restricted", "not_determined"] as const;
export type AttStatus = (typeof ATT_STATUSES)[number];

/** What matching reads of an install. */
export interface InstallFacts {
  readonly appId: string;
  readonly os: Os;
  readonly osVersion: string | null;
  readonly deviceModel: string | null;
  /** ISO 8601 UTC, by the device's clock. */
  readonly firstOpenTime: string;
  /** When the service received the install (ISO 8601 UTC), by its own clock. */
  readonly receivedAt: string;
  /**
   * The service's clock minus the device's, from the time the SDK sent the install by its own
   * clock (`sent_at`); null when the request did not say.
   */
  readonly clockOffsetMs: number | null;
  readonly maid: string | null;
  readonly attStatus: AttStatus | null;
  /** The click id the Play install referrer carries. */
  readonly referrerClickId: string | null;
  /** The click id of the link that opened the app on its first launch. */
  readonly openUrlClickId: string | null;
  /** When the install began by the store's server clock (ISO 8601 UTC), if known. */
  readonly installBeganAt: string | null;
  /**
   * The Play referrer's click time and the install's begin by the device's clock (ISO 8601
   * UTC, whole seconds as Play gives them), if known: with the click's own time on the
   * service's clock they give the device's offset when the request did not send its clock.
   */
  readonly deviceReferrerClickAt: string | null;
  readonly deviceInstallBeganAt: string | null;
  /** The address the install was reported from. */
  readonly ip: string | null;
  /**
   * The user agent of the install's request: matching never reads it, but the install's
   * postbacks send it (`{user_agent}`), and the install does not keep it.
   */
  readonly userAgent: string | null;
  /** Apple's AdServices token (iOS 14.3 and later), valid for 24 hours. */
  readonly platformAdsToken: string | null;
}
