/**
 * The postbacks no app claims: those naming an App Store id that no app's settings had when they
 * came, kept under no app rather than lost. The service's admins see them counted by App Store
 * id (the API, the dashboard's Apps page and `attribution skadnetwork unknown`), so an id
 * missing from an app's settings, or mistyped there, is found and set. Once an app has the id,
 * those Apple's production key verified are that app's (its report and listing read them):
 * only the rest, unverified and development ones, stay no app's.
 */
import type { ApplePostbackStore } from "../ports/apple-postbacks.ts";
import type { App } from "../ports/apps.ts";
import { POSTBACK_PAGE_LIMITS } from "./settings.ts";

/**
 * At most this many postbacks are read for one answer: the endpoints are public, so the
 * postbacks of no app can be many, and the answer says when it stopped short.
 */
export const UNKNOWN_SCAN_LIMIT = 20_000;

export interface UnknownAppStoreId {
  readonly app_store_id: string;
  readonly postbacks: number;
  /**
   * Of which verified with Apple's production key: Apple signed this App Store id for an
   * install, so an app of the service is missing it. Always 0 for an id an app has now: those
   * are that app's.
   */
  readonly verified: number;
  /**
   * Of which verified with a development key: a test's, which anyone makes for any App Store id
   * (Xcode, a device's developer settings), so no sign of a real app.
   */
  readonly development: number;
  readonly first_received_at: string;
  readonly last_received_at: string;
  /**
   * The app whose settings name this App Store id now, null when none does: one set since
   * these postbacks came, so that the id is not set a second time. Its verified postbacks are
   * that app's, and only its unverified and development ones are counted here.
   */
  readonly app_id: string | null;
}

export interface UnknownPostbacks {
  /** The App Store ids, most postbacks first. */
  readonly app_store_ids: UnknownAppStoreId[];
  /** Whether more postbacks than UNKNOWN_SCAN_LIMIT were received in the window (the rest unread). */
  readonly truncated: boolean;
}

/**
 * The postbacks of no app received in [from, to), counted by the App Store id each names, with
 * the app of `apps` (every app) that names the id now; but for those Apple's production key
 * verified for an id an app has now, which are that app's.
 */
export const unknownPostbacks = async (
  store: Pick<ApplePostbackStore, "listByApp">,
  apps: readonly App[],
  range: { readonly from: Date; readonly to: Date },
  limit = UNKNOWN_SCAN_LIMIT,
): Promise<UnknownPostbacks> => {
  const appOf = new Map(
    apps.flatMap((app) => (app.links?.appStoreId ? [[app.links.appStoreId, app.appId]] : [])),
  );
  const byId = new Map<string, UnknownAppStoreId>();
  let read = 0;
  let after: string | undefined;
  do {
    const page = await store.listByApp(null, range, {
      limit: Math.min(POSTBACK_PAGE_LIMITS.maxLimit, limit - read),
      ...(after ? { after } : {}),
    });
    for (const postback of page.postbacks) {
      const signed = postback.verification.status === "verified";
      const environment = postback.verification.environment;
      const appId = appOf.get(postback.appStoreId) ?? null;
      if (appId !== null && signed && environment === "production") continue;
      const seen = byId.get(postback.appStoreId);
      // Pages come oldest first: the first seen is the earliest.
      byId.set(postback.appStoreId, {
        app_store_id: postback.appStoreId,
        postbacks: (seen?.postbacks ?? 0) + 1,
        verified: (seen?.verified ?? 0) + (signed && environment === "production" ? 1 : 0),
        development: (seen?.development ?? 0) + (signed && environment === "development" ? 1 : 0),
        first_received_at: seen?.first_received_at ?? postback.receivedAt,
        last_received_at: postback.receivedAt,
        app_id: appId,
      });
    }
    read += page.postbacks.length;
    after = page.next ?? undefined;
  } while (after && read < limit);
  // A cursor is no promise of more: DynamoDB gives one whenever a page is full.
  const truncated =
    after !== undefined &&
    (await store.listByApp(null, range, { limit: 1, after })).postbacks.length > 0;
  return {
    app_store_ids: [...byId.values()].sort(
      (a, b) => b.postbacks - a.postbacks || a.app_store_id.localeCompare(b.app_store_id),
    ),
    truncated,
  };
};
