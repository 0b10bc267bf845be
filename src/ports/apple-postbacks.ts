/**
 * Apple's postbacks as the service keeps them: every SKAdNetwork and AdAttributionKit copy a
 * device sent to an app's endpoints, once each (by its framework and transaction id), with its
 * verification; those naming an App Store id no app has are kept apart, under no app.
 */
import type { ReceivedPostback } from "../skadnetwork/postbacks.ts";

export interface StoredApplePostback extends ReceivedPostback {
  /** The app whose App Store id it names; null when no app has it. */
  readonly appId: string | null;
  /** ISO 8601 UTC, by the service's clock. */
  readonly receivedAt: string;
}

export interface ApplePostbackPage {
  readonly postbacks: StoredApplePostback[];
  readonly next: string | null;
}

export interface ApplePostbackStore {
  /** Stores the postback unless one of its framework and transaction id is: true when new. */
  add(postback: StoredApplePostback): Promise<boolean>;
  /** Forgets a postback just added whose lake row could not be written, so its retry adds both. */
  remove(postback: Pick<StoredApplePostback, "kind" | "transactionId">): Promise<void>;
  /**
   * An app's postbacks received in [from, to), oldest first, a page at a time (`after`: the
   * page before's `next`); `appId` null lists those of no app.
   */
  listByApp(
    appId: string | null,
    range: { readonly from: Date; readonly to: Date },
    page: { readonly limit: number; readonly after?: string },
  ): Promise<ApplePostbackPage>;
}
