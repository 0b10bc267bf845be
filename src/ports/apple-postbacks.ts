/**
 * Apple's postbacks as the service keeps them: every SKAdNetwork and AdAttributionKit copy a
 * device sent to an app's endpoints, once each (by its framework, transaction id and window),
 * with its verification; those naming an App Store id no app has are kept apart, under no app
 * (those Apple's production key verified count for the app whose settings have the id later).
 */
export type PostbackKind = "skadnetwork" | "adattributionkit";
export type CoarseValue = "low" | "medium" | "high";

export interface Verification {
  /** `verified`: Apple's signature holds; else the postback is kept but never counted. */
  readonly status: "verified" | "unverified";
  /** The key's environment when verified: a development postback is a test's. */
  readonly environment: "production" | "development" | null;
  readonly keyId: string | null;
  /** Why it is unverified. */
  readonly reason: string | null;
}

/** A postback as the service keeps it, whichever framework sent it (src/skadnetwork/postbacks.ts). */
export interface ReceivedPostback {
  readonly kind: PostbackKind;
  /** SKAdNetwork's `version` (`1.0` when absent); AdAttributionKit's is `aak`. */
  readonly version: string;
  readonly adNetworkId: string;
  /** The campaign: `source-identifier` (2 to 4 digits), or `campaign-id` before 4.0. */
  readonly sourceIdentifier: string;
  /** The advertised app's App Store id. */
  readonly appStoreId: string;
  /** What makes it unique: `transaction-id`, or AdAttributionKit's `postback-identifier`. */
  readonly transactionId: string;
  readonly redownload: boolean;
  readonly sourceAppId: string | null;
  readonly sourceDomain: string | null;
  /** 1: StoreKit-rendered (a click); 0: a view. */
  readonly fidelityType: number | null;
  /** Whether it is the winner's; versions before 3.0 send winners only. */
  readonly didWin: boolean;
  /** The conversion window: 0, 1 or 2. */
  readonly sequenceIndex: number;
  readonly conversionValue: number | null;
  readonly coarseValue: CoarseValue | null;
  readonly countryCode: string | null;
  /** AdAttributionKit's `conversion-type`: `download`, `redownload`, `re-engagement`. */
  readonly conversionType: string | null;
  readonly verification: Verification;
}

export interface StoredApplePostback extends ReceivedPostback {
  /** The app whose App Store id it names; null when no app has it. */
  readonly appId: string | null;
  /** ISO 8601 UTC, by the service's clock. */
  readonly receivedAt: string;
  /**
   * A second copy Apple signed too came with other conversion values. Apple signs none of them,
   * so whoever holds a postback (every ad network it went to) can post it first with values of
   * their own: neither copy's values count, and the postback counts as one with no value.
   */
  readonly valuesDisputed: boolean;
}

/**
 * How long an unverified postback is kept: the endpoints are public, so anyone may post bodies
 * shaped like Apple's, which never count; a month leaves time to look at what came, and a
 * verified copy of the same transaction, Apple's, replaces one and is kept.
 */
export const UNVERIFIED_POSTBACK_DAYS = 30;

/**
 * What a copy of a postback is worth keeping: Apple's signature for production (2), a test's,
 * signed with a development key (1), none (0). A copy takes the place of a stored one of lower
 * standing, never of one of the same or higher.
 */
export const copyStanding = (postback: Pick<ReceivedPostback, "verification">): 0 | 1 | 2 =>
  postback.verification.status !== "verified"
    ? 0
    : postback.verification.environment === "production"
      ? 2
      : 1;

export interface ApplePostbackPage {
  readonly postbacks: StoredApplePostback[];
  readonly next: string | null;
}

/**
 * What names one postback: its framework, its transaction id and its conversion window. Apple
 * documents the transaction id as unique to a postback, but not whether a later window's
 * postback has its own: with the window in the key, a later window is never taken for a retry
 * of the first, whichever Apple does.
 */
export type PostbackKey = Pick<StoredApplePostback, "kind" | "transactionId" | "sequenceIndex">;

export interface ApplePostbackStore {
  /** The postback stored under this key, if any. */
  get(key: PostbackKey): Promise<StoredApplePostback | undefined>;
  /**
   * Stores the postback unless one of its key is, or in place of one of lower `copyStanding`
   * (an unverified one, or a test's where it is signed for production): true when stored. A
   * transaction id is no secret (every ad network Apple sent the postback to has it), so the
   * first body to name one may be anyone's; Apple's signed copy still takes its place.
   */
  add(postback: StoredApplePostback): Promise<boolean>;
  /** Marks the stored postback's values as disputed (`valuesDisputed`). */
  dispute(key: PostbackKey): Promise<void>;
  /**
   * An app's postbacks received in [from, to), oldest first, a page at a time (`after`: the
   * page before's `next`); `appId` null lists those of no app.
   */
  listByApp(
    appId: string | null,
    range: { readonly from: Date; readonly to: Date },
    page: { readonly limit: number; readonly after?: string },
  ): Promise<ApplePostbackPage>;
  /**
   * The postbacks Apple's production key verified that are kept under no app and name this App
   * Store id, received in [from, to), oldest first, a page at a time (`after`: the page before's
   * `next`). Once an app's settings have the id they are that app's: its report and listing
   * read them beside its own. Never a development one nor an unverified one: anyone can make
   * those for any App Store id.
   */
  listUnclaimed(
    appStoreId: string,
    range: { readonly from: Date; readonly to: Date },
    page: { readonly limit: number; readonly after?: string },
  ): Promise<ApplePostbackPage>;
  /**
   * Forgets the unverified postbacks received more than UNVERIFIED_POSTBACK_DAYS before `now`
   * (DynamoDB's TTL does it on AWS); how many.
   */
  reap(now: Date): Promise<number>;
}

/**
 * Apple's field a postback's campaign number is: `campaign-id` before SKAdNetwork 4.0 (1 to
 * 100, one postback per install), else `source-identifier` (2 to 4 digits, and later windows'
 * postbacks). The two number campaigns apart: 39 of one is not 39 of the other.
 */
export type IdentifierField = "campaign-id" | "source-identifier";

/**
 * The postbacks of an app received in a window, grouped by what the SKAdNetwork report reads
 * (src/skadnetwork/report-query.ts): how many postbacks (each transaction once) share these
 * values.
 */
export interface ApplePostbackGroup {
  readonly adNetworkId: string;
  readonly sourceIdentifier: string;
  readonly identifierField: IdentifierField;
  readonly sequenceIndex: number;
  readonly didWin: boolean;
  readonly redownload: boolean;
  /** AdAttributionKit's re-engagement: an ad that brought a user back to an installed app. */
  readonly reengagement: boolean;
  readonly conversionValue: number | null;
  readonly coarseValue: CoarseValue | null;
  readonly verification: Pick<Verification, "status" | "environment">;
  /** Signed copies came with other values: `conversionValue` and `coarseValue` are null. */
  readonly valuesDisputed: boolean;
  readonly postbacks: number;
}
