/**
 * Where the link host sends a tap, by the platform its user agent names: Android to the Play
 * Store with an install referrer that carries the click id (Play hands it to the app on first
 * launch, so the install names its click), iOS to the App Store, anything else to the web.
 * A link's own destination for a platform wins over the app's store page; a Play Store
 * destination always gets the referrer.
 */

import type { DevicePlatform } from "../domain/touch.ts";
import type { App } from "../ports/apps.ts";

/** The install referrer's key for the click id: the matcher reads it back from the install. */
export const REFERRER_CLICK_ID = "service_click_id";

/** The app's side: its id is the Play package of an Android app; its settings name the rest. */
export type AppDestinations = Pick<App, "appId" | "platform" | "links">;

export interface LinkDestinations {
  readonly androidUrl?: string | null;
  readonly iosUrl?: string | null;
  readonly webUrl?: string | null;
  readonly mediaSource: string;
  readonly campaignName?: string | null;
}

const PLAY_HOST = "play.google.com";

/** The install referrer a click puts in the Play Store URL. */
export const installReferrer = (clickId: string, link: LinkDestinations): string => {
  const referrer = new URLSearchParams({ [REFERRER_CLICK_ID]: clickId });
  referrer.set("utm_source", link.mediaSource);
  if (link.campaignName) referrer.set("utm_campaign", link.campaignName);
  return referrer.toString();
};

/** The click id an install referrer carries, if a click through the link host put one there. */
export const clickIdOfReferrer = (referrer: string | null | undefined): string | null =>
  referrer ? new URLSearchParams(referrer).get(REFERRER_CLICK_ID) : null;

const playStorePage = (packageName: string) =>
  `https://${PLAY_HOST}/store/apps/details?id=${encodeURIComponent(packageName)}`;

const appStorePage = (appStoreId: string) =>
  `https://apps.apple.com/app/id${encodeURIComponent(appStoreId)}`;

/** The app's store page, for a platform with no destination of its own. */
const storePage = (app: AppDestinations): string | null => {
  if (app.platform === "android") return playStorePage(app.appId);
  const appStoreId = app.links?.appStoreId;
  return appStoreId ? appStorePage(appStoreId) : null;
};

/**
 * A destination as a `Location` header can carry it: serialised as browsers do, the host in
 * punycode and any other non-ASCII character percent-encoded (`https://b.example/ü` becomes
 * `https://b.example/%C3%BC`). A Play Store destination gets the click's install referrer.
 */
const asLocation = (url: string, clickId: string | null, link: LinkDestinations): string => {
  const parsed = URL.parse(url);
  if (parsed === null) return encodeURI(url);
  if (parsed.hostname === PLAY_HOST && clickId !== null) {
    parsed.searchParams.set("referrer", installReferrer(clickId, link));
  }
  return parsed.href;
};

/**
 * The URL a tap goes to; null when neither the link nor the app names one for the platform or
 * the web. `clickId` is null for a tap that is not counted (a bot, a disabled link).
 */
export const destinationOf = (
  platform: DevicePlatform,
  app: AppDestinations,
  link: LinkDestinations,
  clickId: string | null,
): string | null => {
  const web = link.webUrl ?? app.links?.webUrl ?? null;
  const chosen =
    platform === "android"
      ? (link.androidUrl ?? (app.platform === "android" ? playStorePage(app.appId) : null) ?? web)
      : platform === "ios"
        ? (link.iosUrl ?? (app.platform === "ios" ? storePage(app) : null) ?? web)
        : (web ?? storePage(app));
  return chosen === null ? null : asLocation(chosen, clickId, link);
};
